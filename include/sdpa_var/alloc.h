/**
 * @file alloc.h
 * The library's heap, replaceable: every allocation the library makes
 * (the engine's workspaces, partials, summaries' arrays, states, tensor
 * file indexes) goes through one allocator, libc's unless the caller sets
 * its own, as SQLite's sqlite3_config(SQLITE_CONFIG_MALLOC) and zstd's
 * ZSTD_customMem allow. A caller may count, cap or fail allocations; the
 * test unit.alloc fails the N-th one for every N and checks that
 * each call returns SV_ENOMEM, frees what it took and leaves its outputs
 * as they were. OpenBLAS and OpenMP allocate on their own, outside it.
 *
 * The hook is process-wide rather than in sv_exec: the partials, states,
 * summaries and file parsers that allocate take no sv_exec, and one
 * allocator has to see all of a run's blocks.
 *
 * Thread safety, every function here: sv_allocator_set is not thread-safe:
 * call it before any other library call, or while no library call runs
 * and no block of the old allocator is alive (a block is freed by the
 * allocator that made it). The allocator's functions are called from the
 * engine's OpenMP threads at once: they must be thread-safe.
 * Cost, every function here: O(1).
 */
#ifndef SDPA_VAR_ALLOC_H
#define SDPA_VAR_ALLOC_H

#ifndef SDPA_VAR_ADVANCED
#error "sdpa_var/alloc.h: define SDPA_VAR_ADVANCED first (advanced API, sdpa_var.h)"
#endif

#include <stddef.h>

#include "sdpa_var/status.h"

/** A caller's allocator: libc's semantics, with @p ctx passed back. */
typedef struct sv_allocator {
    void *(*malloc_fn)(void *ctx, size_t bytes);               /**< NULL when out of memory */
    void *(*realloc_fn)(void *ctx, void *block, size_t bytes); /**< as realloc; block may be NULL */
    void (*free_fn)(void *ctx, void *block);                   /**< block may be NULL */
    void *ctx;                                                 /**< passed to each */
} sv_allocator;

/**
 * Makes @p a the library's allocator from now on (copied; @p a need not
 * outlive the call), or libc's malloc, realloc and free for @p a NULL.
 * The library asks for at least one byte, checks every size product
 * before asking, and aligns the engine's arrays itself (it asks for 63
 * bytes and a pointer more, and keeps the block's address below the
 * array). cJSON, which parses a safetensors header, allocates through its
 * own hooks (cJSON_InitHooks, the caller's to set), not through this.
 * @return SV_OK; SV_EINVAL if one of the three functions is NULL (the
 *         allocator in use is kept).
 */
sv_status sv_allocator_set(const sv_allocator *a);

#endif
