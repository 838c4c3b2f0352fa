/* libFuzzer harness: sv_state_decode on any bytes. The input's last 8
 * bytes are replaced by the digest of the rest, so that the fuzzer gets
 * past the digest to the structure behind it. A decoded state must encode
 * back to the same bytes, merge with itself alone, and summarise when it
 * holds trials from 0; a refused one has its line (sv_state_decode_text,
 * its length what it writes); nothing may read out of bounds or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sdpa_var/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *b = malloc(size ? size : 1);
    if (!b)
        return 0;
    memcpy(b, data, size);
    if (size >= 8) {
        uint64_t h = 0xcbf29ce484222325u;
        for (size_t i = 0; i < size - 8; i++)
            h = (h ^ b[i]) * 0x100000001b3u;
        for (int i = 0; i < 8; i++)
            b[size - 8 + (size_t)i] = (unsigned char)(h >> (8 * i));
    }
    sv_state s;
    const sv_status st = sv_state_decode(b, size, &s);
    if (st != SV_OK) {
        char line[96];
        const size_t n = sv_state_decode_text(b, size, st, "f.st", line, sizeof line);
        if (n != sv_state_decode_text(b, size, st, "f.st", NULL, 0) ||
            strlen(line) != (n < sizeof line ? n : sizeof line - 1))
            abort(); /* the length is the line's, cut or not */
    }
    if (st == SV_OK) {
        size_t len = 0;
        unsigned char *e = malloc(size);
        if (!e || sv_state_encode(&s, e, size, &len) != SV_OK || len != size ||
            memcmp(e, b, size) != 0)
            abort(); /* a decoded state is its bytes */
        free(e);
        const sv_state *one[1] = {&s};
        sv_state m;
        sv_state_why why;
        if (sv_state_merge(one, 1, 0, &m, &why) == SV_OK) {
            sv_spec spec;
            sv_summary sum;
            (void)sv_state_summary(&m, 0, &spec, &sum);
            sv_state_free(&m);
        }
        sv_state_free(&s);
    }
    free(b);
    return 0;
}
