/* The library's one door to the heap (sdpa_var/alloc.h): every file of
 * src/ allocates through these, so a caller's allocator, or a test that
 * fails the N-th allocation, sees every block. Private to the library. */
#ifndef SV_CORE_ALLOC_H
#define SV_CORE_ALLOC_H

#include <stddef.h>

/* malloc, calloc (n x size, overflow checked: NULL), realloc (p NULL:
 * malloc) and free, through the allocator set; sizes 0 ask for 1 byte. */
void *sv__malloc(size_t bytes);
void *sv__calloc(size_t n, size_t size);
void *sv__realloc(void *p, size_t bytes);
void sv__free(void *p);

/* A block of @p bytes aligned to @p align (a power of two <= 4096), freed
 * by sv__free_aligned only. */
void *sv__malloc_aligned(size_t bytes, size_t align);
void sv__free_aligned(void *p);

#endif
