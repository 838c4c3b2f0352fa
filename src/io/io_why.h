/* Helpers the tensor-file parsers (tensor_file_npy.c, tensor_file_safetensors.c) share: the one
 * line of text they leave in the caller's why buffer, and quoting of bytes
 * taken from a file so that line stays printable. Internal to the library. */
#ifndef SDPA_VAR_IO_WHY_H
#define SDPA_VAR_IO_WHY_H

#include <stddef.h>

#if defined(__GNUC__) || defined(__clang__)
#define SV_IO_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SV_IO_PRINTF(fmt, args)
#endif

/* printf into why (why_len bytes, always NUL-terminated, truncated if
 * long); nothing when why is NULL or why_len 0. */
void sv__io_why(char *why, size_t why_len, const char *fmt, ...) SV_IO_PRINTF(3, 4);

/* The n bytes at src as printable ASCII into dst (cap bytes, cap >= 8,
 * NUL-terminated): bytes outside 0x20..0x7e become \xNN and the backslash
 * \\, so the line is printable ASCII and an escape is never ambiguous;
 * text that does not fit ends in "...". */
void sv__io_quote(char *dst, size_t cap, const void *src, size_t n);

/* 1 on a little-endian machine, 0 on a big-endian one. */
int sv__io_little_endian(void);

#endif
