/*
 * The thinning rule of the adaptive interval, shared by the device (src/msamp_adapt.c) and the host
 * (drain replays it): integer arithmetic only, no libm, the same result on every target. The
 * derivation and the variance it costs are in docs/ADAPTIVE.md.
 *
 * When the device raises its sampling interval from R to R' > R, each live entry of size s that was
 * sampled at R stays with probability q = p(s, R') / p(s, R), p(s, R) = 1 - exp(-s / R): it is then
 * in the table with probability p(s, R) q = p(s, R'), exactly as if it had been sampled at R'. The
 * coin of each entry is a hash of (slot, epoch, session id), so the host, which knows every live
 * entry's slot, size and interval, replays the device's decisions without being told them. q is
 * computed here as q16 / 65536 (within about 2^-15 of the real ratio); the host weights a kept entry
 * by 65536 / q16 exactly, so the estimates are unbiased whatever the rounding.
 *
 * Include with MSAMP_THIN_WORD defined as the host's uint64_t, or leave it to default to uintptr_t
 * (the device's native width: no 64-bit division on 32-bit parts). Every quotient fits both, so
 * device and host compute the same numbers.
 */
#ifndef MSAMP_THIN_H
#define MSAMP_THIN_H

#include <stdint.h>

#ifndef MSAMP_THIN_WORD
#define MSAMP_THIN_WORD uintptr_t
#endif

/* How the helpers msamp_thin_q16 calls twice are declared: static inline (inlined at the
 * compiler's choice), or static noinline where code size comes first (the tiny profile: one copy
 * of each). Either way the same arithmetic. */
#ifndef MSAMP_THIN_HELPER
#define MSAMP_THIN_HELPER static inline
#endif

/* q16 of a keep decision that always keeps. */
#define MSAMP_THIN_ONE 65536u

/* x = s / r in Q16, rounded down, saturated at 64 (where exp(-x) is below 2^-92: p is 1 to Q32).
 * The whole part is one division (below 64); the fraction's 16 bits come by long division of the
 * remainder (rem < r: no overflow, no 64-bit division), so x keeps 16 fraction bits at every r.
 * (Its first form took (s << 10) / r, which is 0 for s < r / 1024: a block of 24 B read as 0 B at
 * r = 32 KiB, and the small-x branch of msamp_thin_q16 then returned q16 > 65536.) */
MSAMP_THIN_HELPER uint32_t msamp_thin_x_q16(MSAMP_THIN_WORD s, uint32_t r)
{
    if (s == 0)
        s = 1;
    if (r <= 1u || s / 64u >= r)
        return 64u << 16;
    uint32_t whole = (uint32_t)(s / r); /* s < 64 r */
    uint32_t rem = (uint32_t)(s - (MSAMP_THIN_WORD)whole * r), frac = 0;
    for (unsigned i = 0; i < 16u; i++) {
        frac <<= 1;
        if (rem >= r - rem) { /* 2 rem >= r, without forming 2 rem */
            rem -= r - rem;
            frac |= 1u;
        } else {
            rem <<= 1;
        }
    }
    return (whole << 16) | frac;
}

/* p(x) = 1 - exp(-x) in Q32 (saturated at 2^32 - 1), x in Q16 (at most 64 << 16). */
MSAMP_THIN_HELPER uint32_t msamp_thin_p_q32(uint32_t x_q16)
{
    /* 2^-(2^-(i+1)) in Q32, i = 0..15: the factors of 2^-f, one per fraction bit of f. */
    static const uint32_t half_powers[16] = {
        3037000500u, 3611622603u, 3938502376u, 4112874773u, 4202935003u, 4248701965u,
        4271771996u, 4283353945u, 4289156690u, 4292061010u, 4293513907u, 4294240540u,
        4294603903u, 4294785595u, 4294876445u, 4294921870u};
    /* exp(-x) = 2^-(x log2 e): y = x log2(e) in Q32, log2(e) = 94548.46 / 2^16. */
    uint64_t y = (uint64_t)x_q16 * 94548u;
    uint32_t n = (uint32_t)(y >> 32);
    if (n >= 32u)
        return 0xFFFFFFFFu;
    uint32_t f = (uint32_t)(y >> 16) & 0xFFFFu;
    uint64_t acc = 0xFFFFFFFFu;
    for (unsigned i = 0; i < 16u; i++)
        if (f & (0x8000u >> i))
            acc = (acc * half_powers[i]) >> 32;
    uint32_t e = (uint32_t)acc >> n;
    return e == 0 ? 0xFFFFFFFFu : (uint32_t)(0u - e);
}

/* a / b in Q16 for a <= b (both cut to 16 significant bits of b: 32-bit division only). */
static inline uint32_t msamp_thin_ratio_q16(uint32_t a, uint32_t b)
{
    if (a >= b)
        return MSAMP_THIN_ONE;
    unsigned k = 0;
    while ((b >> k) >= 65536u)
        k++;
    return ((a >> k) << 16) / (b >> k);
}

/* The keep probability of an entry of s bytes sampled at r_from when the interval becomes r_to,
 * as q16 / 65536: p(s, r_to) / p(s, r_from), MSAMP_THIN_ONE when r_to <= r_from. */
static inline uint32_t msamp_thin_q16(MSAMP_THIN_WORD s, uint32_t r_from, uint32_t r_to)
{
    if (r_to <= r_from)
        return MSAMP_THIN_ONE;
    uint32_t x_from = msamp_thin_x_q16(s, r_from), x_to = msamp_thin_x_q16(s, r_to);
    if (x_from >= 4096u) { /* x >= 1/16: p has 28 good bits in Q32 */
        uint32_t q = msamp_thin_ratio_q16(msamp_thin_p_q32(x_to), msamp_thin_p_q32(x_from));
        return q != 0 ? q : 1u;
    }
    /* Small x: p(x) = x g(x), g(x) = 1 - x/2 + x^2/6 - ..., so q = (r_from / r_to) g(x_to) /
     * g(x_from), the ratio of the g's in [1, 1.04): r (1 + (g_to - g_from) / g_from). */
    uint32_t g_from = 65536u - x_from / 2u + (x_from * x_from) / (6u * 65536u);
    uint32_t g_to = 65536u - x_to / 2u + (x_to * x_to) / (6u * 65536u);
    uint32_t r = msamp_thin_ratio_q16(r_from, r_to), q;
    /* g_to >= g_from but for a rounding step of 1 either way (r d < 2^28): each sign by an
     * unsigned division (a signed one would bring libgcc's __aeabi_idiv to a Cortex-M0). */
    if (g_to >= g_from)
        q = r + r * (g_to - g_from) / g_from;
    else
        q = r - r * (g_from - g_to) / g_from;
    /* q16 in [1, 65536]: a coin keeps with probability q16 / 65536 exactly, and the host
     * weights a kept entry by 65536 / q16, only while that holds. */
    return q < 1u ? 1u : q > MSAMP_THIN_ONE ? MSAMP_THIN_ONE : q;
}

/* The coin of slot in thinning epoch `epoch`: murmur3's fmix32 of the three. */
static inline uint32_t msamp_thin_hash(uint32_t slot, uint32_t epoch, uint32_t session_id)
{
    uint32_t h = slot * 0x9E3779B1u ^ epoch * 0x85EBCA77u ^ session_id;
    h = (h ^ (h >> 16)) * 0x85EBCA6Bu;
    h = (h ^ (h >> 13)) * 0xC2B2AE35u;
    return h ^ (h >> 16);
}

/* 1 when the entry in slot stays: its coin below q. */
static inline int msamp_thin_keep(uint32_t slot, uint32_t epoch, uint32_t session_id, uint32_t q16)
{
    return (msamp_thin_hash(slot, epoch, session_id) >> 16) < q16;
}

/* The compact tables (MSAMP_CFG_COMPACT_TABLES) keep a live entry's size and interval as 8-bit codes:
 * 3 bits of mantissa, 5 of exponent; code c stands for c when c < 8, else (8 + (c & 7)) << ((c >> 3)
 * - 1), rounded down (at most 1/8 low). Such a device thins with the decoded values, and says so
 * in SESSION (MSAMP_SESSION_FLAG_CODED_SIZES), so the host decodes the same. */
static inline uint32_t msamp_thin_code(MSAMP_THIN_WORD v)
{
    if (v < 8u)
        return (uint32_t)v;
    unsigned b = 0; /* floor(log2(v)) */
    while ((v >> b) > 1u)
        b++;
    if (b > 33u)
        return 255u;
    return ((b - 2u) << 3) | (uint32_t)((v >> (b - 3u)) & 7u);
}

static inline MSAMP_THIN_WORD msamp_thin_decode(uint32_t c)
{
    if (c < 8u)
        return c;
    return (MSAMP_THIN_WORD)(8u + (c & 7u)) << ((c >> 3) - 1u);
}

#endif
