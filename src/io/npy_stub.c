/* STUB (cli16 only, dropped at merge): a minimal stand-in for io16's
 * parsers and lib16's plug-in spec, so that the CLI can run. .npy 1.0/2.0,
 * '<f8' '<f4' '<f2' '>f8' '>f4', C or Fortran order; no safetensors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/engine.h"
#include "sdpa_var/tensor_file.h"
#include "sdpa_var/theory.h"

static sv_status bad(char *why, size_t n, const char *s, sv_status st)
{
    if (why && n)
        snprintf(why, n, "%s", s);
    return st;
}

sv_status sv_npy_parse(const void *buf, size_t len, sv_array *out, char *why, size_t why_len)
{
    const unsigned char *b = buf;
    if (!buf || !out)
        return SV_EINVAL;
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return bad(why, why_len, "not a .npy file (bad magic)", SV_EFORMAT);
    size_t hl, at;
    if (b[6] == 1)
        hl = b[8] | (size_t)b[9] << 8, at = 10;
    else if (len >= 12 && (b[6] == 2 || b[6] == 3))
        hl = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24, at = 12;
    else
        return bad(why, why_len, "unknown .npy version", SV_EFORMAT);
    if (hl > len - at || hl > 100000)
        return bad(why, why_len, "header runs past the end of the file", SV_EFORMAT);
    char h[4096];
    const size_t n = hl < sizeof h - 1 ? hl : sizeof h - 1;
    memcpy(h, b + at, n);
    h[n] = '\0';
    sv_array a = {0};
    const char *d = strstr(h, "'descr':");
    const char *f = strstr(h, "'fortran_order':");
    const char *s = strstr(h, "'shape':");
    if (!d || !f || !s)
        return bad(why, why_len, "header is not a dict of descr, fortran_order, shape", SV_EFORMAT);
    d = strchr(d + 8, '\'');
    if (!d)
        return bad(why, why_len, "bad descr", SV_EFORMAT);
    char descr[8] = "";
    sscanf(d + 1, "%7[^']", descr);
    size_t es;
    if (strcmp(descr + 1, "f8") == 0)
        a.dtype = SV_DTYPE_FLOAT64, es = 8;
    else if (strcmp(descr + 1, "f4") == 0)
        a.dtype = SV_DTYPE_FLOAT32, es = 4;
    else if (strcmp(descr + 1, "f2") == 0)
        a.dtype = SV_DTYPE_FLOAT16, es = 2;
    else {
        char m[64];
        snprintf(m, sizeof m, "dtype '%s' is not a float (float16, float32, float64)", descr);
        return bad(why, why_len, m, SV_EUNSUPPORTED);
    }
    a.byte_swapped = descr[0] == '>';
    const int fortran = strncmp(f + 16, " True", 5) == 0 || strncmp(f + 16, "True", 4) == 0;
    s = strchr(s, '(');
    if (!s)
        return bad(why, why_len, "bad shape", SV_EFORMAT);
    s++;
    size_t total = 1;
    while (*s && *s != ')') {
        char *end;
        const unsigned long long v = strtoull(s, &end, 10);
        if (end == s)
            break;
        if (a.ndim == 4)
            return bad(why, why_len, "more than 4 dimensions", SV_EUNSUPPORTED);
        a.shape[a.ndim++] = (size_t)v;
        total *= (size_t)v;
        s = end;
        while (*s == ',' || *s == ' ')
            s++;
    }
    if (a.ndim < 2)
        return bad(why, why_len, "ndim must be 2 to 4", SV_EUNSUPPORTED);
    if (total == 0)
        return bad(why, why_len, "a dimension is 0", SV_EUNSUPPORTED);
    if (total * es > len - at - hl)
        return bad(why, why_len, "data shorter than the shape needs (truncated?)", SV_EFORMAT);
    ptrdiff_t st = (ptrdiff_t)es;
    for (int i = fortran ? 0 : a.ndim - 1; fortran ? i < a.ndim : i >= 0; i += fortran ? 1 : -1) {
        a.strides[i] = st;
        st *= (ptrdiff_t)a.shape[i];
    }
    a.data = b + at + hl;
    *out = a;
    return SV_OK;
}

sv_status sv_safetensors_parse(const void *buf, size_t len, const char *name, sv_array *out,
                               char *why, size_t why_len)
{
    (void)buf;
    (void)len;
    (void)name;
    (void)out;
    return bad(why, why_len, "safetensors: not in this stub", SV_EUNSUPPORTED);
}

size_t sv_npy_header(char *buf, size_t len, sv_dtype dtype, int ndim, const size_t *shape)
{
    static const char *const descr[] = {"<f8", "<f4", "<f2", "<f2"};
    char dict[256], sh[160] = "";
    size_t at = 0;
    if (!buf || ndim < 1 || ndim > 4 || (unsigned)dtype >= 3)
        return 0;
    for (int i = 0; i < ndim; i++)
        at += (size_t)snprintf(sh + at, sizeof sh - at, "%zu%s", shape[i],
                               i + 1 < ndim ? ", " : ndim == 1 ? "," : "");
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                     descr[dtype], sh);
    size_t total = 10 + (size_t)n + 1;
    total = (total + 63) / 64 * 64;
    if (total > len)
        return 0;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    const size_t hl = total - 10;
    buf[8] = (char)(hl & 0xff);
    buf[9] = (char)(hl >> 8);
    memcpy(buf + 10, dict, (size_t)n);
    memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
    buf[total - 1] = '\n';
    return total;
}

sv_status sv_theory_plugin_spec(const sv_spec *spec, const sv_trial_stats *stats, sv_spec *out)
{
    if (!spec || !stats || !out || stats->q_mean != stats->q_mean ||
        stats->q_var != stats->q_var || stats->k_mean != stats->k_mean ||
        stats->k_var != stats->k_var)
        return SV_EINVAL;
    sv_spec s = *spec;
    s.dist = SV_DIST_NORMAL;
    s.q_mean = stats->q_mean;
    s.k_mean = stats->k_mean;
    s.q_std = stats->q_var > 0 ? __builtin_sqrt(stats->q_var) : 1e-300;
    s.k_std = stats->k_var > 0 ? __builtin_sqrt(stats->k_var) : 1e-300;
    const sv_status st = sv_spec_check(&s);
    if (st == SV_OK)
        *out = s;
    return st;
}
