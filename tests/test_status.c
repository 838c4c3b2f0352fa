/* Status codes (status.h): values pinned (appended, never renumbered), one
 * message per code from the same X-macro table, a fallback for others. */
#include <string.h>

#include "check.h"
#include "sdpa_var/status.h"

/* Pinned: files, shards and other programs may hold these numbers. */
static_assert(SV_OK == 0 && SV_EINVAL == 1 && SV_ERANGE == 2 && SV_ENOMEM == 3, "pinned");
static_assert(SV_ETOOBIG == 4 && SV_EFORMAT == 5 && SV_EMISMATCH == 6 && SV_EOVERFLOW == 7,
              "pinned");
static_assert(SV_EPRECISION == 8 && SV_EUNSUPPORTED == 9 && SV_ECORRUPT == 10, "pinned");
static_assert(SV_ENONFINITE == 11 && SV_ECANCELED == 12, "pinned");
#define ONE_(name, value, message) +1
static_assert(0 SV_STATUS_MAP(ONE_) == 13, "a new code: pin it above");
#undef ONE_

int main(void)
{
    int codes = 0;
#define COUNT_(name, value, message)                                                               \
    codes++;                                                                                       \
    CHECK_STR_EQ(sv_status_str(SV_##name), message);                                               \
    CHECK_EQ((int)SV_##name, codes - 1); /* dense from 0: appended in order */                     \
    CHECK_STR_EQ(sv_status_name(SV_##name), "SV_" #name);
    SV_STATUS_MAP(COUNT_)
#undef COUNT_
    /* Every message says something of its own: none empty, no two alike. */
    for (int a = 0; a < codes; a++) {
        CHECK_GT(strlen(sv_status_str((sv_status)a)), 0);
        for (int b = 0; b < a; b++)
            CHECK_NE(strcmp(sv_status_str((sv_status)a), sv_status_str((sv_status)b)), 0);
    }
    CHECK_STR_EQ(sv_status_str(SV_OK), "success");
    CHECK_STR_EQ(sv_status_str((sv_status)codes), "unknown status");
    CHECK_STR_EQ(sv_status_str((sv_status)-1), "unknown status");
    /* Names as libuv's uv_err_name; NULL past the table, where a binding
     * reading the codes stops. */
    CHECK_STR_EQ(sv_status_name(SV_ENOMEM), "SV_ENOMEM");
    CHECK_STR_EQ(sv_status_name((sv_status)codes), NULL);
    CHECK_STR_EQ(sv_status_name((sv_status)-1), NULL);
    return CHECK_DONE();
}
