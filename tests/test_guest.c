/* The library as a guest in someone else's process (issue 17): it says
 * which version and struct sizes it was built with (sv_version,
 * sv_abi_version, sv_struct_size), and sv_engine_run leaves the caller's
 * OpenBLAS and OpenMP thread counts as it found them. */
#include <cblas.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/partial.h"
#include "sdpa_var/sdpa_var.h"

static void test_version(void)
{
    CHECK_STR_EQ(sv_version(), SV_VERSION_STRING);
    CHECK_EQ(sv_abi_version(), SV_VERSION_MAJOR * 1000u + SV_VERSION_MINOR);
    char want[32];
    snprintf(want, sizeof want, "%u.%u.", sv_abi_version() / 1000u, sv_abi_version() % 1000u);
    CHECK_EQ(strncmp(sv_version(), want, strlen(want)), 0);
    CHECK_EQ(sv_struct_size("sv_spec"), sizeof(sv_spec));
    CHECK_EQ(sv_struct_size("sv_array"), sizeof(sv_array));
    CHECK_EQ(sv_struct_size("sv_strided"), sizeof(sv_strided));
    CHECK_EQ(sv_struct_size("sv_head"), sizeof(sv_head));
    CHECK_EQ(sv_struct_size("sv_source"), sizeof(sv_source));
    CHECK_EQ(sv_struct_size("sv_trial_stats"), sizeof(sv_trial_stats));
    CHECK_EQ(sv_struct_size("sv_trial_stats"), SV_TRIAL_FIELDS * sizeof(double));
    CHECK_EQ(sv_struct_size("sv_summary"), sizeof(sv_summary));
    CHECK_EQ(sv_struct_size("sv_summary_acc"), 0); /* opaque: no layout to mirror */
    CHECK_EQ(sv_struct_size("sv_partial"), 0);     /* opaque */
    CHECK_EQ(sv_struct_size("sv_var_spread"), sizeof(sv_var_spread));
    CHECK_EQ(sv_struct_size("sv_exec"), sizeof(sv_exec));
    CHECK_EQ(sv_struct_size("sv_taps"), sizeof(sv_taps));
    CHECK_EQ(sv_struct_size("sv_row_view"), sizeof(sv_row_view));
    CHECK_EQ(sv_struct_size("sv_column"), sizeof(sv_column));
    CHECK_EQ(sv_struct_size("sv_value"), sizeof(sv_value));
    CHECK_EQ(sv_struct_size("sv_theory"), sizeof(sv_theory));
    CHECK_EQ(sv_struct_size("sv_nothing"), 0);
    CHECK_EQ(sv_struct_size("sv_spec "), 0);
    CHECK_EQ(sv_struct_size(""), 0);
    CHECK_EQ(sv_struct_size(NULL), 0);
}

/* OpenBLAS at 2 threads (3 for OpenMP) before a run, still after it: a
 * run split across threads, one of whole trials, one with --grad, and a
 * run that fails after it started (NaN in the caller's data is caught
 * before; an overflow after). */
static void test_threads(void)
{
    openblas_set_num_threads(2);
    omp_set_num_threads(3);
    const int blas0 = openblas_get_num_threads(), omp0 = omp_get_max_threads();
    CHECK_EQ(blas0, 2);
    CHECK_EQ(omp0, 3);
    sv_spec specs[3] = {{.d_k = 16, .n_q = 600, .n_k = 600, .trials = 1, .seed = 1u},
                        {.d_k = 4, .n_q = 5, .n_k = 5, .trials = 40, .seed = 2u},
                        {.d_k = 8, .n_q = 40, .n_k = 40, .trials = 2, .values = 1, .grad = 1}};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(sv_spec_resolve(&specs[i]), SV_OK);
        sv_source src;
        CHECK_STATUS(sv_source_draw(&specs[i], &src), SV_OK);
        sv_trial_stats out[40];
        CHECK_STATUS(
            sv_engine_run(&specs[i], &src, &(sv_exec){.threads = 2}, NULL, 0, specs[i].trials, out),
            SV_OK);
        CHECK_EQ(openblas_get_num_threads(), blas0);
        CHECK_EQ(omp_get_max_threads(), omp0);
    }
    /* refused before the run, and an error after it */
    sv_source src;
    CHECK_STATUS(sv_source_draw(&specs[0], &src), SV_OK);
    CHECK_STATUS(sv_engine_run(&specs[0], &src, &(sv_exec){.threads = 2}, NULL, 0, 1, NULL),
                 SV_EINVAL);
    CHECK_EQ(openblas_get_num_threads(), blas0);
    const double q[2] = {1e30, 1.0}, k[2] = {1e29, 1.0}; /* 1e59: in bound, raw var overflows */
    sv_strided arr = {0};
    arr.q = (sv_array){.data = q, .ndim = 2, .shape = {2, 1}, .strides = {8, 8}};
    arr.k = arr.q;
    arr.k.data = k;
    sv_spec s = {.d_k = 1, .n_q = 2, .n_k = 2, .trials = 1};
    CHECK_STATUS(sv_spec_resolve(&s), SV_OK);
    CHECK_STATUS(sv_source_strided(&arr, &src), SV_OK);
    sv_trial_stats t;
    const sv_status st = sv_engine_run(&s, &src, &(sv_exec){.threads = 2}, NULL, 0, 1, &t);
    CHECK(st == SV_OK || st == SV_EOVERFLOW);
    CHECK_EQ(openblas_get_num_threads(), blas0);
    CHECK_EQ(omp_get_max_threads(), omp0);
}

int main(void)
{
    test_version();
    test_threads();
    return CHECK_DONE();
}
