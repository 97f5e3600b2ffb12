/* The frame writer on its own: record headers and varints through the sizing sink, the frame CRC
 * (table and bitwise builds), COBS checked against an independent reference decoder over edge
 * cases and random bodies handed to a transport in random chunks, frames closed at
 * MSAMP_CFG_FRAME_BYTES, and the ring: whole events or nothing, exact drop counts, wrap-around,
 * never a byte written over one not yet consumed. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "msamp_internal.h"
#include "writer_port.h"

static uint64_t rng = 7;
static struct msamp_writer ev;

static void reset(void)
{
    memset(&msamp_core, 0, sizeof msamp_core);
    out_len = 0;
}

static uint32_t crc_ref(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* Decodes COBS frames of out[0..n): each body must end in the CRC of what precedes it. Returns
 * the number of frames; bodies (CRC stripped) are concatenated into bodies, lengths into lens. */
static int frames_of(const uint8_t *in, size_t n, uint8_t *bodies, size_t *lens, int max)
{
    int frames = 0;
    size_t i = 0, o = 0;
    while (i < n && frames < max) {
        size_t start = o;
        for (;;) {
            CHECK(i < n);
            uint8_t code = in[i++];
            if (code == 0)
                break;
            for (uint8_t k = 1; k < code; k++) {
                CHECK(in[i] != 0);
                bodies[o++] = in[i++];
            }
            if (code != 0xFF && in[i] != 0)
                bodies[o++] = 0;
        }
        size_t len = o - start;
        CHECK(len >= 5);
        if (len < 5)
            return -1;
        const uint8_t *b = bodies + start;
        uint32_t crc = b[len - 4] | b[len - 3] << 8 | b[len - 2] << 16 | (uint32_t)b[len - 1] << 24;
        CHECK_EQ(crc, crc_ref(b, len - 4));
        o -= 4;
        lens[frames++] = len - 4;
    }
    return frames;
}

/* Where code size comes first every sink writes: records are sized by writing them (test_records
 * checks their bytes). */
static void test_sink(void)
{
#if !MSAMP_CFG_SMALL_CODE
    uint64_t vals[] = {0, 127, 128, 300, 16383, 16384, UINT32_MAX, UINT64_MAX};
    unsigned sizes[] = {1, 1, 2, 2, 2, 3, 5, 10};
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        struct msamp_sink s = {0, 1};
        msamp_sink_varint(&s, vals[i]);
        CHECK_EQ(s.n, sizes[i]);
    }
#endif
}

/* One frame with records whose bytes are known: header sizes, varints, zigzag deltas. */
static void test_records(void)
{
    reset();
    msamp_event_begin(&ev);
    msamp_rec_free(5, 7, 0);
    static uint8_t text[64];
    memset(text, 'x', sizeof text);
    struct msamp_bytes t14 = {text, 14}, t15 = {text, 15};
    msamp_event_record(MSAMP_REC_MARK, msamp_layout_bytes, &t14);
    msamp_event_record(MSAMP_REC_MARK, msamp_layout_bytes, &t15);
    uintptr_t pcs[3] = {0x1000, 0x0ff0, 0x1010};
    struct msamp_stack_fields st = {3, 3, pcs};
    msamp_event_record(MSAMP_REC_STACK, msamp_layout_stack, &st);
    CHECK_EQ(msamp_event_end(&ev, 1), 0);
    msamp_writer_close();
    while (msamp_ring_drain() > 0)
        ;
    static uint8_t bodies[1 << 16];
    size_t lens[4];
    CHECK_EQ(frames_of(out, out_len, bodies, lens, 4), 1);
    const uint8_t want[] = {0, MSAMP_REC_FREE | 2u << 4, 5, 7, MSAMP_REC_MARK | 14u << 4};
    CHECK(memcmp(bodies, want, sizeof want) == 0);
    const uint8_t *p = bodies + sizeof want + 14;
    CHECK(p[0] == (MSAMP_REC_MARK | 0xF0u) && p[1] == 15 && p[2] == 'x');
    p += 2 + 15;
    /* id 3, depth 3, 0x1000, zigzag(-16) = 31, zigzag(+32) = 64 */
    const uint8_t stack[] = {MSAMP_REC_STACK | 6u << 4, 3, 3, 0x80, 0x20, 31, 64};
    CHECK(memcmp(p, stack, sizeof stack) == 0);
    CHECK_EQ(lens[0], (size_t)(p + sizeof stack - bodies));
}

/* Random bodies of MARK records (runs of zeros, of non-zeros past 254, random bytes), drained in
 * random chunks, must come back byte for byte. */
static void test_cobs(void)
{
    static uint8_t text[1200], bodies[1 << 20];
    static size_t lens[4096];
    for (int t = 0; t < 400; t++) {
        reset();
        transport_max = 40;
        size_t len = (size_t)(msamp_rng_next(&rng) % sizeof text);
        int kind = t % 4;
        for (size_t i = 0; i < len; i++) {
            uint64_t r = msamp_rng_next(&rng);
            text[i] = kind == 0 ? 0 : kind == 1 ? 0x55 : kind == 2 ? (uint8_t)(i % 7 ? i : 0)
                                                                   : (uint8_t)((r & 3) ? r >> 8 : 0);
        }
        struct msamp_bytes m = {text, (uint32_t)len};
        msamp_event_begin(&ev);
        msamp_event_record(MSAMP_REC_MARK, msamp_layout_bytes, &m);
        CHECK_EQ(msamp_event_end(&ev, 1), 0);
        msamp_writer_close();
        while (msamp_ring_drain() > 0)
            ;
        CHECK(memchr(out, 0, out_len - 1) == NULL);
        CHECK_EQ(out[out_len - 1], 0);
        CHECK(out_len <= len + 8 + (len + 8) / 254 + 2);
        CHECK_EQ(frames_of(out, out_len, bodies, lens, 4096), 1);
        size_t hdr = len <= 14 ? 2 : len < 128 ? 3 : 4; /* seq, header, length varint */
        CHECK_EQ(lens[0], hdr + len);
        CHECK(memcmp(bodies + hdr, text, len) == 0);
    }
    transport_max = 0;
}

/* Events fill a ring nobody drains: each fits whole or is refused whole and counted; frames close
 * at MSAMP_CFG_FRAME_BYTES; once drained, every kept record is there, in order, and the ring wraps. */
static void test_ring(void)
{
    reset();
    static uint8_t bodies[1 << 20];
    static size_t lens[1 << 14];
    uint32_t kept = 0, refused = 0;
    for (int round = 0; round < 3; round++) {
        uint32_t round_kept = 0;
        for (uint32_t i = 0; i < MSAMP_CFG_RING_SIZE; i++) {
            msamp_event_begin(&ev);
            /* dt >= 1: 3 bytes each (a dt of 0 is left out) */
            msamp_rec_free(i & 0x7F, (uintptr_t)round + 1u, 0);
            uint32_t before = msamp_core.count[MSAMP_DROP_RING_RECORDS];
            if (msamp_event_end(&ev, 1) == 0) {
                round_kept++;
            } else {
                refused++;
                CHECK_EQ(msamp_core.count[MSAMP_DROP_RING_RECORDS], before + 1);
            }
            CHECK(msamp_ring_used() <= MSAMP_CFG_RING_SIZE);
        }
        CHECK(round_kept > 0);
        kept += round_kept;
        CHECK_EQ(msamp_core.count[MSAMP_DROP_RING_RECORDS], refused);
        CHECK_EQ(msamp_core.count[MSAMP_DROP_RING_BYTES], 3u * refused);
        msamp_writer_close();
        size_t mark = out_len;
        while (msamp_ring_drain() > 0)
            ;
        CHECK(msamp_ring_empty());
        int frames = frames_of(out + mark, out_len - mark, bodies, lens, 1 << 14);
        CHECK(frames > 1);
        /* Every frame but the last closed once its body reached MSAMP_CFG_FRAME_BYTES. */
        size_t off = 0;
        uint32_t records = 0;
        for (int f = 0; f < frames; f++) {
            CHECK(f == frames - 1 || lens[f] >= MSAMP_CFG_FRAME_BYTES);
            CHECK(lens[f] < MSAMP_CFG_FRAME_BYTES + 4u);
            for (size_t k = 1; k < lens[f]; k += 3, records++) {
                CHECK_EQ(bodies[off + k], MSAMP_REC_FREE | 2u << 4);
                CHECK_EQ(bodies[off + k + 1], records & 0x7F);
                CHECK_EQ(bodies[off + k + 2], (unsigned)round + 1u);
            }
            off += lens[f];
        }
        CHECK_EQ(records, round_kept);
    }
    CHECK(kept > 0 && refused > 0);
}

/* A full ring, whatever event met it (one that opens a frame included), loses whole events only:
 * every frame that comes out later is intact and in sequence. Events of many sizes move where the
 * ring runs out; the transport drains it in between. */
static void test_full_at_any_point(void)
{
    static uint8_t text[64], bodies[1 << 16];
    static size_t lens[1 << 12];
    memset(text, 0x42, sizeof text);
    for (uint32_t k = 0; k < 600; k++) {
        reset();
        uint32_t made = 0, fit = 0;
        for (int phase = 0; phase < 3; phase++) {
            for (uint32_t i = 0; i < MSAMP_CFG_RING_SIZE / 8u; i++, made++) {
                struct msamp_bytes m = {text, 1u + (k + i * 7u) % 60u};
                msamp_event_begin(&ev);
                msamp_event_record(MSAMP_REC_MARK, msamp_layout_bytes, &m);
                fit += msamp_event_end(&ev, 1) == 0;
                if (k & 1)
                    msamp_writer_close(); /* as msamp_poll() does: the next event opens a frame */
            }
            transport_max = phase == 1 ? 0 : 100; /* drain all, or part */
            msamp_ring_drain();
        }
        transport_max = 0;
        msamp_writer_close();
        while (msamp_ring_drain() > 0)
            ;
        int frames = frames_of(out, out_len, bodies, lens, 1 << 12);
        uint32_t records = 0;
        size_t off = 0;
        for (int f = 0; f < frames; f++) {
            CHECK_EQ(bodies[off], (uint8_t)f); /* seq: consecutive */
            for (size_t at = off + 1; at < off + lens[f]; records++) {
                unsigned len = bodies[at] >> 4;
                at += len == 15 ? 2u + bodies[at + 1] : 1u + len;
            }
            off += lens[f];
        }
        CHECK_EQ(records, fit);
        CHECK_EQ(msamp_core.count[MSAMP_DROP_RING_RECORDS], made - fit);
    }
}

int main(void)
{
    test_full_at_any_point();
    test_sink();
    test_records();
    test_cobs();
    test_ring();
    return check_report("unit-writer");
}
