/* The two checks of wire-format framing: CRC-32/IEEE and COBS decoding of one frame. */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "msamp_decode.h"

/* zlib's CRC-32 is the same CRC (IEEE 802.3, reflected) and several times faster than a small
 * table: the decoder's throughput hangs on it. On x86-64 with PCLMULQDQ, what is 64 bytes or more
 * is folded as Intel's "Fast CRC Computation Using PCLMULQDQ" does (the constants of its
 * bit-reflected domain, as zlib-ng and Chromium's zlib): about 0.2 instructions a byte where
 * zlib's crc32 takes 6 (drain's input frames, and a profile file of 10^6 distinct stacks: 50 MB
 * of encoding, 300 M instructions). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("sse4.1,pclmul"))) static uint32_t crc_fold(const uint8_t *buf, size_t len,
                                                                   uint32_t crc)
{
    /* len >= 64, a multiple of 16; crc and the result are not inverted. */
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    const __m128i mask = _mm_setr_epi32(~0, 0, ~0, 0);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)buf);
    __m128i x2 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 16));
    __m128i x3 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 32));
    __m128i x4 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 48));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    buf += 64;
    len -= 64;
    for (; len >= 64; buf += 64, len -= 64) {
        __m128i x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
        __m128i x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
        __m128i x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
        __m128i x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
        x1 = _mm_xor_si128(_mm_clmulepi64_si128(x1, k1k2, 0x11), x5);
        x2 = _mm_xor_si128(_mm_clmulepi64_si128(x2, k1k2, 0x11), x6);
        x3 = _mm_xor_si128(_mm_clmulepi64_si128(x3, k1k2, 0x11), x7);
        x4 = _mm_xor_si128(_mm_clmulepi64_si128(x4, k1k2, 0x11), x8);
        x1 = _mm_xor_si128(x1, _mm_loadu_si128((const __m128i *)(const void *)buf));
        x2 = _mm_xor_si128(x2, _mm_loadu_si128((const __m128i *)(const void *)(buf + 16)));
        x3 = _mm_xor_si128(x3, _mm_loadu_si128((const __m128i *)(const void *)(buf + 32)));
        x4 = _mm_xor_si128(x4, _mm_loadu_si128((const __m128i *)(const void *)(buf + 48)));
    }
    /* Fold into 128 bits, then the blocks of 16 left. */
    const __m128i *rest[3] = {&x2, &x3, &x4};
    for (int i = 0; i < 3; i++) {
        __m128i x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, *rest[i]), x5);
    }
    for (; len >= 16; buf += 16, len -= 16) {
        __m128i x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
        x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, _mm_loadu_si128((const __m128i *)(const void *)buf)),
                           x5);
    }
    /* 128 bits to 64, then Barrett's reduction to 32. */
    x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x1, mask), k5k0, 0x00), x2);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, mask), poly, 0x10);
    x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, mask), poly, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x1, x2), 1);
}

static int have_fold(void)
{
    static int fold = -1;
    if (fold < 0)
        fold = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    return fold;
}
#else
#define have_fold() 0
#define crc_fold(buf, len, crc) (crc)
#endif

uint32_t msamp_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (len >= 64 && have_fold()) {
        size_t m = len & ~(size_t)15;
        crc = ~crc_fold(p, m, ~crc);
        p += m;
        len -= m;
    }
    while (len > 0) {
        uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = (uint32_t)crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
}



long msamp_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < len) {
        unsigned code = in[i++];
        if (code == 0 || code - 1u > len - i)
            return -1;
        size_t n = code - 1u;
        if (n > cap - o || memchr(in + i, 0, n) != NULL)
            return -1;
        memcpy(out + o, in + i, n);
        o += n;
        i += n;
        if (code != 0xFF && i < len) {
            if (o == cap)
                return -1;
            out[o++] = 0;
        }
    }
    return (long)o;
}
