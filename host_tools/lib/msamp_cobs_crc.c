/* The two checks of wire-format framing: CRC-32/IEEE and COBS decoding of one frame. */
#include <string.h>
#include <zlib.h>

#include "msamp_decode.h"

/* On x86-64 with PCLMULQDQ, the CRC of 64 bytes or more is folded 64 bytes at a time by
 * carry-less multiplies (Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ",
 * the constants of zlib's SIMD CRC in Chromium for the reflected polynomial 0xEDB88320): about a
 * tenth of zlib's table CRC's instructions on the decoder's frames (a few hundred bytes). The rest,
 * and every other machine, goes through zlib's crc32: the same CRC (IEEE 802.3, reflected). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define CRC_CLMUL 1

/* The CRC register (not inverted) after the len bytes at buf (len >= 64, a multiple of 16). */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_clmul(uint32_t crc, const uint8_t *buf,
                                                                  size_t len)
{
    static const uint64_t k1k2[2] __attribute__((aligned(16))) = { 0x0154442bd4, 0x01c6e41596 };
    static const uint64_t k3k4[2] __attribute__((aligned(16))) = { 0x01751997d0, 0x00ccaa009e };
    static const uint64_t k5k0[2] __attribute__((aligned(16))) = { 0x0163cd6124, 0x0000000000 };
    static const uint64_t poly[2] __attribute__((aligned(16))) = { 0x01db710641, 0x01f7011641 };
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

    x1 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    x0 = _mm_load_si128((const __m128i *)(const void *)k1k2);
    buf += 64;
    len -= 64;
    /* Four lanes of 16 bytes, each folded over the next 64 bytes. */
    while (len >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5),
                           _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x00)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6),
                           _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x10)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7),
                           _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x20)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8),
                           _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x30)));
        buf += 64;
        len -= 64;
    }
    /* The four lanes into one, then 16 bytes at a time. */
    x0 = _mm_load_si128((const __m128i *)(const void *)k3k4);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
    while (len >= 16) {
        x2 = _mm_loadu_si128((const __m128i *)(const void *)buf);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        buf += 16;
        len -= 16;
    }
    /* 128 bits to 64, then Barrett's reduction to 32. */
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_srli_si128(x1, 8);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_loadl_epi64((const __m128i *)(const void *)k5k0);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_load_si128((const __m128i *)(const void *)poly);
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int crc_have_clmul(void)
{
    static int have = -1;
    if (have < 0)
        have = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    return have;
}
#endif

uint32_t msamp_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
#ifdef CRC_CLMUL
    if (len >= 64 && crc_have_clmul()) {
        size_t n = len & ~(size_t)15;
        crc = ~crc_clmul(~crc, p, n);
        p += n;
        len -= n;
    }
#endif
    while (len > 0) {
        uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
        crc = (uint32_t)crc32(crc, p, n);
        p += n;
        len -= n;
    }
    return crc;
}

/* zero_free: the caller knows in holds no 0x00 (it cut the frame at its delimiters). padded: in
 * and out have MSAMP_COBS_SLACK bytes past len and cap, so a short group is copied whole in one
 * move of that size (most groups are a few bytes: a call of memcpy each cost more than the copy). */
static inline long cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                               int zero_free, int padded)
{
    size_t i = 0, o = 0;
    while (i < len) {
        unsigned code = in[i++];
        if (code == 0 || code - 1u > len - i)
            return -1;
        size_t n = code - 1u;
        if (n > cap - o || (!zero_free && memchr(in + i, 0, n) != NULL))
            return -1;
        if (padded && n <= MSAMP_COBS_SLACK)
            memcpy(out + o, in + i, MSAMP_COBS_SLACK);
        else
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

long msamp_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 0, 0);
}

long msamp_cobs_decode_zero_free(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 1, 0);
}

long msamp_cobs_decode_padded(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 1, 1);
}
