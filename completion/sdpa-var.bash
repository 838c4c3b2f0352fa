# bash completion for sdpa-var(1), written by `sdpa-var --completion bash`
# from its option table: its long options, and the names that the options
# of names take (after a comma too, for those that take lists). Installed
# as share/bash-completion/completions/sdpa-var, where bash-completion
# loads it on first use; or `source` it.

_sdpa_var() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=
    local opts='--dk --n --nq --nk --trials --first-trial --total-trials --q-rows --seed
        --dist --ddof --observed --scale --nu --q-mean --q-std --k-mean --k-std --qk-norm
        --qk-scale --plant --d-model --init --cross --causal --window --values --dv --grad
        --q --k --v --mask --layout --pool --logits --logits-file --upstream --save-qk
        --format --plot --output --columns --no-header --per-trial --per-row --histogram
        --weight-histogram --example --quiet --threads --block-rows --help --completion
        --version'
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --dist=t: bash splits the word at '=' (COMP_WORDBREAKS) into "--dist",
    # "=" and "t" (or just "--dist" and "=" when nothing follows yet).
    if [ "$cur" = "=" ]; then
        cur=
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    local values= list=
    case $prev in
        -d | --dk) COMPREPLY=(); return 0 ;;
        -n | --n) COMPREPLY=(); return 0 ;;
        --nq) COMPREPLY=(); return 0 ;;
        --nk) COMPREPLY=(); return 0 ;;
        -t | --trials) COMPREPLY=(); return 0 ;;
        --first-trial) COMPREPLY=(); return 0 ;;
        --total-trials) COMPREPLY=(); return 0 ;;
        --q-rows) COMPREPLY=(); return 0 ;;
        -s | --seed) COMPREPLY=(); return 0 ;;
        --dist) values='normal uniform rademacher t' list=1 ;;
        --ddof) COMPREPLY=(); return 0 ;;
        --observed) COMPREPLY=(); return 0 ;;
        --scale) values='sqrt dk none logn' list=1 ;;
        --nu) COMPREPLY=(); return 0 ;;
        --q-mean) COMPREPLY=(); return 0 ;;
        --q-std) COMPREPLY=(); return 0 ;;
        --k-mean) COMPREPLY=(); return 0 ;;
        --k-std) COMPREPLY=(); return 0 ;;
        --qk-scale) COMPREPLY=(); return 0 ;;
        --plant) COMPREPLY=(); return 0 ;;
        --d-model) COMPREPLY=(); return 0 ;;
        --init) values='xavier lecun normal' list=1 ;;
        --window) COMPREPLY=(); return 0 ;;
        --dv) COMPREPLY=(); return 0 ;;
        --q) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --k) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --v) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --mask) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --layout) values='bhnd bnhd' ;;
        --pool) values='heads none all' ;;
        --logits) COMPREPLY=(); return 0 ;;
        --logits-file) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --upstream) COMPREPLY=(); return 0 ;;
        --save-qk) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
        --format) values='table csv json jsonl state gnuplot markdown latex' ;;
        --plot) values='variance entropy max_weight eff_keys grad histogram' ;;
        --output) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return 0 ;;
        --columns) values='all +core +sd +quantiles +theory +variance +entropy +jacobian +logits +sink +draw +ddof +plant +projection +diag +inputs +qk_norm +causal +values +grad +observed' list=1 ;;
        --histogram) COMPREPLY=(); return 0 ;;
        --threads) COMPREPLY=(); return 0 ;;
        --block-rows) COMPREPLY=(); return 0 ;;
        --completion) values='bash' ;;
    esac
    if [ -n "$values" ]; then
        # A list: complete the item after the last comma, keep the rest.
        local head= item=$cur
        if [ -n "$list" ] && [ "${cur%,*}" != "$cur" ]; then
            head=${cur%,*},
            item=${cur##*,}
        fi
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
