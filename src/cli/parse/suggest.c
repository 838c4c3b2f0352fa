/* "Did you mean": the synonyms of the CLI's own names (options, formats),
 * then the library's sv_suggest (the parameters' synonyms, the edit
 * distance). */
#include "suggest.h"

#include <string.h>

#include "sdpa_var/param.h"

/* Synonyms a user may know an option or format by: written -> ours. */
static const char *const aliases[][2] = {
    {"text", "table"},  {"pretty", "table"},    {"ndjson", "jsonl"},   {"json-lines", "jsonl"},
    {"tokens", "n"},    {"seq-len", "n"},       {"repeats", "trials"}, {"samples", "trials"},
    {"runs", "trials"}, {"d_k", "dk"},          {"d-k", "dk"},         {"d_v", "dv"},
    {"d-v", "dv"},      {"d_model", "d-model"}, {"dmodel", "d-model"}, {"bins", "histogram"},
    {"csv", "format"},  {"json", "format"},     {"jobs", "threads"},
};

const char *cli_suggest(const char *s, const char *const *names, size_t n)
{
    for (size_t a = 0; a < sizeof aliases / sizeof aliases[0]; a++) {
        /* A synonym misspelt by one letter is still that synonym. */
        const int exact = strcmp(s, aliases[a][0]) == 0;
        if (!exact && (strlen(aliases[a][0]) < 5 || !sv_suggest(s, &aliases[a][0], 1)))
            continue;
        for (size_t i = 0; i < n; i++)
            if (strcmp(names[i], aliases[a][1]) == 0)
                return names[i];
    }
    return sv_suggest(s, names, n);
}
