/* dklist.h: lists, doubling ranges, the 256-value limit, overflow, junk,
 * the first error from the left, outputs untouched after an error; and a
 * differential check against a plain reference parser on random strings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sdpa_var/sdpa_var.h"

/* Parses text and checks the status, and on success the values. */
static int parses_to(const char *text, const size_t *want, size_t n)
{
    size_t v[SV_DKLIST_MAX], count = 0;
    const sv_status st = sv_dklist_parse(text, v, &count);
    size_t i = 0;
    while (st == SV_OK && i < n && i < count && v[i] == want[i])
        i++;
    if (st == SV_OK && count == n && i == n)
        return 1;
    fprintf(stderr, "  \"%s\": got %s, %zu values (value %zu: %zu), want %zu values (%zu)\n", text,
            check_status_name_((int)st), count, i, i < count ? v[i] : 0, n, i < n ? want[i] : 0);
    return 0;
}

/* An error leaves out and count as they were. */
static int fails_with(const char *text, sv_status want)
{
    size_t v[SV_DKLIST_MAX], count = 77;
    v[0] = 99;
    const sv_status st = sv_dklist_parse(text, v, &count);
    if (st == want && count == 77 && v[0] == 99)
        return 1;
    fprintf(stderr, "  \"%s\": got %s, count %zu, v[0] %zu; want %s, count 77, v[0] 99\n", text,
            check_status_name_((int)st), count, v[0], check_status_name_((int)want));
    return 0;
}

static void test_valid(void)
{
    CHECK(parses_to("64", (const size_t[]){64}, 1));
    CHECK(parses_to("1,2,8,64,512", (const size_t[]){1, 2, 8, 64, 512}, 5));
    CHECK(parses_to("1:1024", (const size_t[]){1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}, 11));
    /* doubling misses B: B itself last (the header's examples) */
    CHECK(parses_to("1:1000", (const size_t[]){1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000}, 11));
    CHECK(parses_to("3:24,100", (const size_t[]){3, 6, 12, 24, 100}, 5));
    CHECK(parses_to("3:30", (const size_t[]){3, 6, 12, 24, 30}, 5));
    CHECK(parses_to("7:7", (const size_t[]){7}, 1));
    CHECK(parses_to("8,8,1", (const size_t[]){8, 8, 1}, 3)); /* order and repeats kept */
    CHECK(parses_to("007", (const size_t[]){7}, 1));         /* decimal; zeros lead */
    CHECK(parses_to("18446744073709551615", (const size_t[]){SIZE_MAX}, 1));
    /* 1, 2, ..., 2^63 and then SIZE_MAX: the 65 values the header allows. */
    size_t v[SV_DKLIST_MAX], n = 0;
    if (CHECK_STATUS(sv_dklist_parse("1:18446744073709551615", v, &n), SV_OK)) {
        CHECK_EQ(n, 65);
    }
    CHECK_EQ(v[63], (size_t)1 << 63);
    CHECK_EQ(v[64], SIZE_MAX);
    if (CHECK_STATUS(sv_dklist_parse("9223372036854775809:18446744073709551615", v, &n), SV_OK)) {
        CHECK_EQ(n, 2);
    }
}

static void test_limits(void)
{
    /* 256 values in all are fine, 257 are SV_ETOOBIG, lists and ranges
     * counted together. */
    char text[4 * SV_DKLIST_MAX + 64] = "";
    for (int i = 0; i < SV_DKLIST_MAX; i++)
        strcat(text, i ? ",1" : "1");
    size_t v[SV_DKLIST_MAX], n = 0;
    if (CHECK_STATUS(sv_dklist_parse(text, v, &n), SV_OK)) {
        CHECK_EQ(n, SV_DKLIST_MAX);
    }
    strcat(text, ",1");
    CHECK(fails_with(text, SV_ETOOBIG));
    text[strlen(text) - 2] = '\0'; /* back to 256 ones */
    text[strlen(text) - 2] = '\0'; /* 255 */
    strcat(text, ",1:2");          /* 255 + 2 */
    CHECK(fails_with(text, SV_ETOOBIG));
    /* The first error from the left: the 257th value comes before 'x'. */
    strcat(text, ",x");
    CHECK(fails_with(text, SV_ETOOBIG));
}

static void test_errors(void)
{
    CHECK(fails_with("18446744073709551616", SV_ERANGE));
    CHECK(fails_with("99999999999999999999999", SV_ERANGE));
    CHECK(fails_with("1:18446744073709551616", SV_ERANGE));
    CHECK(fails_with("99999999999999999999999x", SV_ERANGE)); /* overflow comes first */
    const char *junk[] = {"",      "0",   "00",   "-1",  "+1",   " 1",   "1 ",  "1,",
                          ",1",    "1:",  ":4",   "8:2", "1x",   "1,,2", "1.5", "abc",
                          "1:2:4", "1e3", "0x10", "1;2", "1\n2", "4:0",  "0:4", "\xef\xbc\x91"};
    for (size_t i = 0; i < sizeof junk / sizeof junk[0]; i++) {
        if (!fails_with(junk[i], SV_EINVAL))
            fprintf(stderr, "junk '%s' not rejected as EINVAL\n", junk[i]);
        CHECK(fails_with(junk[i], SV_EINVAL));
    }
    CHECK(fails_with("0,99999999999999999999999", SV_EINVAL)); /* leftmost error */
    CHECK(fails_with("99999999999999999999999,0", SV_ERANGE));
    size_t v[SV_DKLIST_MAX], n;
    CHECK_STATUS(sv_dklist_parse(NULL, v, &n), SV_EINVAL);
    CHECK_STATUS(sv_dklist_parse("1", NULL, &n), SV_EINVAL);
    CHECK_STATUS(sv_dklist_parse("1", v, NULL), SV_EINVAL);
}

/* A plain reference parser: items split at ',', each "A" or "A:B" with
 * A, B read by strtoull over their digit span; ranges listed by repeated
 * doubling. The same statuses in the same order of precedence. */
static sv_status ref_value(const char **p, size_t *out)
{
    const size_t span = strspn(*p, "0123456789");
    if (span == 0)
        return SV_EINVAL;
    char buf[64];
    if (span >= sizeof buf)
        return SV_ERANGE; /* longer than any text the test makes */
    memcpy(buf, *p, span);
    buf[span] = '\0';
    errno = 0;
    const unsigned long long x = strtoull(buf, NULL, 10);
    if (errno == ERANGE || x > SIZE_MAX)
        return SV_ERANGE;
    if (x == 0)
        return SV_EINVAL;
    *out = (size_t)x;
    *p += span;
    return SV_OK;
}

static sv_status ref_parse(const char *p, size_t *out, size_t *count)
{
    size_t n = 0;
    for (;;) {
        size_t a, b;
        sv_status st = ref_value(&p, &a);
        if (st != SV_OK)
            return st;
        b = a;
        if (*p == ':') {
            p++;
            if ((st = ref_value(&p, &b)) != SV_OK)
                return st;
            if (a > b)
                return SV_EINVAL;
        }
        size_t v = a;
        for (;;) {
            if (n == SV_DKLIST_MAX)
                return SV_ETOOBIG;
            out[n++] = v;
            if (v == b)
                break;
            v = b - v < v ? b : v * 2; /* 2v > b, without overflow */
        }
        if (*p == '\0')
            break;
        if (*p++ != ',')
            return SV_EINVAL;
    }
    *count = n;
    return SV_OK;
}

static void test_differential(void)
{
    static const char alphabet[] = "0123456789,:x -";
    sv_rng g;
    sv_rng_seed(&g, 2024u, 1u);
    int same = 1;
    for (int k = 0; k < 200000; k++) {
        char text[24];
        const size_t len = sv_rng_next(&g) % 22u;
        for (size_t i = 0; i < len; i++) {
            /* mostly digits, so that valid lists and big numbers appear */
            const uint32_t r = sv_rng_next(&g) % 32u;
            text[i] = r < 20 ? (char)('0' + r % 10) : alphabet[r % (sizeof alphabet - 1)];
        }
        text[len] = '\0';
        size_t a[SV_DKLIST_MAX], b[SV_DKLIST_MAX], na = 0, nb = 0;
        const sv_status sa = sv_dklist_parse(text, a, &na), sb = ref_parse(text, b, &nb);
        if (sa != sb || na != nb || (sa == SV_OK && memcmp(a, b, na * sizeof a[0]) != 0)) {
            if (same)
                fprintf(stderr, "'%s': library %d (%zu values), reference %d (%zu values)\n", text,
                        (int)sa, na, (int)sb, nb);
            same = 0;
        }
    }
    CHECK(same);
}

int main(void)
{
    test_valid();
    test_limits();
    test_errors();
    test_differential();
    return CHECK_DONE();
}
