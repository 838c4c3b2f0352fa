#!/usr/bin/env bash
# real_models.sh: train the tiny transformer (examples/train_tiny.py), run
# sdpa-var on every saved layer's Q and K, and collect and draw what it prints
# (docs/real-models.md, section "A model trained here").
#
# Usage:
#   examples/real_models.sh [--quick] [--reuse] [--out DIR] [--train DIR]
#                          [--bin SDPA_VAR] [--figures DIR]
#     --quick        train_tiny.py --quick (2 layers, 60 steps, ~30 s), saves
#                    at steps 0, 20, 40, 60; else 4 layers, 500 steps (4-8
#                    min on 2 cores), saves every 50 steps; both train the
#                    four variants sqrt, none, qknorm, rope
#     --reuse        use the .safetensors already in the training directory
#                    (any steps, any layers) instead of training
#     --out DIR      results (default build/real_models)
#     --train DIR    training output (default DIR/train)
#     --bin PATH     the sdpa-var binary (default build/sdpa-var)
#     --figures DIR  where real_models.png goes (default the --out DIR)
#
# For each <variant>_step<NNNNNN>.safetensors and each layer L it runs
#   sdpa-var --q F:layerL.q --k F:layerL.k --causal --scale S --pool none \
#            --format csv --columns ...
# with S the multiplier the model applied, read from layerL.scale: `sqrt`
# when every head's is 1/sqrt(d_k) (within 1e-6 relative), `1` when every
# head's is 1, else (QK-norm's learned s_h, one per head) the list
# s_0,...,s_{H-1}, each float32 printed exactly (%.17g): sdpa-var then prints
# one configuration per multiplier (scale outer, then batch, then head) and
# head h keeps the rows of its own s_h, so every row's scaled columns are
# those of the model's own logits.
# Writes into DIR:
#   heads.csv    one row per (variant, step, layer, batch, head): sdpa-var's
#                columns (docs/columns.md, section per_head) after variant,
#                step and layer; last, eval_loss, the training script's held-out
#                loss (train_tiny.py's steps.csv), the one column not from
#                sdpa-var
#   steps.csv    one row per (variant, step) over the layers x batch x heads
#                rows of heads.csv: means, minima and maxima (awk, below)
#   tables.md    the tables of docs/real-models.md, from steps.csv and heads.csv;
#                the last one, rope's per-head entropy and signed max logit
#                at every saved step, takes the signed max from sdpa-var's
#                scaled_max_logit column when this binary has it, else from
#                torch (train_tiny.py's heads.csv, column max_logit); its
#                header says which
#   real_models.png   examples/real_models.gp on heads.csv
# Exit status 0, 1 on a failed step (one line on stderr), 2 on usage.
set -euo pipefail

usage() { sed -n '7,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "real_models.sh: $*" >&2; exit 1; }
SRC=$(cd "$(dirname "$0")/.." && pwd)
quick=0 reuse=0 out=build/real_models train="" bin=build/sdpa-var figures=""
while [ $# -gt 0 ]; do
    case $1 in
        --quick) quick=1 ;;
        --reuse) reuse=1 ;;
        --out|--train|--bin|--figures)
            [ $# -ge 2 ] || { echo "real_models.sh: $1 needs a value" >&2; exit 2; }
            declare "${1#--}=$2"
            shift ;;
        -h|--help) usage ;;
        *) echo "real_models.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
    shift
done
train=${train:-$out/train}
figures=${figures:-$out}
[ -x "$bin" ] || die "--bin: '$bin' is not an executable (build it: cmake --build --preset release)"
command -v gnuplot >/dev/null 2>&1 || die "gnuplot not found (Debian: gnuplot-nox)"
mkdir -p "$out" "$train" "$figures"

if [ $reuse = 1 ] && compgen -G "$train/*_step*.safetensors" >/dev/null; then
    echo "real_models.sh: reusing $train" >&2
else
    [ $reuse = 1 ] && die "--reuse: no *_step*.safetensors in '$train'"
    if [ $quick = 1 ]; then
        args=(--quick --save "0,20,40,60")
    else
        args=(--save "0,50,100,150,200,250,300,350,400,450,500")
    fi
    t0=$(date +%s)
    /usr/bin/python3 "$SRC/examples/train_tiny.py" --out "$train" --silent "${args[@]}" ||
        die "examples/train_tiny.py failed"
    echo "real_models.sh: trained in $(($(date +%s) - t0)) s into $train" >&2
fi

# layerL, its --scale argument and 1 if that is a per-head list, per line.
scales() {
    /usr/bin/python3 - "$1" <<'EOF'
import json, math, struct, sys
with open(sys.argv[1], "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    head = json.loads(f.read(n))
    base = 8 + n
    dk = int(head["__metadata__"]["d_k"])
    for name in sorted(k for k in head if k.endswith(".scale")):
        b, e = head[name]["data_offsets"]
        f.seek(base + b)
        s = struct.unpack("<%df" % ((e - b) // 4), f.read(e - b))
        same = all(abs(x - s[0]) <= 1e-6 * abs(s[0]) for x in s)
        if same and abs(s[0] * math.sqrt(dk) - 1) <= 1e-6:
            arg, per = "sqrt", 0
        elif same and abs(s[0] - 1) <= 1e-6:
            arg, per = "1", 0
        else:
            arg, per = ",".join("%.17g" % x for x in s), 1
        print(name[:-len(".scale")], arg, per)
EOF
}

# Variants in the docs' order: "sqrt..." -> "1,sqrt...", none 2, qknorm 3.
rank() {
    sed 's/^sqrt\([ ,]\)/1,sqrt\1/; s/^none\([ ,]\)/2,none\1/; s/^qknorm\([ ,]\)/3,qknorm\1/;
         s/^rope\([ ,]\)/4,rope\1/'
}

COLS=batch,head,dk,n_q,scale,scale_factor,raw_mean,raw_var,raw_var_theory,q_mean_measured,q_var
COLS=$COLS,k_mean_measured,k_var,var_scale,scaled_var,scaled_entropy,scaled_entropy_norm
COLS=$COLS,scaled_max_weight,raw_max_abs_logit,scaled_max_abs_logit,scaled_sink_weight
heads=$out/heads.csv
shopt -s nullglob
files=("$train"/*_step*.safetensors)
[ ${#files[@]} -gt 0 ] || die "no *_step*.safetensors in '$train'"
# The signed max logit (QK-clip's S_max) from sdpa-var where it has the
# column (issue 23 section 2), else torch's from train_tiny.py.
signed=torch
if "$bin" --q "${files[0]}:layer0.q" --k "${files[0]}:layer0.k" --causal --pool none \
        --format csv --columns scaled_max_logit >/dev/null 2>&1; then
    signed=sdpa-var COLS=$COLS,scaled_max_logit
fi
echo "variant,step,layer,$COLS,eval_loss" > "$heads.tmp"
for f in "${files[@]}"; do
    base=$(basename "$f" .safetensors)
    variant=${base%%_step*} step=$((10#${base##*_step}))
    loss=$(awk -F, -v v="$variant" -v s="$step" 'NR > 1 && $1 == v && $2 == s { print $3 }' \
        "$train/steps.csv" 2>/dev/null || true)
    scales "$f" > "$out/scales.tmp" || die "$f: cannot read its layerL.scale tensors"
    while read -r layer arg per; do
        "$bin" --q "$f:$layer.q" --k "$f:$layer.k" --causal --scale "$arg" --pool none \
            --format csv --no-header --columns "$COLS" > "$out/run.tmp" ||
            die "sdpa-var failed on $f:$layer"
        # per = 1: configuration c (rows c*R .. c*R+R-1, R = rows / heads) is
        # head c's multiplier; keep head c's rows of it.
        awk -F, -v pre="$variant,$step,${layer#layer}" -v per="$per" -v loss="${loss:-nan}" '
            { row[NR] = $0; h[NR] = $2; if ($2 + 0 > hmax) hmax = $2 + 0 }
            END {
                R = NR / (per ? hmax + 1 : 1)
                for (i = 1; i <= NR; i++)
                    if (!per || int((i - 1) / R) == h[i]) print pre "," row[i] "," loss
            }' "$out/run.tmp" >> "$heads.tmp"
    done < "$out/scales.tmp"
done
rm -f "$out/run.tmp" "$out/scales.tmp"
mv "$heads.tmp" "$heads"

# Per (variant, step): over the rows of heads.csv, by column name.
awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    function v(n) { return $(c[n]) + 0 }
    function acc(k, n, x) {
        s[k, n] += x
        if (!((k, n) in lo) || x < lo[k, n]) lo[k, n] = x
        if (!((k, n) in hi) || x > hi[k, n]) hi[k, n] = x
    }
    {
        k = $1 "," $2
        if (!(k in cnt)) { order[++nk] = k; loss[k] = $(c["eval_loss"]); dk[k] = v("dk") }
        cnt[k]++
        acc(k, "raw_var", v("raw_var")); acc(k, "var_ratio", v("raw_var") / v("raw_var_theory"))
        acc(k, "q_var", v("q_var")); acc(k, "k_var", v("k_var"))
        acc(k, "var_scale", v("var_scale")); acc(k, "scale", v("scale_factor"))
        acc(k, "entropy", v("scaled_entropy")); acc(k, "entropy_norm", v("scaled_entropy_norm"))
        acc(k, "max_weight", v("scaled_max_weight")); acc(k, "raw_max_abs_logit", v("raw_max_abs_logit"))
        acc(k, "max_abs_logit", v("scaled_max_abs_logit")); acc(k, "sink_weight", v("scaled_sink_weight"))
        acc(k, "scaled_var", v("scaled_var"))
    }
    END {
        split("raw_var var_ratio q_var k_var var_scale scale scaled_var entropy entropy_norm " \
              "max_weight raw_max_abs_logit max_abs_logit sink_weight", names, " ")
        printf "variant,step,rows,dk,eval_loss"
        for (j = 1; j in names; j++) printf ",%s_mean,%s_min,%s_max", names[j], names[j], names[j]
        printf "\n"
        for (i = 1; i <= nk; i++) {
            k = order[i]
            printf "%s,%d,%s,%s", k, cnt[k], dk[k], loss[k]
            for (j = 1; j in names; j++)
                printf ",%.9g,%.9g,%.9g", s[k, names[j]] / cnt[k], lo[k, names[j]], hi[k, names[j]]
            printf "\n"
        }
    }' "$heads" | { IFS= read -r h; echo "$h"; rank | sort -t, -k1,1n -k3,3n | cut -d, -f2-; } \
    > "$out/steps.csv"

# The docs' tables: per (variant, step), then per head at the last step.
{
    echo "| variant | step | eval loss | Var(q·k) mean [min, max] | / d_k | / plug-in mean [min, max] |" \
         "Var(q) | Var(k) | var_scale mean [min, max] | multiplier | entropy | entropy_norm |" \
         "max weight | max \\|logit\\| | sink weight max |"
    echo "|---|---:|---:|---|---:|---|---:|---:|---|---|---:|---:|---:|---:|---:|"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        function m(n) { return $(c[n "_mean"]) } function l(n) { return $(c[n "_min"]) }
        function u(n) { return $(c[n "_max"]) }
        { sc = (l("scale") == u("scale")) ? sprintf("%.3f", l("scale")) \
                                          : sprintf("%.3f–%.3f", l("scale"), u("scale"))
          printf "| %s | %d | %.3f | %.2f [%.2f, %.2f] | %.3f | %.2f [%.2f, %.2f] | %.3f | %.3f |" \
                 " %.3f [%.3f, %.3f] | %s | %.2f | %.2f | %.3f | %.1f | %.3f |\n",
              $1, $2, $(c["eval_loss"]), m("raw_var"), l("raw_var"), u("raw_var"),
              m("raw_var") / $(c["dk"]), m("var_ratio"), l("var_ratio"), u("var_ratio"),
              m("q_var"), m("k_var"), m("var_scale"), l("var_scale"), u("var_scale"), sc,
              m("entropy"), m("entropy_norm"), m("max_weight"), u("max_abs_logit"),
              u("sink_weight") }' "$out/steps.csv"
    echo
    echo "| variant | layer | Var(q·k) per head | Var(q·k) / plug-in | entropy_norm per head |" \
         "max weight per head | max \\|logit\\| per head | sink weight per head | multiplier per head |"
    echo "|---|---:|---|---|---|---|---|---|---|"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { if ($2 + 0 > last[$1]) last[$1] = $2 + 0; r[NR] = $0 }
        END {
            for (i = 2; i <= NR; i++) {
                split(r[i], f, ",")
                if (f[2] + 0 != last[f[1]]) continue
                k = f[1] SUBSEP f[3]; hd = f[c["head"]] + 0
                if (!(k in seen)) { seen[k] = 1; keys[++nk] = f[1] "," f[3] }
                if (hd + 1 > nh) nh = hd + 1
                n[k, hd]++; var[k, hd] += f[c["raw_var"]]
                rat[k, hd] += f[c["raw_var"]] / f[c["raw_var_theory"]]
                en[k, hd] += f[c["scaled_entropy_norm"]]; mw[k, hd] += f[c["scaled_max_weight"]]
                sk[k, hd] += f[c["scaled_sink_weight"]]; sc[k, hd] = f[c["scale_factor"]]
                x = f[c["scaled_max_abs_logit"]] + 0
                if (x > ml[k, hd]) ml[k, hd] = x
            }
            for (i = 1; i <= nk; i++) {
                split(keys[i], kk, ","); k = kk[1] SUBSEP kk[2]
                printf "| %s | %d |", kk[1], kk[2]
                printf " %s |", row(k, var, "%.0f"); printf " %s |", row(k, rat, "%.1f")
                printf " %s |", row(k, en, "%.2f"); printf " %s |", row(k, mw, "%.2f")
                printf " %s |", rowmax(k); printf " %s |", row(k, sk, "%.3f")
                printf " %s |\n", rowsc(k)
            }
        }
        function row(k, a, fmt,   s, h) {
            for (h = 0; h < nh; h++) s = s (h ? " " : "") sprintf(fmt, a[k, h] / n[k, h])
            return s }
        function rowmax(k,   s, h) {
            for (h = 0; h < nh; h++) s = s (h ? " " : "") sprintf("%.1f", ml[k, h])
            return s }
        function rowsc(k,   s, h) {
            for (h = 0; h < nh; h++) s = s (h ? " " : "") sprintf("%.3f", sc[k, h])
            return s }' "$heads" | sed 's/^| //' | rank | sort -t, -k1,1n -s |
        sed 's/^[0-9],/| /'
    # rope per (step, layer): entropy per head (mean over the windows), the
    # signed max logit and max |logit| per head (the larger of the windows)
    echo
    echo "| step | layer | entropy per head (nats) | max logit per head ($signed) |" \
         "max \\|logit\\| per head |"
    echo "|---:|---:|---|---|---|"
    tf=$train/heads.csv
    [ -f "$tf" ] || tf=/dev/null
    awk -F, -v tf="$tf" -v src="$signed" '
        FNR == 1 { for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
        function col(n) { return $(c[FILENAME, n]) }
        FILENAME == tf { if (col("variant") == "rope")
                             tml[col("step") + 0, col("layer") + 0, col("head") + 0] = col("max_logit")
                         next }
        col("variant") == "rope" {
            k = (col("step") + 0) SUBSEP (col("layer") + 0); hd = col("head") + 0
            if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
            if (hd + 1 > nh) nh = hd + 1
            n[k, hd]++; en[k, hd] += col("scaled_entropy")
            a = col("scaled_max_abs_logit") + 0
            if (!((k, hd) in ab) || a > ab[k, hd]) ab[k, hd] = a
            if (src == "sdpa-var") {
                x = col("scaled_max_logit") + 0
                if (!((k, hd) in ml) || x > ml[k, hd]) ml[k, hd] = x
            }
        }
        END {
            for (i = 1; i <= nk; i++) {
                k = keys[i]; split(k, sl, SUBSEP); e = m = a = ""
                for (h = 0; h < nh; h++) {
                    sp = h ? " " : ""
                    e = e sp sprintf("%.2f", en[k, h] / n[k, h])
                    x = src == "sdpa-var" ? ml[k, h] : ((sl[1], sl[2], h) in tml ? tml[sl[1], sl[2], h] : "nan")
                    m = m sp (x == "nan" ? "nan" : sprintf("%.2f", x))
                    a = a sp sprintf("%.2f", ab[k, h])
                }
                printf "%d,%d,| %d | %d | %s | %s | %s |\n", sl[1], sl[2], sl[1], sl[2], e, m, a
            }
        }' "$tf" "$heads" | sort -t, -k1,1n -k2,2n | cut -d, -f3-
} > "$out/tables.md"

gnuplot -e "out='$figures/real_models.png'" "$SRC/examples/real_models.gp" < "$heads" ||
    die "examples/real_models.gp failed"
echo "real_models.sh: $heads ($(($(wc -l < "$heads") - 1)) rows), $out/steps.csv," \
     "$out/tables.md, $figures/real_models.png" >&2
