/* The Poisson byte sampler: exponential gaps drawn with integer arithmetic only (no libm, no
 * floating point, so Cortex-M parts without an FPU pay no soft-float code). */
#include "msamp_internal.h"

#if MSAMP_CFG_SAMPLER32
/* 32-bit generator and arithmetic (the tiny profile's default): a few instructions on a Cortex-M
 * where 64-bit multiplies and shifts cost a dozen. u has 32 bits: E is at most 22.2. */
typedef uint32_t word;
#define WORD_CLZ(x) (unsigned)__builtin_clz(x)
#define WORD_BITS 32u

uint64_t msamp_rng_seed(uint64_t x)
{
    /* murmur3's fmix32 over both halves. */
    uint32_t h = (uint32_t)(x ^ (x >> 32));
    h = (h ^ (h >> 16)) * 0x85EBCA6Bu;
    h = (h ^ (h >> 13)) * 0xC2B2AE35u;
    h ^= h >> 16;
    return h != 0 ? h : 0x9E3779B9u;
}

uint64_t msamp_rng_next(uint64_t *state)
{
    /* xorshift32, scrambled by an odd multiplier (nonzero state, period 2^32 - 1). */
    uint32_t x = (uint32_t)*state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x * 0x9E3779BBu;
}
#else
typedef uint64_t word;
#define WORD_CLZ(x) (unsigned)__builtin_clzll(x)
#define WORD_BITS 64u

uint64_t msamp_rng_seed(uint64_t x)
{
    /* splitmix64 finaliser: spreads any seed, including small counters, over all bits. */
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x != 0 ? x : 0x2545F4914F6CDD1Dull;
}

uint64_t msamp_rng_next(uint64_t *state)
{
    /* xorshift64*: 64-bit state, full period, good high bits; used only on the sampled path. */
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}
#endif

uint32_t msamp_neg_log_q20(uint64_t r)
{
    /* u = x / 2^W with x = r | 1 (W = 64, or 32: the low half of r). Normalise
     * x = m * 2^(W-1-lz), m in [1, 2) as Q31, so -log2(u) = (lz + 1) - log2(m). log2(m) bit by
     * bit: square m; a square >= 2 is a 1 bit. */
    word x = (word)r | 1u;
    unsigned lz = WORD_CLZ(x);
    uint32_t m = (uint32_t)((x << lz) >> (WORD_BITS - 32u)); /* [2^31, 2^32) */
    uint32_t frac = 0;
    for (int i = 0; i < 20; i++) {
        uint64_t sq = ((uint64_t)m * m) >> 31; /* [2^31, 2^33) */
        frac <<= 1;
        if (sq >= (1ull << 32)) {
            frac |= 1u;
            sq >>= 1;
        }
        m = (uint32_t)sq;
    }
    uint64_t neg_log2_q20 = ((uint64_t)(lz + 1u) << 20) - frac;
    /* ln(2) in Q32 = 2977044472. */
    return (uint32_t)((neg_log2_q20 * 2977044472ull) >> 32);
}

uintptr_t msamp_draw_gap(uint64_t *state, uint32_t interval)
{
    if (interval <= 1u)
        return 1u;
    uint64_t e_q20 = msamp_neg_log_q20(msamp_rng_next(state));
    uint64_t gap = (((uint64_t)interval * e_q20) >> 20) + 1u;
    if (gap > (uint64_t)(UINTPTR_MAX >> 1))
        gap = UINTPTR_MAX >> 1;
    return (uintptr_t)gap;
}
