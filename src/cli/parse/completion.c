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

/* "-d | --dk | --n ...)" of the options @p keep selects, wrapped. */
static void patterns(FILE *f, int (*keep)(const cli_option_def *))
{
    int at = fprintf(f, "        ");
    const char *sep = "";
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        const cli_option_def *d = &cli_option_defs[id];
        char one[48] = "";
        if (!keep(d))
            continue;
        if (d->short_name)
            snprintf(one, sizeof one, "-%c | ", d->short_name);
        snprintf(one + strlen(one), sizeof one - strlen(one), "--%s", d->name);
        if (at + (int)(strlen(sep) + strlen(one)) > 86)
            at = fprintf(f, " \\\n            | ") - 3;
        else
            at += fprintf(f, "%s", sep);
        at += fprintf(f, "%s", one);
        sep = " | ";
    }
    fputs(")\n", f);
}

static int takes_file(const cli_option_def *d)
{
    return d->metavar && strstr(d->metavar, "FILE") != NULL;
}

static int takes_dir(const cli_option_def *d)
{
    return d->metavar && strcmp(d->metavar, "DIR") == 0;
}

/* A value that is neither a name nor a path: nothing to offer. */
static int takes_other(const cli_option_def *d)
{
    return d->metavar && !takes_file(d) && !takes_dir(d) &&
           !cli_option_names((cli_option_id)(d - cli_option_defs)) &&
           d != &cli_option_defs[CLI_OPT_COLUMNS];
}

static void names_case(FILE *f)
{
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        const char *const *names = cli_option_names((cli_option_id)id);
        if (!names && id != CLI_OPT_COLUMNS)
            continue;
        fprintf(f, "        --%s) values='", cli_option_defs[id].name);
        if (id == CLI_OPT_COLUMNS) /* all, or +GROUP (column names are many) */
            for (int g = 0; g < SV_COLUMN_GROUPS; g++)
                fprintf(f, "%s+%s", g ? " " : "all ",
                        sv_column_group_name((sv_column_group)g, NULL));
        for (size_t i = 0; names && names[i]; i++)
            fprintf(f, "%s%s", i ? " " : "", names[i]);
        fprintf(f, "'%s ;;\n", list_of_names((cli_option_id)id) ? " list=1" : "");
    }
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
    names_case(f);
    patterns(f, takes_file);
    fputs("            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")\n"
          "            return 0\n            ;;\n",
          f);
    patterns(f, takes_dir);
    fputs("            mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")\n"
          "            return 0\n            ;;\n",
          f);
    patterns(f, takes_other);
    fputs("            COMPREPLY=()\n            return 0\n            ;;\n"
          "    esac\n"
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
