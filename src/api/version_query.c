/* The version and ABI queries (version_query.h): the numbers CMake put in
 * version.h, and the sizes of the public structs as this build has them. */
#include "sdpa_var/version_query.h"

#include <string.h>

#include "sdpa_var/partial.h"
#include "sdpa_var/sdpa_var.h"

const char *sv_version(void)
{
    return SV_VERSION_STRING;
}

unsigned sv_abi_version(void)
{
    return (unsigned)SV_VERSION_MAJOR * 1000u + (unsigned)SV_VERSION_MINOR;
}

size_t sv_struct_size(const char *name)
{
#define S_(t)                                                                                      \
    {                                                                                              \
#t, sizeof(t)                                                                              \
    }
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {S_(sv_spec),      S_(sv_array),          S_(sv_strided),   S_(sv_head),
                 S_(sv_source),    S_(sv_trial_stats),    S_(sv_summary),   S_(sv_var_spread),
                 S_(sv_exec),      S_(sv_taps),           S_(sv_row_view),  S_(sv_column),
                 S_(sv_value),     S_(sv_theory),         S_(sv_state),     S_(sv_state_config),
                 S_(sv_state_why), S_(sv_trial_extremes), S_(sv_allocator), S_(sv_run_options),
                 S_(sv_head_row),  S_(sv_strided_why)};
#undef S_
    if (!name)
        return 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strcmp(name, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}
