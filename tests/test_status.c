/* Status codes (status.h): values pinned (appended, never renumbered), one
 * message per code from the same X-macro table, a fallback for others. */
#include <string.h>

#include "check.h"
#include "sdpa_var/status.h"

int main(void)
{
    /* Pinned: files, shards and other programs may hold these numbers. */
    CHECK(SV_OK == 0 && SV_EINVAL == 1 && SV_ERANGE == 2 && SV_ENOMEM == 3);
    CHECK(SV_ETOOBIG == 4 && SV_EFORMAT == 5 && SV_EMISMATCH == 6 && SV_EOVERFLOW == 7);
    CHECK(SV_EPRECISION == 8 && SV_EUNSUPPORTED == 9 && SV_ENONFINITE == 10);
    int codes = 0;
#define COUNT_(name, value, message)                                                               \
    codes++;                                                                                       \
    CHECK(strcmp(sv_status_str(SV_##name), message) == 0);                                         \
    CHECK((int)SV_##name == codes - 1); /* dense from 0: appended in order */                      \
    CHECK(strcmp(sv_status_name(SV_##name), "SV_" #name) == 0);
    SV_STATUS_MAP(COUNT_)
#undef COUNT_
    CHECK(codes == 11);
    /* Every message says something of its own: none empty, no two alike. */
    for (int a = 0; a < codes; a++) {
        CHECK(strlen(sv_status_str((sv_status)a)) > 0);
        for (int b = 0; b < a; b++)
            CHECK(strcmp(sv_status_str((sv_status)a), sv_status_str((sv_status)b)) != 0);
    }
    CHECK(strcmp(sv_status_str(SV_OK), "success") == 0);
    CHECK(strcmp(sv_status_str((sv_status)codes), "unknown status") == 0);
    CHECK(strcmp(sv_status_str((sv_status)-1), "unknown status") == 0);
    /* Names as libuv's uv_err_name; NULL past the table, where a binding
     * reading the codes stops. */
    CHECK(strcmp(sv_status_name(SV_ENOMEM), "SV_ENOMEM") == 0);
    CHECK(sv_status_name((sv_status)codes) == NULL && sv_status_name((sv_status)-1) == NULL);
    return CHECK_DONE();
}
