/* "Did you mean ...?": the nearest valid name to a misspelt option or
 * value, by edit distance, and a few well-known synonyms. */
#ifndef SDPA_VAR_CLI_SUGGEST_H
#define SDPA_VAR_CLI_SUGGEST_H

#include <stddef.h>

/* The edit distance of a and b: insertions, deletions, substitutions and
 * swaps of two neighbours, each 1 (optimal string alignment, Damerau
 * 1964). Strings longer than CLI_SUGGEST_MAX count as far from all. */
#define CLI_SUGGEST_MAX 63
size_t cli_edit_distance(const char *a, const char *b);

/* The name of @p names[0..n) nearest to @p s: a synonym's name from the
 * alias table when @p s is one, or for synonyms of 5 letters or more one
 * edit away from one ("gaussian" for normal, "glorot" for
 * xavier) and that name is in @p names, else the one at the smallest edit
 * distance if that is at most a third of the longer length (at least 1),
 * the first on a tie; NULL when none is near. Case is ignored. */
const char *cli_suggest(const char *s, const char *const *names, size_t n);

#endif
