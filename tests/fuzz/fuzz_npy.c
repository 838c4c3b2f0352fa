/* libFuzzer harness: sv_npy_parse on any bytes (fuzz_tensor.h says what is
 * checked), and sv_npy_header's output read back by sv_npy_parse. */
#include "fuzz_tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sv_array a, before;
    memset(&a, 0x5a, sizeof a);
    before = a;
    char why[256] = "";
    const sv_status st = sv_npy_parse(data, size, &a, why, sizeof why);
    fuzz_check_result(st, &a, &before, why);
    /* the writer: a shape from the first bytes, parsed back */
    if (size >= 6) {
        const int ndim = 2 + data[0] % 3;
        const sv_dtype dt = (sv_dtype)(data[1] % 3);
        size_t shape[SV_ARRAY_MAX_DIMS] = {1, 1, 1, 1};
        for (int d = 0; d < ndim; d++)
            shape[d] = 1u + data[2 + d] % 4u;
        unsigned char buf[512] = {0};
        const size_t n = sv_npy_header((char *)buf, 256, dt, ndim, shape);
        size_t bytes = dt == SV_DTYPE_FLOAT64 ? 8 : dt == SV_DTYPE_FLOAT32 ? 4 : 2;
        for (int d = 0; d < ndim; d++)
            bytes *= shape[d];
        if (n == 0 || n % 64 != 0 || sv_npy_parse(buf, n + bytes, &a, why, sizeof why) != SV_OK ||
            a.ndim != ndim || a.dtype != dt) {
            fprintf(stderr, "sv_npy_header: %zu bytes, not read back: %s\n", n, why);
            abort();
        }
    }
    return 0;
}
