# bash completion for sdpa-var(1): its long options, and the names that
# --dist, --init, --scale and --format take (after a comma too, for the
# options that take lists). Installed as
# share/bash-completion/completions/sdpa-var, where bash-completion loads it
# on first use; or `source` it. ctest install.docs_drift checks that the
# options here are those of `sdpa-var --help`.

_sdpa_var() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=
    local opts='--dk --n --nq --nk --trials --seed --dist --nu --ddof --observed
        --scale --q-mean --q-std --k-mean --k-std --qk-norm --qk-scale --plant
        --d-model --init --cross --causal --values --dv --grad --format --columns --no-header
        --per-trial --per-row --histogram --weight-histogram --example --quiet --threads
        --block-rows --help --version --q --k --v --mask --layout --pool --save-qk
        --first-trial --total-trials --q-rows --window --logits --logits-file --upstream --plot --output'
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --dist=t: bash splits the word at '=' (COMP_WORDBREAKS) into "--dist",
    # "=" and "t" (or just "--dist" and "=" when nothing follows yet).
    if [ "$cur" = "=" ]; then
        cur=
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    local values=
    case $prev in
        --dist) values='normal uniform rademacher t' ;;
        --init) values='xavier lecun normal' ;;
        --scale) values='sqrt dk none logn' ;;
        --format) values='table csv json jsonl state gnuplot markdown latex' ;;
        --plot) values='variance entropy max_weight eff_keys grad histogram' ;;
        --layout) values='bhnd bnhd' ;;
        --pool) values='heads none all' ;;
        # all, or +GROUP additions (docs/columns.md; column names are many).
        --columns) values='all +sd +quantiles +theory +variance +entropy +jacobian +logits +sink +draw +ddof +plant +projection +diag +inputs +qk_norm +causal +values +grad +observed' ;;
        # Tensor files (FILE[:NAME]) and the directory --save-qk writes.
        --q | --k | --v | --mask | --logits-file | --output)
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            return 0
            ;;
        --save-qk)
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return 0
            ;;
        # Numbers: nothing to offer, and no file names either.
        -d | --dk | -n | --n | --nq | --nk | -t | --trials | -s | --seed | --nu | \
            --ddof | --observed | --q-mean | --q-std | --k-mean | --k-std | \
            --qk-scale | --plant | --d-model | --dv | --histogram | --threads | \
            --block-rows | --columns | --first-trial | --total-trials | --q-rows | --window | --logits | --upstream)
            COMPREPLY=()
            return 0
            ;;
    esac
    if [ -n "$values" ]; then
        # A list: complete the item after the last comma, keep the rest.
        local head= item=$cur
        case $prev in --dist | --init | --scale | --columns)
            if [ "${cur%,*}" != "$cur" ]; then
                head=${cur%,*},
                item=${cur##*,}
            fi
            ;;
        esac
        local v
        COMPREPLY=()
        for v in $values; do
            [[ $v == "$item"* ]] && COMPREPLY+=("$head$v")
        done
        return 0
    fi
    if [[ -z $cur || $cur == -* ]]; then
        local o
        COMPREPLY=()
        for o in $opts; do
            [[ $o == "$cur"* ]] && COMPREPLY+=("$o")
        done
    fi
    return 0
}
complete -F _sdpa_var sdpa-var
