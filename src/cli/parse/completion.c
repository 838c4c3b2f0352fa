/* `sdpa-var --completion bash`: the bash completion, made from the option
 * table (the long and short names, which take a value, a FILE or a DIR)
 * and the names each option takes (cli_option_names, the column groups).
 * completion/sdpa-var.bash is its output (tests/install/docs_drift_test.sh
 * checks that it is). */
#include <stdio.h>
#include <string.h>

#include "options.h"

/* Whether option @p id takes a comma list of names (each item completed). */
static int list_of_names(cli_option_id id)
{
    return id == CLI_OPT_DIST || id == CLI_OPT_INIT || id == CLI_OPT_SCALE || id == CLI_OPT_COLUMNS;
}

/* The case line of option @p id, which takes a value: its names (after
 * the last comma of a list), files, a directory, or nothing to offer. */
static void case_line(FILE *f, cli_option_id id)
{
    const cli_option_def *d = &cli_option_defs[id];
    const char *const *names = cli_option_names(id);
    fputs("        ", f);
    if (d->short_name)
        fprintf(f, "-%c | ", d->short_name);
    fprintf(f, "--%s) ", d->name);
    if (names || id == CLI_OPT_COLUMNS) {
        fputs("values='", f);
        if (id == CLI_OPT_COLUMNS) /* all, or +GROUP (column names are many) */
            for (int g = 0; g < SV_COLUMN_GROUPS; g++)
                fprintf(f, "%s+%s", g ? " " : "all ",
                        sv_column_group_name((sv_column_group)g, NULL));
        for (size_t i = 0; names && names[i]; i++)
            fprintf(f, "%s%s", i ? " " : "", names[i]);
        fprintf(f, "'%s ;;\n", list_of_names(id) ? " list=1" : "");
    } else if (strstr(d->metavar, "FILE") || strcmp(d->metavar, "DIR") == 0)
        fprintf(f, "mapfile -t COMPREPLY < <(compgen -%c -- \"$cur\"); return 0 ;;\n",
                strstr(d->metavar, "FILE") ? 'f' : 'd');
    else
        fputs("COMPREPLY=(); return 0 ;;\n", f); /* a number, a row: nothing to offer */
}

void cli_completion_bash(FILE *f)
{
    fputs("# bash completion for sdpa-var(1), written by `sdpa-var --completion bash`\n"
          "# from its option table: its long options, and the names that the options\n"
          "# of names take (after a comma too, for those that take lists). Installed\n"
          "# as share/bash-completion/completions/sdpa-var, where bash-completion\n"
          "# loads it on first use; or `source` it.\n\n"
          "_sdpa_var() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=\n"
          "    local opts='",
          f);
    for (int id = 0, at = 16; id < CLI_OPT_COUNT; id++) {
        const int len = (int)strlen(cli_option_defs[id].name) + 3;
        if (id && at + len > 90)
            at = fprintf(f, "\n       ") - 1;
        at += fprintf(f, "%s--%s", id ? " " : "", cli_option_defs[id].name);
    }
    fputs("'\n"
          "    [ \"$COMP_CWORD\" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
          "    # --dist=t: bash splits the word at '=' (COMP_WORDBREAKS) into \"--dist\",\n"
          "    # \"=\" and \"t\" (or just \"--dist\" and \"=\" when nothing follows yet).\n"
          "    if [ \"$cur\" = \"=\" ]; then\n"
          "        cur=\n"
          "    elif [ \"$prev\" = \"=\" ] && [ \"$COMP_CWORD\" -gt 1 ]; then\n"
          "        prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
          "    fi\n\n"
          "    local values= list=\n"
          "    case $prev in\n",
          f);
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        if (cli_option_defs[id].metavar)
            case_line(f, (cli_option_id)id);
    fputs("    esac\n"
          "    if [ -n \"$values\" ]; then\n"
          "        # A list: complete the item after the last comma, keep the rest.\n"
          "        local head= item=$cur\n"
          "        if [ -n \"$list\" ] && [ \"${cur%,*}\" != \"$cur\" ]; then\n"
          "            head=${cur%,*},\n"
          "            item=${cur##*,}\n"
          "        fi\n"
          "        local v\n"
          "        COMPREPLY=()\n"
          "        for v in $values; do\n"
          "            [[ $v == \"$item\"* ]] && COMPREPLY+=(\"$head$v\")\n"
          "        done\n"
          "        return 0\n"
          "    fi\n"
          "    if [[ -z $cur || $cur == -* ]]; then\n"
          "        local o\n"
          "        COMPREPLY=()\n"
          "        for o in $opts; do\n"
          "            [[ $o == \"$cur\"* ]] && COMPREPLY+=(\"$o\")\n"
          "        done\n"
          "    fi\n"
          "    return 0\n"
          "}\n"
          "complete -F _sdpa_var sdpa-var\n",
          f);
}
