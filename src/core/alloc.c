/* sdpa_var/alloc.h and its private alloc.h: the allocator in use. Without a caller's
 * allocator these are libc's calls (calloc keeps its untouched zero
 * pages; aligned blocks come from aligned_alloc), so nothing changes for
 * a caller that sets none. */
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/alloc.h"

static sv_allocator hook; /* malloc_fn NULL: libc */

sv_status sv_allocator_set(const sv_allocator *a)
{
    if (a && (!a->malloc_fn || !a->realloc_fn || !a->free_fn))
        return SV_EINVAL;
    hook = a ? *a : (sv_allocator){0};
    return SV_OK;
}

void *sv__malloc(size_t bytes)
{
    bytes = bytes ? bytes : 1;
    return hook.malloc_fn ? hook.malloc_fn(hook.ctx, bytes) : malloc(bytes);
}

void *sv__calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    if (!hook.malloc_fn)
        return calloc(n ? n : 1, size ? size : 1);
    const size_t bytes = n * size;
    void *p = sv__malloc(bytes);
    if (p && bytes > 0)
        memset(p, 0, bytes);
    return p;
}

void *sv__realloc(void *p, size_t bytes)
{
    bytes = bytes ? bytes : 1;
    if (!hook.malloc_fn)
        return realloc(p, bytes);
    return p ? hook.realloc_fn(hook.ctx, p, bytes) : hook.malloc_fn(hook.ctx, bytes);
}

void sv__free(void *p)
{
    if (!p)
        return;
    if (hook.malloc_fn)
        hook.free_fn(hook.ctx, p);
    else
        free(p);
}

/* With a caller's allocator: align - 1 + a pointer more than asked, the
 * block's own address just below the aligned array. */
void *sv__malloc_aligned(size_t bytes, size_t align)
{
    bytes += (align - bytes % align) % align; /* aligned_alloc wants a multiple */
    bytes = bytes ? bytes : align;
    if (!hook.malloc_fn)
        return aligned_alloc(align, bytes);
    if (bytes > SIZE_MAX - align - sizeof(void *))
        return NULL;
    unsigned char *raw = hook.malloc_fn(hook.ctx, bytes + align - 1 + sizeof(void *));
    if (!raw)
        return NULL;
    unsigned char *at = raw + sizeof(void *); /* moved up to the next multiple of align */
    at += (align - (size_t)((uintptr_t)at & (align - 1))) & (align - 1);
    memcpy(at - sizeof(void *), &raw, sizeof raw);
    return at;
}

void sv__free_aligned(void *p)
{
    if (!p)
        return;
    if (!hook.malloc_fn) {
        free(p);
        return;
    }
    void *raw;
    memcpy(&raw, (unsigned char *)p - sizeof(void *), sizeof raw);
    hook.free_fn(hook.ctx, raw);
}
