/* Encoding primitives: varints, CRC-32, record headers, and COBS framing (checked against an
 * independent reference decoder over edge cases and random bodies, emitted in random chunks). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msamp_internal.h"

static size_t cobs_decode_ref(const uint8_t *in, size_t n, uint8_t *out)
{
    size_t o = 0, i = 0;
    while (i < n) {
        uint8_t code = in[i++];
        if (code == 0)
            return (size_t)-1;
        for (uint8_t k = 1; k < code; k++) {
            if (i >= n || in[i] == 0)
                return (size_t)-1;
            out[o++] = in[i++];
        }
        if (code != 0xFF && i < n)
            out[o++] = 0;
    }
    return o;
}

/* Encodes body with the streaming encoder, taking chunks of 1..cap bytes. */
static size_t cobs_encode(const uint8_t *body, size_t len, uint8_t *out, uint64_t *rng)
{
    struct msamp_cobs c;
    msamp_cobs_start(&c, body, len);
    size_t n = 0;
    for (;;) {
        size_t cap = 1 + (size_t)(msamp_rng_next(rng) % 40);
        size_t k = msamp_cobs_emit(&c, out + n, cap);
        if (k == 0)
            break;
        CHECK(k <= cap);
        n += k;
    }
    return n;
}

static void round_trip(const uint8_t *body, size_t len, uint64_t *rng)
{
    static uint8_t enc[8192], dec[8192];
    size_t n = cobs_encode(body, len, enc, rng);
    CHECK(n >= len + 2);
    CHECK(n <= len + len / 254 + 2);
    CHECK_EQ(enc[n - 1], 0);
    CHECK(memchr(enc, 0, n - 1) == NULL);
    size_t d = cobs_decode_ref(enc, n - 1, dec);
    CHECK_EQ(d, len);
    CHECK(d == len && memcmp(dec, body, len) == 0);
}

static void test_cobs(void)
{
    uint64_t rng = msamp_rng_seed(5);
    static uint8_t body[4096];
    size_t lens[] = {0, 1, 2, 253, 254, 255, 256, 508, 509, 1000, 4096};
    for (unsigned k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        for (int fill = 0; fill < 4; fill++) {
            for (size_t i = 0; i < lens[k]; i++)
                body[i] = fill == 0 ? 0 : fill == 1 ? 0x55 : fill == 2 ? (uint8_t)(i % 7 ? i : 0)
                                                               : (uint8_t)msamp_rng_next(&rng);
            round_trip(body, lens[k], &rng);
        }
    }
    /* A zero right after a full 254-byte block, and bodies ending in zero. */
    memset(body, 0x11, sizeof body);
    body[254] = 0;
    round_trip(body, 300, &rng);
    round_trip(body, 255, &rng);
    body[299] = 0;
    round_trip(body, 300, &rng);
    const uint8_t one_zero[1] = {0};
    static uint8_t enc[16];
    size_t n = cobs_encode(one_zero, 1, enc, &rng);
    CHECK_EQ(n, 3);
    CHECK(enc[0] == 1 && enc[1] == 1 && enc[2] == 0);
    for (int t = 0; t < 2000; t++) {
        size_t len = (size_t)(msamp_rng_next(&rng) % 1200);
        for (size_t i = 0; i < len; i++) {
            uint64_t r = msamp_rng_next(&rng);
            body[i] = (r & 3) == 0 ? 0 : (uint8_t)(r >> 8);
        }
        round_trip(body, len, &rng);
    }
}

static void test_varints(void)
{
    uint8_t b[16];
    CHECK_EQ(msamp_put_varint(b, 0), 1);
    CHECK_EQ(b[0], 0);
    CHECK_EQ(msamp_put_varint(b, 127), 1);
    CHECK_EQ(msamp_put_varint(b, 128), 2);
    CHECK(b[0] == 0x80 && b[1] == 0x01);
    CHECK_EQ(msamp_put_varint(b, 300), 2);
    CHECK(b[0] == 0xAC && b[1] == 0x02);
    CHECK_EQ(msamp_put_varint(b, UINT64_MAX), 10);
    CHECK_EQ(b[9], 0x01);
    CHECK_EQ(msamp_put_svarint(b, 0), 1);
    CHECK_EQ(b[0], 0);
    msamp_put_svarint(b, -1);
    CHECK_EQ(b[0], 1);
    msamp_put_svarint(b, 1);
    CHECK_EQ(b[0], 2);
    msamp_put_svarint(b, -64);
    CHECK_EQ(b[0], 127);
    CHECK_EQ(msamp_put_svarint(b, INT64_MIN), 10);
}

static void test_crc(void)
{
    const uint8_t s[] = "123456789";
    CHECK_EQ(msamp_crc32_update(0, s, 9), 0xCBF43926u);
    /* Incremental = whole. */
    uint32_t c = msamp_crc32_update(0, s, 4);
    c = msamp_crc32_update(c, s + 4, 5);
    CHECK_EQ(c, 0xCBF43926u);
    CHECK_EQ(msamp_crc32_update(0, s, 0), 0);
}

static void test_record_headers(void)
{
    uint8_t buf[3 + MSAMP_MAX_RECORD];
    struct msamp_rec r;
    const uint8_t *rec = msamp_enc_free(&r, buf, 5, 7);
    CHECK_EQ(r.size, 3);
    CHECK(rec[0] == (MSAMP_REC_FREE | (2u << 4)) && rec[1] == 5 && rec[2] == 7);
    uint8_t text[64];
    memset(text, 'x', sizeof text);
    rec = msamp_enc_mark(&r, buf, text, 14);
    CHECK_EQ(r.size, 15);
    CHECK_EQ(rec[0], MSAMP_REC_MARK | (14u << 4));
    rec = msamp_enc_mark(&r, buf, text, 15);
    CHECK_EQ(r.size, 17);
    CHECK(rec[0] == (MSAMP_REC_MARK | 0xF0u) && rec[1] == 15 && rec[2] == 'x');
    rec = msamp_enc_mark(&r, buf, text, 64);
    CHECK(rec[0] == (MSAMP_REC_MARK | 0xF0u) && rec[1] == 64 && r.size == 66);
    /* A deep stack: length in two varint bytes. */
    uintptr_t pcs[MSAMP_CFG_MAX_DEPTH];
    for (unsigned i = 0; i < MSAMP_CFG_MAX_DEPTH; i++)
        pcs[i] = (uintptr_t)0x7f0000000000ull + (uintptr_t)(i * 0x12345678u);
    rec = msamp_enc_stack(&r, buf, 3, pcs, MSAMP_CFG_MAX_DEPTH);
    CHECK(r.size <= MSAMP_MAX_RECORD);
    CHECK_EQ(rec[0], MSAMP_REC_STACK | 0xF0u);
    CHECK(rec[1] & 0x80);
    /* REALLOC puts the old slot first. */
    rec = msamp_enc_alloc(&r, buf, 4, 9, 100, 2, 1, NULL);
    CHECK(rec[0] == (MSAMP_REC_REALLOC | (5u << 4)) && rec[1] == 4 && rec[2] == 9 && rec[3] == 100);
    uintptr_t addr = 0x1234;
    rec = msamp_enc_alloc(&r, buf, -1, 1, 100, 2, 1, &addr);
    CHECK(rec[0] == (MSAMP_REC_ALLOC | (6u << 4)) && rec[5] == 0xB4 && rec[6] == 0x24);
}

int main(void)
{
    test_varints();
    test_crc();
    test_record_headers();
    test_cobs();
    return check_report("unit-encode");
}
