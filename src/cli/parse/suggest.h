/* "Did you mean ...?": the nearest valid name to a misspelt option or
 * value, by the library's sv_suggest and the CLI's own synonyms. */
#ifndef SDPA_VAR_CLI_SUGGEST_H
#define SDPA_VAR_CLI_SUGGEST_H

#include <stddef.h>

/* The name of @p names[0..n) nearest to @p s: an option's or format's
 * synonym ("tokens" for --n, "ndjson" for jsonl; of 5 letters or more
 * also when misspelt by one) when that name is in @p names, else
 * sv_suggest's (param.h). NULL when none is near. */
const char *cli_suggest(const char *s, const char *const *names, size_t n);

#endif
