#include "sdpa_var/status.h"

#include <stddef.h>

const char *sv_status_str(sv_status status)
{
    switch (status) {
#define SV_STATUS_CASE_(name, value, message)                                                      \
    case SV_##name:                                                                                \
        return message;
        SV_STATUS_MAP(SV_STATUS_CASE_)
#undef SV_STATUS_CASE_
    }
    return "unknown status";
}

const char *sv_status_name(sv_status status)
{
    switch (status) {
#define SV_STATUS_NAME_(name, value, message)                                                      \
    case SV_##name:                                                                                \
        return "SV_" #name;
        SV_STATUS_MAP(SV_STATUS_NAME_)
#undef SV_STATUS_NAME_
    }
    return NULL;
}
