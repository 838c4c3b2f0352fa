/* "Did you mean ...?" for every front end (param.h, sv_suggest): the
 * nearest name by edit distance, and the synonyms users know the
 * parameters' names by. */
#include "sdpa_var/param.h"

#include <ctype.h>
#include <string.h>

/* Strings longer than this count as far from all. */
#define SUGGEST_MAX 63

/* Optimal string alignment (Damerau 1964): insertions, deletions,
 * substitutions and swaps of two neighbours, each 1; case ignored. */
static size_t edit_distance(const char *a, const char *b)
{
    const size_t m = strlen(a), n = strlen(b);
    if (m > SUGGEST_MAX || n > SUGGEST_MAX)
        return (size_t)-1;
    /* d[i][j]: distance of a[0..i) and b[0..j); three rows suffice. */
    size_t d[3][SUGGEST_MAX + 1];
    for (size_t j = 0; j <= n; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= m; i++) {
        size_t *row = d[i % 3], *up = d[(i - 1) % 3], *up2 = d[(i + 1) % 3];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            const int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
            size_t best = up[j - 1] + (ai != bj);
            best = up[j] + 1 < best ? up[j] + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && up2[j - 2] + 1 < best)
                best = up2[j - 2] + 1;
            row[j] = best;
        }
    }
    return d[m % 3][n];
}

/* Synonyms of the parameters' names (sv_param_choices): written -> ours. */
static const char *const aliases[][2] = {
    {"gaussian", "normal"}, {"gauss", "normal"},    {"randn", "normal"},
    {"student", "t"},       {"student-t", "t"},     {"students-t", "t"},
    {"studentt", "t"},      {"sign", "rademacher"}, {"bernoulli", "rademacher"},
    {"glorot", "xavier"},   {"sqrt-dk", "sqrt"},    {"1/sqrt(dk)", "sqrt"},
    {"1/dk", "dk"},         {"mup", "dk"},
};

static const char *alias_of(const char *s, const char *const *names, size_t n)
{
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++) {
        /* A synonym misspelt by one letter is still that synonym. */
        const size_t most = strlen(aliases[a][0]) >= 5 ? 1 : 0;
        if (edit_distance(s, aliases[a][0]) > most)
            continue;
        for (size_t i = 0; i < n && names[i]; i++)
            if (strcmp(names[i], aliases[a][1]) == 0)
                return names[i];
    }
    return NULL;
}

const char *sv_suggest(const char *text, const char *const *names, size_t n)
{
    if (!text || !names)
        return NULL;
    const char *alias = alias_of(text, names, n);
    if (alias)
        return alias;
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n && names[i]; i++) {
        const size_t d = edit_distance(text, names[i]);
        const size_t len = strlen(text) > strlen(names[i]) ? strlen(text) : strlen(names[i]);
        const size_t most = len / 3 ? len / 3 : 1;
        if (d <= most && d < best_d) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}
