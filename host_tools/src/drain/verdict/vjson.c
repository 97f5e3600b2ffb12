/*
 * The JSON values every verdict's writer uses (verdict/vjson.h).
 */
#include "verdict/vjson.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

void json_str(FILE *f, const char *s)
{
    if (s)
        json_fput_str(f, s, strlen(s), 0);
    else
        jputs("null", f);
}

static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                           "34353637383940414243444546474849505152535455565758596061626364656667"
                           "6869707172737475767778798081828384858687888990919293949596979899";

/* The 5 decimal digits of x (below 10^5) at o, with leading zeros. */
static void digits5(char *o, uint32_t x)
{
    uint32_t a = x / 1000, b = x % 1000;
    memcpy(o, pairs + 2 * a, 2);
    o[2] = (char)('0' + b / 100);
    memcpy(o + 3, pairs + 2 * (b % 100), 2);
}

/* The decimal digits of u (below 10^19) at the end of buf[20]: their start. */
static char *digits_u64(char *end, uint64_t u)
{
    while (u >= 100) {
        const char *p = pairs + 2 * (u % 100);
        u /= 100;
        *--end = p[1];
        *--end = p[0];
    }
    if (u >= 10) {
        *--end = pairs[2 * u + 1];
        *--end = pairs[2 * u];
    } else {
        *--end = (char)('0' + u);
    }
    return end;
}

/* %.10g of x, finite, not 0, when its fixed notation is certain: 10 significant digits rounded
 * from x * 10^(9 - X) (X the decimal exponent, -4 <= X < 10), whose one rounding error (below
 * 1.2e-6 of a unit) cannot move a fraction 1e-5 away from a half; else 0 (snprintf decides). */
static size_t g10_fixed(char *out, double x)
{
    static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8,  1e9,  1e10, 1e11, 1e12, 1e13};
    double ax = fabs(x);
    if (!(ax >= 1e-4 && ax < 9.9999999995e9))
        return 0;
    int e = -4, hi = 9; /* the largest e with 10^e <= ax (as p10[e + 4] * 1e-4), or -4 */
    while (e < hi) {
        int mid = (e + hi + 1) / 2;
        if (ax < p10[mid + 4] * 1e-4)
            hi = mid - 1;
        else
            e = mid;
    }
    for (int tries = 0; tries < 3; tries++) {
        if (e < -4 || e > 9)
            return 0;
        double y = ax * p10[9 - e], r = floor(y), frac = y - r;
        if (fabs(frac - 0.5) < 1e-5)
            return 0;
        uint64_t u = (uint64_t)r + (frac > 0.5);
        if (u >= 10000000000ull) {
            e++;
            continue;
        }
        if (u < 1000000000ull) {
            e--;
            continue;
        }
        char d[10], *o = out; /* the 10 digits, two halves of 5 in 32 bits */
        digits5(d, (uint32_t)(u / 100000));
        digits5(d + 5, (uint32_t)(u % 100000));
        int nd = 10;
        while (nd > 1 && d[nd - 1] == '0' && nd > e + 1)
            nd--;
        if (x < 0)
            *o++ = '-';
        if (e >= 0) {
            memcpy(o, d, (size_t)e + 1), o += e + 1;
            if (nd > e + 1) {
                *o++ = '.';
                memcpy(o, d + e + 1, (size_t)(nd - e - 1)), o += nd - e - 1;
            }
        } else {
            memcpy(o, "0.000", (size_t)(1 - e)), o += 1 - e;
            memcpy(o, d, (size_t)nd), o += nd;
        }
        return (size_t)(o - out);
    }
    return 0;
}

size_t json_num_text(char out[JSON_NUM_TEXT], double x)
{
    if (!isfinite(x)) {
        memcpy(out, "null", 4);
        return 4;
    }
    if (fabs(x) < 9e15 && x == (double)(int64_t)x) { /* %.0f: the integer, "-0" for -0 */
        uint64_t u = (uint64_t)fabs(x);
        size_t neg = signbit(x) ? 1 : 0, n = 1;
        for (uint64_t t = 10; n < 16 && u >= t; t *= 10) /* its digits: u < 9e15 */
            n++;
        out[0] = '-';
        digits_u64(out + neg + n, u);
        return n + neg;
    }
    size_t n = g10_fixed(out, x);
    return n ? n : (size_t)snprintf(out, JSON_NUM_TEXT, "%.10g", x);
}

void json_num(FILE *f, double x)
{
    char t[JSON_NUM_TEXT];
    jwrite(t, json_num_text(t, x), f);
}

void json_u64(FILE *f, uint64_t u)
{
    char dig[20], *d = digits_u64(dig + 20, u);
    jwrite(d, (size_t)(dig + 20 - d), f);
}

void json_interval(FILE *f, double est, double lo, double hi, int marked)
{
    /* Put together, then written at once (a site's --json has four). */
    char t[8 + JSON_NUM_TEXT + 8 + JSON_NUM_TEXT + 8 + JSON_NUM_TEXT + 24], *o = t;
    memcpy(o, "{\"est\": ", 8), o += 8;
    o += json_num_text(o, est);
    memcpy(o, ", \"lo\": ", 8), o += 8;
    o += json_num_text(o, lo);
    memcpy(o, ", \"hi\": ", 8), o += 8;
    o += json_num_text(o, hi);
    if (marked)
        memcpy(o, ", \"lower_bound\": true", 21), o += 21;
    *o++ = '}';
    jwrite(t, (size_t)(o - t), f);
}
