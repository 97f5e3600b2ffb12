/* The two checks of wire-format framing: CRC-32/IEEE and COBS decoding of one frame. */
#include <string.h>
#include <zlib.h>

#include "msamp_decode.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CRC_CLMUL 1
/* CRC-32/IEEE (reflected) by carry-less multiplication, folding 64 bytes at a time (Intel, "Fast
 * CRC Computation for Generic Polynomials Using PCLMULQDQ", 2009; the constants are its
 * bit-reflected ones for this polynomial): len a multiple of 16, at least 64; crc not inverted
 * (the caller inverts before and after). Where the CPU has PCLMULQDQ and SSE4.1 (crc_clmul_ok):
 * about 20x fewer instructions a byte than zlib's tables on a frame of 500 bytes. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_clmul(const uint8_t *buf,
                                                                   size_t len, uint32_t crc)
{
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
    const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;
    x1 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
    x0 = k1k2;
    buf += 64;
    len -= 64;
    while (len >= 64) { /* four lanes of 128 bits folded 512 bits forward */
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
    /* The four lanes into one, then the rest 128 bits at a time. */
    x0 = k3k4;
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
    /* 128 bits to 64, then Barrett reduction to 32. */
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
    x0 = k5k0;
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    x0 = poly;
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t)_mm_extract_epi32(x1, 1);
}

static int crc_clmul_ok(void)
{
    static int ok = -1;
    if (ok < 0) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    }
    return ok;
}
#endif

/* zlib's CRC-32 is the same CRC (IEEE 802.3, reflected) and several times faster than a small
 * table: the decoder's throughput hangs on it. On x86-64 with PCLMULQDQ, the bulk of 64 bytes or
 * more by crc_clmul, the rest (under 16 bytes) by zlib. */
uint32_t msamp_crc32(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = data;
#ifdef CRC_CLMUL
    if (len >= 64 && crc_clmul_ok()) {
        size_t bulk = len & ~(size_t)15;
        crc = ~crc_clmul(p, bulk, ~crc);
        p += bulk;
        len -= bulk;
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

/* zero_free: the caller knows in holds no 0x00 (it cut the frame at its delimiters). */
static inline long cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap,
                               int zero_free)
{
    size_t i = 0, o = 0;
    while (i < len) {
        unsigned code = in[i++];
        if (code == 0 || code - 1u > len - i)
            return -1;
        size_t n = code - 1u;
        if (n > cap - o || (!zero_free && memchr(in + i, 0, n) != NULL))
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

long msamp_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 0);
}

long msamp_cobs_decode_zero_free(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
    return cobs_decode(in, len, out, cap, 1);
}
