/* What the --format gnuplot writers share: gnuplot_term.h. */
#include "gnuplot_term.h"

#include <string.h>

#include "sdpa_var/param.h"

static int ends_with(const char *s, const char *tail)
{
    const size_t n = strlen(s), t = strlen(tail);
    return n > t && strcmp(s + n - t, tail) == 0;
}

void cli_gnuplot_terminal(FILE *f, const char *output, int w, int h)
{
    if (output) {
        if (ends_with(output, ".pdf")) /* 100 pixels an inch: the PNG's text to frame */
            fprintf(f, "set terminal pdfcairo size %.2fin,%.2fin fontscale 0.75\n", w / 100.0,
                    h / 100.0);
        else
            fprintf(f, "set terminal %s size %d,%d\n",
                    ends_with(output, ".svg") ? "svg dynamic" : "pngcairo", w, h);
        fprintf(f, "set output '%s'\n", output);
        return;
    }
    /* The default size's spelling in GPVAL_TERMOPTIONS, per terminal; the
     * user's other options are kept (cairo refuses a second size). */
    fprintf(f,
            "sv_t = GPVAL_TERM; sv_o = GPVAL_TERMOPTIONS\n"
            "sv_d = sv_t eq \"pngcairo\" ? \"size 640, 480\" : sv_t eq \"png\" ? "
            "\"size 640,480\" : sv_t eq \"svg\" ? \"size 600,480\" : \"-\"\n"
            "sv_i = strstrt(sv_o, sv_d)\n"
            "if (sv_i > 0) { eval sprintf(\"set terminal %%s %%s%%s size %d,%d\", sv_t, "
            "sv_o[1:sv_i-1], sv_o[sv_i+strlen(sv_d):]) }\n"
            "if (sv_t eq \"unknown\") { set terminal dumb size 120,%d }\n"
            "undefine sv_*\n",
            w, h, 120 * h / w / 2 + 4);
}

sv_scale_rule cli_scale_rule(const char *scale_name)
{
    sv_scale_rule r = SV_SCALE_VALUE;
    double v;
    (void)sv_scale_parse(scale_name, &r, &v); /* parsed once already: options.c */
    return r;
}

void cli_gnuplot_scaled_name(const cli_config *c, char *buf, size_t len)
{
    const sv_scale_rule r = cli_scale_rule(c->scale_name);
    if (r == SV_SCALE_SQRT)
        snprintf(buf, len, "QK^T/sqrt(d_k)");
    else if (r == SV_SCALE_DK)
        snprintf(buf, len, "QK^T/d_k");
    else if (r == SV_SCALE_NONE)
        snprintf(buf, len, "QK^T (--scale none)");
    else if (r == SV_SCALE_LOGN) /* a multiplier per d_k and n: say the rule */
        snprintf(buf, len, "QK^T * ln(%s)/sqrt(d_k)", c->spec.scale_logn ? "n_i" : "n_k");
    else
        snprintf(buf, len, "QK^T * %.6g%s", sv_spec_scale(&c->spec),
                 c->spec.scale_logn ? " ln n_i" : "");
}
