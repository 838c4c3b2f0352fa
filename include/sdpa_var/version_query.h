/**
 * @file version_query.h
 * The library's version and ABI, asked at run time: a caller that loads
 * libsdpa_var dynamically (Python's ctypes, dlopen) compares these with
 * what it was written for before it touches a struct. version.h's macros
 * say what a caller was compiled against; these say what it runs with.
 *
 * Thread safety, every function here: pure.
 * Cost, every function here: O(1) (sv_struct_size compares its name with
 * the twenty-one above).
 */
#ifndef SDPA_VAR_VERSION_QUERY_H
#define SDPA_VAR_VERSION_QUERY_H

#include <stddef.h>

/**
 * The library's version, "MAJOR.MINOR.PATCH" (SV_VERSION_STRING when it
 * was built, e.g. "0.2.0").
 * @return a static string; never NULL.
 */
const char *sv_version(void);

/**
 * The ABI version: MAJOR * 1000 + MINOR (0.2.x gives 2). Before 1.0 the
 * structs in the headers change between minor versions, which is why the
 * SONAME carries major.minor (libsdpa_var.so.0.2); two builds with the same
 * value have the same struct layouts and function signatures.
 * @return that number.
 */
unsigned sv_abi_version(void);

/**
 * sizeof of a public struct, by its type name, for a caller that lays the
 * struct out itself (ctypes) and checks it: "sv_spec", "sv_array",
 * "sv_strided", "sv_head", "sv_source", "sv_trial_stats", "sv_summary",
 * "sv_var_spread", "sv_exec", "sv_taps", "sv_row_view", "sv_column",
 * "sv_value", "sv_theory", "sv_state", "sv_state_config", "sv_state_why",
 * "sv_trial_extremes", "sv_allocator", "sv_strided_why", "sv_run_options",
 * "sv_head_row"
 * (an opaque struct, as sv_summary_acc, sv_partial or sv_runner, has none).
 * @param name a NUL-terminated type name, or NULL.
 * @return the size in bytes; 0 for NULL or a name not listed.
 */
size_t sv_struct_size(const char *name);

#endif
