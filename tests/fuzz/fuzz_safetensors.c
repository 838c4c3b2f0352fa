/* libFuzzer harness: sv_safetensors_parse on any bytes (fuzz_tensor.h says
 * what is checked), with the name NULL and, when the input allows, the
 * tensor name the first byte picks among "q", "k", "v". */
#include "fuzz_tensor.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {NULL, "q", "k", "v"};
    for (int k = 0; k < 4; k++) {
        sv_array a, before;
        memset(&a, 0x5a, sizeof a);
        before = a;
        char why[256] = "";
        const sv_status st = sv_safetensors_parse(data, size, names[k], &a, why, sizeof why);
        fuzz_check_result(st, &a, &before, why);
        if (st != SV_OK && st != SV_EMISMATCH)
            break; /* the name does not matter for a bad file */
    }
    /* The CLI's way in (tensor_input.c): either format, told by the first
     * bytes, then one of the parsers above. */
    for (int k = 0; k < 2; k++) {
        sv_array a, before;
        memset(&a, 0x5a, sizeof a);
        before = a;
        char why[256] = "";
        const sv_status st = sv_tensor_file_parse(data, size, names[k], &a, why, sizeof why);
        fuzz_check_result(st, &a, &before, why);
    }
    return 0;
}
