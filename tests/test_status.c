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
    CHECK(SV_EPRECISION == 8 && SV_EUNSUPPORTED == 9 && SV_ECORRUPT == 10);
    int codes = 0;
#define COUNT_(name, value, message)                                                               \
    codes++;                                                                                       \
    CHECK(strcmp(sv_status_str(SV_##name), message) == 0);                                         \
    CHECK((int)SV_##name == codes - 1); /* dense from 0: appended in order */
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
    return CHECK_DONE();
}
