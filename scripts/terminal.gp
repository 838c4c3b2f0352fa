# terminal.gp: the terminal and output file of every sdpa-var figure script.
#
# Loaded by each scripts/NAME.gp, from the directory that script is in, after
# it has read and checked its input (so a failed run leaves no empty file):
#   script = "NAME"; default_width = 1000; default_height = 700
#   load script_dir . "terminal.gp"
# It is not meant to be run on its own.
#
# Options a user gives as -e "name=value" BEFORE the script name:
#   out='fig.png'    output file; its extension picks the terminal:
#                      .png  pngcairo (size in pixels)
#                      .pdf  pdfcairo (size in inches)
#                      .svg  svg      (size in pixels)
#                    any other extension is an error, so a .png never holds SVG.
#                    Default: NAME.png in the current directory (NAME.pdf or
#                    NAME.svg when term='pdfcairo' or term='svg' is given).
#   size='1600,900'  width,height: pixels for .png and .svg, inches for .pdf
#                    (units allowed there: size='16cm,9cm').  Default: the
#                    script's own size in pixels, which for .pdf becomes
#                    inches at 144 pixels per inch: there pdfcairo's 12 pt
#                    font takes the room pngcairo's takes in the PNG, so the
#                    PDF has the PNG's layout (1000x700 px -> 6.94x4.86 in).
#   width=1600; height=900   the size in pixels for every format (a .pdf
#                    converts them as above); size, when given, wins.
#   fontscale=1.6    multiplies the 12 pt base font (and line widths and
#                    points with it): 1.6 at 1600x900 reads well on a slide.
#   term='qt'        a window (qt, wxt, x11, aqua, windows) that stays until it
#                    is closed (needs e.g. Debian's gnuplot-qt: gnuplot-nox has
#                    file terminals only), or any other gnuplot terminal
#                    ('png' is libgd, 'pdfcairo', 'svg'); then out is not
#                    checked against the extensions above unless it has one.
# Sets `interactive` (1 for a window) for the script's final `pause`.
#
# A script sdpa-var writes (--format gnuplot: it sets `inline`, and `out`
# from --output) has this file's text in place of its `load` line
# (cmake/gnuplot_templates.cmake). Without out or term it draws on the
# user's terminal (gnuplot -e "set terminal ...", GNUTERM), enlarged to
# the script's size where that is pngcairo, png or svg at gnuplot's default
# size (640x480 leaves a small frame once the key is outside the plot; the
# user's other options are kept, and cairo refuses a second size), and on
# dumb (text on stdout) where gnuplot has none: a gnuplot-nox without
# GNUTERM, whose `gnuplot -p` would draw nothing.

interactive = 0
if (exists("inline") && !exists("out") && !exists("term")) {
    sv_t = GPVAL_TERM; sv_o = GPVAL_TERMOPTIONS
    sv_d = sv_t eq "pngcairo" ? "size 640, 480" : sv_t eq "png" ? "size 640,480" : \
        sv_t eq "svg" ? "size 600,480" : "-"
    sv_i = strstrt(sv_o, sv_d)
    if (sv_i > 0) {
        eval sprintf("set terminal %s %s%s size %d,%d", sv_t, sv_o[1:sv_i-1], \
            sv_o[sv_i+strlen(sv_d):], default_width, default_height)
    }
    if (sv_t eq "unknown") { eval sprintf("set terminal dumb size 120,%d", 60 * default_height / default_width + 4) }
} else {
    if (!exists("fontscale")) { fontscale = 1.0 }
    if (!exists("width"))     { width = default_width }
    if (!exists("height"))    { height = default_height }
    if (fontscale <= 0) {
        exit error sprintf("%s.gp: fontscale=%g must be positive", script, fontscale)
    }

    # sv_ext(s): the extension of s after its last ".", "" if it has none.
    sv_ext(s) = (strstrt(s, ".") == 0 ? "" : sv_ext_from(s, strlen(s)))
    sv_ext_from(s, i) = (i < 1 ? "" : (s[i:i] eq "." ? s[i+1:] : \
        (s[i:i] eq "/" ? "" : sv_ext_from(s, i - 1))))

    interactive = 0
    if (exists("term")) {
        interactive = (term eq "qt" || term eq "wxt" || term eq "x11" || term eq "aqua" || term eq "windows")
        if (!exists("out")) {
            out = script . (term eq "pdfcairo" || term eq "pdf" ? ".pdf" : \
                            (term eq "svg" ? ".svg" : ".png"))
        }
    } else {
        if (!exists("out")) { out = script . ".png" }
        sv_e = sv_ext(out)
        if (sv_e eq "png") {
            term = "pngcairo"
        } else {
            if (sv_e eq "pdf") {
                term = "pdfcairo"
            } else {
                if (sv_e eq "svg") {
                    term = "svg"
                } else {
                    exit error sprintf("%s.gp: out='%s': unknown extension '%s'; use .png, .pdf or .svg (or pick a terminal with term=)", \
                        script, out, sv_e)
                }
            }
        }
    }
    # An explicit term must not write one format under another's extension.
    sv_e = sv_ext(out)
    if (!interactive && ((sv_e eq "png" && term ne "pngcairo" && term ne "png") || \
                         (sv_e eq "pdf" && term ne "pdfcairo" && term ne "pdf") || \
                         (sv_e eq "svg" && term ne "svg"))) {
        exit error sprintf("%s.gp: term='%s' does not write a .%s file (out='%s')", script, term, sv_e, out)
    }

    if (!exists("size")) {
        size = (term eq "pdfcairo" ? sprintf("%.4gin,%.4gin", width / 144.0, height / 144.0) \
                                   : sprintf("%d,%d", width, height))
    }
    sv_font = sprintf("DejaVu Sans,%g", 12 * fontscale)
    sv_lw = 1.5 * fontscale
    if (term eq "pngcairo" || term eq "pdfcairo") {
        # eval, not @term: a macro in a { } block is expanded before the block runs
        eval sprintf("set terminal %s size %s enhanced font '%s' linewidth %g pointscale %g", \
            term, size, sv_font, sv_lw, fontscale)
    } else {
        if (term eq "svg") {
            eval sprintf("set terminal svg size %s enhanced font '%s' linewidth %g background 'white'", \
                size, sv_font, sv_lw)
        } else {
            eval sprintf("set terminal %s size %s enhanced", term, size)
        }
    }
    if (!interactive) { set output out }
}
