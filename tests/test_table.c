/* The one-configuration table's rounding (src/cli/write_table_one.c,
 * issue 15 section 4): a measured value to the digits its standard error
 * supports, rounded at the SE's second significant digit. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "layout.h"

static int rounded_is(double v, double se, int width, const char *want)
{
    char buf[64];
    cli_table_rounded(buf, sizeof buf, v, se, width);
    if (strcmp(buf, want) != 0)
        fprintf(stderr, "cli_table_rounded(%.17g, %.17g, %d) = '%s', want '%s'\n", v, se, width,
                buf, want);
    return strcmp(buf, want) == 0;
}

int main(void)
{
    CHECK(rounded_is(64.36989, 0.4869941, 9, "64.37"));    /* the README's run */
    CHECK(rounded_is(1.00578, 0.0076093, 9, "1.0058"));    /* its scaled side */
    CHECK(rounded_is(0.0144729, 0.0063, 9, "0.0145"));     /* SE 0.0063: to 1e-4 */
    CHECK(rounded_is(12345.6, 230.0, 9, "12350"));         /* SE 230: to tens */
    CHECK(rounded_is(-3.14159, 0.05, 9, "-3.142"));        /* SE 0.050: to 1e-3 */
    CHECK(rounded_is(2.0, 0.099, 9, "2.000"));             /* zeros that count are kept */
    CHECK(rounded_is(0.38998, NAN, 9, "0.3900"));          /* no SE: 4 digits */
    CHECK(rounded_is(1577.18, NAN, 9, "1577"));            /* no trailing point */
    CHECK(rounded_is(1.0, 0.0, 9, "1.000"));               /* SE 0: no SE */
    CHECK(rounded_is(NAN, 0.1, 9, "-"));                   /* undefined */
    CHECK(rounded_is(1.23456e-5, 1e-9, 9, "1.23456e-05")); /* too wide: e-form, same digits */
    CHECK(rounded_is(0.00001, 0.5, 9, "0"));               /* zero to its SE */
    return CHECK_DONE();
}
