/* Unit tests of the host decoder (host_tools/lib/msamp_decode.c), built with ASan and UBSan.
 * Streams are built by hand (wire_build.c) from the spec, and the decoder's listing is compared
 * with the expected text. Prints "decoder-unit: N checks, N failed"; exits 1 on any failure. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "msamp_decode.h"
#include "wire_build.h"

static int checks, failures;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        checks++;                                                                      \
        if (!(cond)) {                                                                 \
            failures++;                                                                \
            fprintf(stderr, "%s:%d: %s: check failed: %s\n", __FILE__, __LINE__, __func__, \
                    #cond);                                                            \
        }                                                                              \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                   \
    do {                                                                                   \
        uint64_t a_ = (a), b_ = (b);                                                       \
        checks++;                                                                          \
        if (a_ != b_) {                                                                    \
            failures++;                                                                    \
            fprintf(stderr, "%s:%d: %s: %s == %" PRIu64 ", expected %" PRIu64 "\n",        \
                    __FILE__, __LINE__, __func__, #a, a_, b_);                             \
        }                                                                                  \
    } while (0)

static void check_text(const char *fn, int line, const char *got, const char *want)
{
    checks++;
    if (strcmp(got, want) != 0) {
        failures++;
        fprintf(stderr, "%s:%d: %s: listing differs\n--- got:\n%s--- expected:\n%s---\n", __FILE__,
                line, fn, got, want);
    }
}
#define CHECK_TEXT(got, want) check_text(__func__, __LINE__, got, want)

/* ---- decoding helpers ---- */

struct sink {
    FILE *out;
    unsigned opts;
};

static void on_rec(void *arg, const struct msamp_record *rec)
{
    struct sink *s = arg;
    msamp_record_print_opt(s->out, rec, s->opts);
}

/* Decodes data fed in pieces of `chunk` bytes (0: all at once); returns the listing (malloc'd)
 * and the counters in *st. */
static char *decode(const uint8_t *data, size_t len, size_t chunk, unsigned opts,
                    struct msamp_dec_stats *st)
{
    char *text = NULL;
    size_t text_len = 0;
    struct sink s = { open_memstream(&text, &text_len), opts };
    struct msamp_dec *d = msamp_dec_new(on_rec, &s);
    if (s.out == NULL || d == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    if (chunk == 0) {
        msamp_dec_feed(d, data, len);
    } else {
        for (size_t i = 0; i < len; i += chunk)
            msamp_dec_feed(d, data + i, len - i < chunk ? len - i : chunk);
    }
    msamp_dec_finish(d);
    if (st)
        *st = *msamp_dec_stats(d);
    msamp_dec_free(d);
    fclose(s.out);
    return text;
}

static void check_decode(const char *fn, int line, const struct buf *stream, unsigned opts,
                         const char *want)
{
    char *got = decode(stream->p, stream->len, 0, opts, NULL);
    check_text(fn, line, got, want);
    free(got);
}
#define CHECK_DECODE(stream, opts, want) check_decode(__func__, __LINE__, stream, opts, want)

/* Appends a record whose payload is n varints. */
static void rec_v(struct buf *recs, unsigned type, int n, ...)
{
    struct buf b = { 0 };
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        buf_varint(&b, va_arg(ap, uint64_t));
    va_end(ap);
    rec_put(recs, type, &b);
    buf_free(&b);
}

#define U(x) ((uint64_t)(x))

/* The wire version the SESSIONs these helpers build say (1 but in test_version2). */
static uint8_t session_version = 1;

static void session_payload(struct buf *b, uint8_t flags, uint32_t id, uint64_t resend,
                            uint8_t ptr_size, size_t bid_len)
{
    buf_u8(b, session_version);
    buf_u8(b, flags);
    buf_u32le(b, id);
    buf_varint(b, resend);
    buf_u8(b, MSAMP_ARCH_AARCH64);
    buf_u8(b, ptr_size);
    buf_varint(b, 10000);
    buf_varint(b, 4096);
    buf_varint(b, 256);
    buf_varint(b, 128);
    buf_varint(b, 32);
    buf_u8(b, (uint8_t)bid_len);
    for (size_t i = 0; i < bid_len; i++)
        buf_u8(b, (uint8_t)(0x0a + i * 0x11));
}

static void rec_session(struct buf *recs, uint8_t flags, uint32_t id, uint64_t resend,
                        uint8_t ptr_size)
{
    struct buf b = { 0 };
    session_payload(&b, flags, id, resend, ptr_size, 3);
    rec_put(recs, MSAMP_REC_SESSION, &b);
    buf_free(&b);
}

static void put_frame(struct buf *stream, uint8_t seq, struct buf *recs)
{
    frame_put(stream, seq, recs->p, recs->len);
    buf_free(recs);
}

/* ---- CRC and COBS ---- */

static void test_crc(void)
{
    CHECK_EQ_U(msamp_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_EQ_U(msamp_crc32(0, "", 0), 0);
    CHECK_EQ_U(msamp_crc32(msamp_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
    CHECK_EQ_U(msamp_crc32(0, "a", 1), 0xE8B7BE43u);
    /* Against the CRC bit by bit, at every length to 700 and 16 alignments, whole and continued
     * from a first part. */
    static uint8_t data[720];
    uint32_t x = 7u;
    for (size_t i = 0; i < sizeof(data); i++) {
        x = x * 1103515245u + 12345u;
        data[i] = (uint8_t)(x >> 16);
    }
    unsigned bad = 0;
    for (size_t off = 0; off < 16; off++) {
        uint32_t ref = 0xFFFFFFFFu;
        for (size_t len = 0; len + off <= sizeof(data); len++) {
            if (len > 0) {
                ref ^= data[off + len - 1];
                for (int k = 0; k < 8; k++)
                    ref = ref >> 1 ^ (0xEDB88320u & (0u - (ref & 1u)));
            }
            bad += msamp_crc32(0, data + off, len) != ~ref;
            size_t cut = len / 3; /* continued from a first part */
            bad += msamp_crc32(msamp_crc32(0, data + off, cut), data + off + cut, len - cut) != ~ref;
        }
    }
    CHECK_EQ_U(bad, 0);
}

static void cobs_roundtrip(const uint8_t *in, size_t len)
{
    struct buf enc = { 0 };
    cobs_encode(&enc, in, len);
    CHECK(memchr(enc.p, 0, enc.len) == NULL);
    CHECK(enc.len <= len + len / 254 + 1);
    uint8_t *out = malloc(len + 1);
    long n = msamp_cobs_decode(enc.p, enc.len, out, len + 1);
    CHECK_EQ_U((uint64_t)n, len);
    CHECK(n >= 0 && memcmp(out, in, (size_t)n) == 0);
    /* The decoder's own, for bytes it cut at 0x00: the same. */
    memset(out, 0xEE, len + 1);
    CHECK(msamp_cobs_decode_zero_free(enc.p, enc.len, out, len + 1) == n);
    CHECK(n >= 0 && memcmp(out, in, (size_t)n) == 0);
    /* An output buffer one byte short is refused, never overrun. */
    if (len > 0)
        CHECK(msamp_cobs_decode(enc.p, enc.len, out, len - 1) == -1);
    free(out);
    /* The padded one, on buffers with exactly its slack (ASan sees a move past it): the same,
     * and one byte short refused. */
    uint8_t *pin = malloc(enc.len + MSAMP_COBS_SLACK);
    memcpy(pin, enc.p, enc.len);
    memset(pin + enc.len, 0xAA, MSAMP_COBS_SLACK);
    out = malloc(len + MSAMP_COBS_SLACK);
    CHECK(msamp_cobs_decode_padded(pin, enc.len, out, len) == n);
    CHECK(n >= 0 && memcmp(out, in, (size_t)n) == 0);
    if (len > 0)
        CHECK(msamp_cobs_decode_padded(pin, enc.len, out, len - 1) == -1);
    free(out);
    free(pin);
    buf_free(&enc);
}

static void test_cobs(void)
{
    static const uint8_t known_in[] = { 0x11, 0x22, 0x00, 0x33 };
    static const uint8_t known_enc[] = { 0x03, 0x11, 0x22, 0x02, 0x33 };
    struct buf enc = { 0 };
    cobs_encode(&enc, known_in, sizeof(known_in));
    CHECK(enc.len == sizeof(known_enc) && memcmp(enc.p, known_enc, enc.len) == 0);
    buf_free(&enc);

    uint8_t data[1200];
    size_t lens[] = { 0, 1, 2, 253, 254, 255, 256, 507, 508, 509, 510, 1000, 1200 };
    for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
        size_t n = lens[k];
        for (size_t i = 0; i < n; i++) /* no zeros: runs of exactly 254/255/... bytes */
            data[i] = (uint8_t)(1 + i % 255);
        cobs_roundtrip(data, n);
        for (size_t i = 0; i < n; i++) /* all zeros */
            data[i] = 0;
        cobs_roundtrip(data, n);
        uint32_t x = 12345u + (uint32_t)n;
        for (size_t i = 0; i < n; i++) { /* random, some zeros */
            x = x * 1103515245u + 12345u;
            data[i] = (uint8_t)(x >> 24) % 7 == 0 ? 0 : (uint8_t)(x >> 16);
        }
        cobs_roundtrip(data, n);
        if (n > 0) { /* a zero right after a full block, and at the end */
            for (size_t i = 0; i < n; i++)
                data[i] = 0xAB;
            if (n > 254)
                data[254] = 0;
            data[n - 1] = 0;
            cobs_roundtrip(data, n);
        }
    }

    /* A full block followed by an explicit empty block is the other legal ending. */
    uint8_t full[256], out[300];
    full[0] = 0xFF;
    for (int i = 1; i <= 254; i++)
        full[i] = 0x5A;
    full[255] = 0x01;
    CHECK(msamp_cobs_decode(full, 255, out, sizeof(out)) == 254);
    CHECK(msamp_cobs_decode(full, 256, out, sizeof(out)) == 254);

    static const uint8_t overrun[] = { 0x05, 0x11, 0x22 };
    static const uint8_t has_zero[] = { 0x03, 0x11, 0x00 };
    CHECK(msamp_cobs_decode(overrun, sizeof(overrun), out, sizeof(out)) == -1);
    CHECK(msamp_cobs_decode(has_zero, sizeof(has_zero), out, sizeof(out)) == -1);
    CHECK(msamp_cobs_decode(out, 0, out, 0) == 0);
    /* A last group one byte short, in a buffer of exactly its size (ASan sees any overread). */
    uint8_t *short_group = malloc(3);
    memcpy(short_group, "\x04\x11\x22", 3);
    CHECK(msamp_cobs_decode(short_group, 3, out, sizeof(out)) == -1);
    short_group[0] = 0x03;
    CHECK(msamp_cobs_decode(short_group, 3, out, sizeof(out)) == 2);
    free(short_group);
}

/* ---- records ---- */

static void test_all_records(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    rec_session(&r, 0, 0x12345678u, 0, 8);
    rec_v(&r, MSAMP_REC_TIME, 1, U(1000));
    buf_varint(&p, 1);
    buf_varint(&p, 3);
    buf_varint(&p, 0x400123);
    buf_svarint(&p, 0x400456 - 0x400123);
    buf_svarint(&p, -0x333);
    rec_put(&r, MSAMP_REC_STACK, &p);
    buf_free(&p);
    rec_v(&r, MSAMP_REC_ALLOC, 4, U(1), U(100), U(1), U(5));
    rec_v(&r, MSAMP_REC_FREE, 2, U(0), U(7));
    put_frame(&s, 0, &r);

    rec_v(&r, MSAMP_REC_LIVE, 4, U(0), U(100), U(1), U(123));
    rec_v(&r, MSAMP_REC_SNAP_BEGIN, 2, U(1), U(2000));
    rec_v(&r, MSAMP_REC_SNAP_END, 2, U(1), U(3));
    rec_v(&r, MSAMP_REC_DROPS, 6, U(1), U(2), U(3), U(4), U(5), U(6));
    rec_v(&r, MSAMP_REC_INTERVAL, 2, U(1024), U(2));
    rec_v(&r, MSAMP_REC_REALLOC, 5, U(0), U(2), U(200), U(1), U(3));
    buf_put(&p, "ph\"a\\se\n2", 9);
    rec_put(&r, MSAMP_REC_MARK, &p);
    buf_free(&p);
    buf_varint(&p, 0x555555554000u);
    buf_varint(&p, 0x555555556000u);
    buf_varint(&p, 0x1000);
    buf_u8(&p, 2);
    buf_u8(&p, 0x0a);
    buf_u8(&p, 0x1b);
    buf_varint(&p, 12);
    buf_put(&p, "/usr/bin/app", 12);
    rec_put(&r, MSAMP_REC_MAPPING, &p);
    buf_free(&p);
    put_frame(&s, 1, &r);

    CHECK_DECODE(&s, 0,
                 "frame seq=0\n"
                 "SESSION version=1 flags=0x00 session_id=0x12345678 resend_seq=0 arch=aarch64 "
                 "ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c\n"
                 "TIME ts=1000\n"
                 "STACK id=1 depth=3 frames=0x400123,0x400456,0x400123\n"
                 "ALLOC slot1=1 size=100 stack=1 dt=5\n"
                 "FREE slot=0 dt=7\n"
                 "frame seq=1\n"
                 "LIVE slot=0 size=100 stack=1 birth=123\n"
                 "SNAP_BEGIN pass=1 ts=2000\n"
                 "SNAP_END pass=1 count=3\n"
                 "DROPS ring_records=1 ring_bytes=2 live_full=3 stack_full=4 reentrant=5 "
                 "truncated=6\n"
                 "INTERVAL interval=1024 dt=2\n"
                 "REALLOC old_slot=0 new_slot1=2 size=200 stack=1 dt=3\n"
                 "MARK text=\"ph\\x22a\\x5cse\\x0a2\"\n"
                 "MAPPING start=0x555555554000 limit=0x555555556000 offset=0x1000 build_id=0a1b "
                 "path=\"/usr/bin/app\"\n");
    CHECK_DECODE(&s, MSAMP_PRINT_TIME,
                 "frame seq=0\n"
                 "SESSION version=1 flags=0x00 session_id=0x12345678 resend_seq=0 arch=aarch64 "
                 "ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c @ts=?\n"
                 "TIME ts=1000 @ts=1000\n"
                 "STACK id=1 depth=3 frames=0x400123,0x400456,0x400123 @ts=1000\n"
                 "ALLOC slot1=1 size=100 stack=1 dt=5 @ts=1005\n"
                 "FREE slot=0 dt=7 @ts=1012\n"
                 "frame seq=1\n"
                 "LIVE slot=0 size=100 stack=1 birth=123 @ts=1012\n"
                 "SNAP_BEGIN pass=1 ts=2000 @ts=2000\n"
                 "SNAP_END pass=1 count=3 @ts=2000\n"
                 "DROPS ring_records=1 ring_bytes=2 live_full=3 stack_full=4 reentrant=5 "
                 "truncated=6 @ts=2000\n"
                 "INTERVAL interval=1024 dt=2 @ts=2002\n"
                 "REALLOC old_slot=0 new_slot1=2 size=200 stack=1 dt=3 @ts=2005\n"
                 "MARK text=\"ph\\x22a\\x5cse\\x0a2\" @ts=2005\n"
                 "MAPPING start=0x555555554000 limit=0x555555556000 offset=0x1000 build_id=0a1b "
                 "path=\"/usr/bin/app\" @ts=2005\n");

    struct msamp_dec_stats st;
    free(decode(s.p, s.len, 0, 0, &st));
    CHECK_EQ_U(st.frames_ok, 2);
    CHECK_EQ_U(st.records, 13);
    CHECK_EQ_U(st.bytes_in, s.len);
    CHECK(!msamp_dec_stats_damaged(&st));
    buf_free(&s);
}

/* Addresses appear when the session flags say so; a long payload uses the varint length. */
static void test_addresses_and_long_records(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    rec_session(&r, MSAMP_SESSION_FLAG_ADDRESSES | MSAMP_SESSION_FLAG_BIG_ENDIAN, 0xdeadbeefu, 4,
                4);
    rec_v(&r, MSAMP_REC_ALLOC, 5, U(2), U(64), U(1), U(0), U(0x40001000));
    rec_v(&r, MSAMP_REC_LIVE, 5, U(1), U(64), U(1), U(9), U(0x40002000));
    rec_v(&r, MSAMP_REC_REALLOC, 6, U(1), U(3), U(65), U(1), U(1), U(0x40003000));
    rec_v(&r, MSAMP_REC_ALLOC, 4, U(4), U(64), U(1), U(0)); /* flag set, address left out */
    buf_put(&p, "a marker longer than fourteen bytes", 35);
    rec_put(&r, MSAMP_REC_MARK, &p);
    buf_free(&p);
    put_frame(&s, 7, &r);
    CHECK_DECODE(&s, 0,
                 "frame seq=7\n"
                 "SESSION version=1 flags=0x03 session_id=0xdeadbeef resend_seq=4 arch=aarch64 "
                 "ptr_size=4 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c\n"
                 "ALLOC slot1=2 size=64 stack=1 dt=0 addr=0x40001000\n"
                 "LIVE slot=1 size=64 stack=1 birth=9 addr=0x40002000\n"
                 "REALLOC old_slot=1 new_slot1=3 size=65 stack=1 dt=1 addr=0x40003000\n"
                 "ALLOC slot1=4 size=64 stack=1 dt=0\n"
                 "MARK text=\"a marker longer than fourteen bytes\"\n");
    buf_free(&s);
}

/* Captures the fields of the LIVE and INTERVAL records of a stream, in order. */
struct adaptive_seen {
    int n_live, n_interval;
    struct msamp_record live[8], interval[8];
};

static void on_adaptive(void *arg, const struct msamp_record *rec)
{
    struct adaptive_seen *a = arg;
    if (rec->type == MSAMP_REC_LIVE && a->n_live < 8)
        a->live[a->n_live++] = *rec;
    if (rec->type == MSAMP_REC_INTERVAL && a->n_interval < 8)
        a->interval[a->n_interval++] = *rec;
}

/* The adaptive interval's optional fields: INTERVAL [reason epoch] and LIVE [interval], after
 * [addr] when the session sends addresses; present, absent, and cut. */
static void test_adaptive_fields(void)
{
    struct buf s = { 0 }, r = { 0 };
    rec_session(&r, 0, 0x5eed, 0, 8);
    rec_v(&r, MSAMP_REC_TIME, 1, U(100));
    rec_v(&r, MSAMP_REC_INTERVAL, 2, U(4096), U(1));                 /* absent: reason 0 */
    rec_v(&r, MSAMP_REC_INTERVAL, 4, U(8192), U(2), U(1), U(7));     /* live table high water */
    rec_v(&r, MSAMP_REC_INTERVAL, 5, U(16384), U(3), U(3), U(8), U(99)); /* + a later field */
    rec_v(&r, MSAMP_REC_INTERVAL, 4, U(8192), U(0), U(MSAMP_INTERVAL_LOWER), U(0));
    rec_v(&r, MSAMP_REC_LIVE, 4, U(0), U(100), U(1), U(50));         /* no interval */
    rec_v(&r, MSAMP_REC_LIVE, 5, U(1), U(100), U(1), U(50), U(4096)); /* its own interval */
    rec_v(&r, MSAMP_REC_LIVE, 6, U(2), U(100), U(1), U(50), U(2048), U(5)); /* + a later field */
    put_frame(&s, 0, &r);
    /* With addresses: [addr] first, then [interval]. */
    rec_session(&r, MSAMP_SESSION_FLAG_ADDRESSES, 0x5eed, 1, 8);
    rec_v(&r, MSAMP_REC_LIVE, 5, U(3), U(64), U(1), U(60), U(0x1000));
    rec_v(&r, MSAMP_REC_LIVE, 6, U(4), U(64), U(1), U(60), U(0x2000), U(1024));
    put_frame(&s, 1, &r);
    CHECK_DECODE(&s, MSAMP_PRINT_TIME,
                 "frame seq=0\n"
                 "SESSION version=1 flags=0x00 session_id=0x00005eed resend_seq=0 arch=aarch64 "
                 "ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c @ts=?\n"
                 "TIME ts=100 @ts=100\n"
                 "INTERVAL interval=4096 dt=1 @ts=101\n"
                 "INTERVAL interval=8192 dt=2 reason=1 epoch=7 @ts=103\n"
                 "INTERVAL interval=16384 dt=3 reason=3 epoch=8 @ts=106\n"
                 "INTERVAL interval=8192 dt=0 reason=4 epoch=0 @ts=106\n"
                 "LIVE slot=0 size=100 stack=1 birth=50 @ts=106\n"
                 "LIVE slot=1 size=100 stack=1 birth=50 interval=4096 @ts=106\n"
                 "LIVE slot=2 size=100 stack=1 birth=50 interval=2048 @ts=106\n"
                 "frame seq=1\n"
                 "SESSION version=1 flags=0x02 session_id=0x00005eed resend_seq=1 arch=aarch64 "
                 "ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c @ts=106\n"
                 "LIVE slot=3 size=64 stack=1 birth=60 addr=0x1000 @ts=106\n"
                 "LIVE slot=4 size=64 stack=1 birth=60 addr=0x2000 interval=1024 @ts=106\n");

    /* The fields themselves, and their flags, reach the callback. */
    struct adaptive_seen a;
    memset(&a, 0, sizeof(a));
    struct msamp_dec *d = msamp_dec_new(on_adaptive, &a);
    CHECK(d != NULL);
    msamp_dec_feed(d, s.p, s.len);
    msamp_dec_finish(d);
    CHECK(!msamp_dec_stats_damaged(msamp_dec_stats(d)));
    msamp_dec_free(d);
    CHECK_EQ_U(a.n_interval, 4);
    CHECK_EQ_U(a.n_live, 5);
    CHECK(!a.interval[0].u.interval.has_reason && a.interval[0].u.interval.reason == 0 &&
          a.interval[0].u.interval.epoch == 0);
    CHECK(a.interval[1].u.interval.has_reason && a.interval[1].u.interval.interval == 8192 &&
          a.interval[1].u.interval.reason == MSAMP_INTERVAL_LIVE_HIGH &&
          a.interval[1].u.interval.epoch == 7);
    CHECK(a.interval[2].u.interval.reason == MSAMP_INTERVAL_BUCKET_FULL &&
          a.interval[2].u.interval.epoch == 8);
    CHECK(!a.live[0].u.live.has_interval && a.live[0].u.live.interval == 0 &&
          !a.live[0].u.live.has_addr);
    CHECK(a.live[1].u.live.has_interval && a.live[1].u.live.interval == 4096 &&
          !a.live[1].u.live.has_addr);
    CHECK(a.live[3].u.live.has_addr && a.live[3].u.live.addr == 0x1000 &&
          !a.live[3].u.live.has_interval);
    CHECK(a.live[4].u.live.has_addr && a.live[4].u.live.addr == 0x2000 &&
          a.live[4].u.live.has_interval && a.live[4].u.live.interval == 1024);
    buf_free(&s);

    /* Cut records stay malformed: INTERVAL without dt, INTERVAL with a reason but no epoch (the
     * clock, which its dt would have moved, becomes unknown), LIVE without birth. */
    rec_session(&r, 0, 0x5eed, 0, 8);
    rec_v(&r, MSAMP_REC_TIME, 1, U(100));
    rec_v(&r, MSAMP_REC_INTERVAL, 1, U(4096));
    rec_v(&r, MSAMP_REC_TIME, 1, U(200));
    rec_v(&r, MSAMP_REC_INTERVAL, 3, U(8192), U(5), U(1));
    rec_v(&r, MSAMP_REC_LIVE, 3, U(0), U(100), U(1));
    rec_v(&r, MSAMP_REC_INTERVAL, 4, U(8192), U(5), U(1), U(2));
    put_frame(&s, 0, &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &st);
    CHECK_EQ_U(st.records_malformed, 3);
    CHECK(strstr(text, "INTERVAL interval=4096") == NULL);
    CHECK(strstr(text, "LIVE") == NULL);
    CHECK(strstr(text, "INTERVAL interval=8192 dt=5 reason=1 epoch=2 @ts=?\n") != NULL);
    free(text);
    buf_free(&s);
}

/* Wire version 2's short forms: a dt of 0 left out at the end of a payload (a cut record in a
 * version-1 session), and the empty FREE: the slot the frame's latest ALLOC or REALLOC filled, at
 * dt 0, in a session of either version (version 1 never sends one) and before any SESSION; with no
 * such slot in its frame (none yet, the frame's first record, or an empty FREE took it) it is
 * malformed. */
static void test_version2(void)
{
    struct buf s = { 0 }, r = { 0 };
    session_version = 2;
    rec_v(&r, MSAMP_REC_ALLOC, 3, U(5), U(64), U(1));      /* before any SESSION: dt 0 */
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });       /* slot 4 */
    put_frame(&s, 0, &r);
    rec_session(&r, 0, 0x2, 0, 8);
    rec_v(&r, MSAMP_REC_TIME, 1, U(100));
    rec_v(&r, MSAMP_REC_ALLOC, 3, U(3), U(48), U(1));
    rec_v(&r, MSAMP_REC_ALLOC, 4, U(9), U(48), U(1), U(2));
    rec_v(&r, MSAMP_REC_FREE, 1, U(2));                    /* dt left out */
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });       /* slot 8 */
    rec_v(&r, MSAMP_REC_REALLOC, 4, U(0), U(7), U(900), U(1));
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });       /* slot 6 */
    put_frame(&s, 1, &r);
    CHECK_DECODE(&s, MSAMP_PRINT_TIME,
                 "frame seq=0\n"
                 "ALLOC slot1=5 size=64 stack=1 dt=0 @ts=?\n"
                 "FREE slot=4 dt=0 @ts=?\n"
                 "frame seq=1\n"
                 "SESSION version=2 flags=0x00 session_id=0x00000002 resend_seq=0 arch=aarch64 "
                 "ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c @ts=?\n"
                 "TIME ts=100 @ts=100\n"
                 "ALLOC slot1=3 size=48 stack=1 dt=0 @ts=100\n"
                 "ALLOC slot1=9 size=48 stack=1 dt=2 @ts=102\n"
                 "FREE slot=2 dt=0 @ts=102\n"
                 "FREE slot=8 dt=0 @ts=102\n"
                 "REALLOC old_slot=0 new_slot1=7 size=900 stack=1 dt=0 @ts=102\n"
                 "FREE slot=6 dt=0 @ts=102\n");
    buf_free(&s);

    /* Malformed: an empty FREE after the empty FREE that took the slot, after an ALLOC without a
     * slot, first in a frame (the slot of the frame before is not its), and a dt left out in a
     * version-1 session. */
    rec_session(&r, 0, 0x2, 0, 8);
    rec_v(&r, MSAMP_REC_ALLOC, 3, U(3), U(48), U(1));
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });
    rec_v(&r, MSAMP_REC_ALLOC, 3, U(0), U(48), U(1));
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });
    rec_v(&r, MSAMP_REC_ALLOC, 3, U(4), U(48), U(1));
    put_frame(&s, 0, &r);
    rec_put(&r, MSAMP_REC_FREE, &(struct buf){ 0 });
    put_frame(&s, 1, &r);
    session_version = 1;
    rec_session(&r, 0, 0x2, 1, 8);
    rec_v(&r, MSAMP_REC_ALLOC, 3, U(5), U(48), U(1));
    rec_v(&r, MSAMP_REC_FREE, 1, U(4));
    rec_v(&r, MSAMP_REC_FREE, 2, U(4), U(0));
    put_frame(&s, 2, &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, 0, &st);
    CHECK_EQ_U(st.records_malformed, 5);
    CHECK(strstr(text, "FREE slot=2 dt=0\nALLOC slot1=0") != NULL);
    CHECK(strstr(text, "frame seq=1\nframe seq=2\n") != NULL);
    CHECK(strstr(text, "ALLOC slot1=4 size=48 stack=1 dt=0\nframe seq=1") != NULL);
    CHECK(strstr(text, "resend_seq=1") != NULL && strstr(text, "FREE slot=4 dt=0\n") != NULL);
    free(text);
    buf_free(&s);
}

/* Unknown trailing fields are ignored; unknown types (15 with a type >= 16) skipped. */
static void test_forward_compat(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    session_payload(&p, 0, 1, 1, 8, 0);
    buf_put(&p, "\x05" "dev-1", 6); /* the optional [device_id_len device_id] */
    buf_varint(&p, 777);              /* a field of a later version */
    rec_put(&r, MSAMP_REC_SESSION, &p);
    buf_free(&p);
    rec_v(&r, MSAMP_REC_ALLOC, 6, U(1), U(8), U(2), U(3), U(0x1234), U(99));
    rec_v(&r, MSAMP_REC_FREE, 4, U(0), U(1), U(0), U(55)); /* [moved] 0, then a later field */
    rec_v(&r, MSAMP_REC_TIME, 2, U(50), U(1));
    rec_v(&r, MSAMP_REC_FAIL, 6, U(0), U(100), U(2), U(4), U(1), U(9)); /* + a later field */
    rec_v(&r, MSAMP_REC_EXTENDED, 3, U(40), U(300), U(1));
    rec_v(&r, MSAMP_REC_EXTENDED, 1, U(1000000));
    buf_put(&p, "\x0f", 1); /* an extended type below 16 is malformed */
    buf_put(&p, "0123456789abcdef", 16);
    rec_put(&r, MSAMP_REC_EXTENDED, &p);
    buf_free(&p);
    rec_v(&r, MSAMP_REC_SNAP_END, 3, U(2), U(0), U(5));
    put_frame(&s, 0, &r);
    CHECK_DECODE(&s, MSAMP_PRINT_TIME,
                 "frame seq=0\n"
                 "SESSION version=1 flags=0x00 session_id=0x00000001 resend_seq=1 arch=aarch64 "
                 "ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id= device_id=\"dev-1\" @ts=?\n"
                 "ALLOC slot1=1 size=8 stack=2 dt=3 @ts=?\n"
                 "FREE slot=0 dt=1 @ts=?\n"
                 "TIME ts=50 @ts=50\n"
                 "FAIL kind=0 size=100 stack=2 dt=4 count=1 @ts=54\n"
                 "UNKNOWN type=40 len=3 @ts=54\n"
                 "UNKNOWN type=1000000 len=0 @ts=54\n"
                 "SNAP_END pass=2 count=0 @ts=54\n");
    struct msamp_dec_stats st;
    free(decode(s.p, s.len, 0, 0, &st));
    CHECK_EQ_U(st.records_unknown, 2);
    CHECK_EQ_U(st.records_malformed, 1);
    buf_free(&s);
}

/* SESSION's optional device id: absent, whole (printed with \xHH for other bytes), and the three
 * malformed forms (length 0, above MSAMP_WIRE_MAX_DEVICE_ID, cut short). */
static void test_device_id(void)
{
    static const struct {
        const char *field;
        size_t len;
        int ok;
        const char *want;
    } cases[] = {
        {"", 0, 1, "build_id= @ts=?\n"},
        {"\x03" "a\"\x01", 4, 1, "build_id= device_id=\"a\\x22\\x01\" @ts=?\n"},
        {"\x20" "0123456789abcdef0123456789abcdef", 33, 1,
         "build_id= device_id=\"0123456789abcdef0123456789abcdef\" @ts=?\n"},
        {"\x00", 1, 0, NULL},
        {"\x21" "0123456789abcdef0123456789abcdef!", 34, 0, NULL},
        {"\x04" "abc", 4, 0, NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct buf s = {0}, r = {0}, p = {0};
        session_payload(&p, 0, 1, 1, 8, 0);
        buf_put(&p, cases[i].field, cases[i].len);
        rec_put(&r, MSAMP_REC_SESSION, &p);
        buf_free(&p);
        put_frame(&s, 0, &r);
        struct msamp_dec_stats st;
        char *text = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &st);
        CHECK_EQ_U(st.records_malformed, cases[i].ok ? 0u : 1u);
        if (cases[i].ok)
            CHECK(strstr(text, cases[i].want) != NULL);
        else
            CHECK(strstr(text, "SESSION") == NULL);
        free(text);
        buf_free(&s);
    }
}

static void test_stack_wrap(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    /* Before any SESSION frames wrap modulo 2^64. */
    buf_varint(&p, 1);
    buf_varint(&p, 3);
    buf_varint(&p, UINT64_C(0xffffffffffffff00));
    buf_svarint(&p, 0x200);
    buf_svarint(&p, -0x300);
    rec_put(&r, MSAMP_REC_STACK, &p);
    buf_free(&p);
    rec_session(&r, 0, 9, 0, 4);
    /* 32-bit: wrap modulo 2^32 both ways; frame0 is reduced too. */
    buf_varint(&p, 2);
    buf_varint(&p, 4);
    buf_varint(&p, 0xfffffff0u);
    buf_svarint(&p, 0x20);
    buf_svarint(&p, -0x20);
    buf_svarint(&p, INT64_C(-0x100000000));
    rec_put(&r, MSAMP_REC_STACK, &p);
    buf_free(&p);
    buf_varint(&p, 3);
    buf_varint(&p, 2);
    buf_varint(&p, UINT64_C(0x1800000010));
    buf_svarint(&p, -0x20);
    rec_put(&r, MSAMP_REC_STACK, &p);
    buf_free(&p);
    put_frame(&s, 0, &r);
    CHECK_DECODE(&s, 0,
                 "frame seq=0\n"
                 "STACK id=1 depth=3 frames=0xffffffffffffff00,0x100,0xfffffffffffffe00\n"
                 "SESSION version=1 flags=0x00 session_id=0x00000009 resend_seq=0 arch=aarch64 "
                 "ptr_size=4 tick_hz=10000 interval=4096 live_capacity=256 stack_capacity=128 "
                 "max_depth=32 build_id=0a1b2c\n"
                 "STACK id=2 depth=4 frames=0xfffffff0,0x10,0xfffffff0,0xfffffff0\n"
                 "STACK id=3 depth=2 frames=0x10,0xfffffff0\n");
    buf_free(&s);
}

static void test_stack_limits(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    for (int depth = 255; depth <= 257; depth++) {
        buf_varint(&p, (uint64_t)depth);
        buf_varint(&p, (uint64_t)depth);
        buf_varint(&p, 0x1000);
        for (int i = 1; i < depth; i++)
            buf_svarint(&p, 4);
        rec_put(&r, MSAMP_REC_STACK, &p);
        buf_free(&p);
    }
    rec_v(&r, MSAMP_REC_STACK, 3, U(0), U(1), U(0x10)); /* id 0 is never defined */
    rec_v(&r, MSAMP_REC_STACK, 2, U(5), U(0));          /* depth 0 */
    rec_v(&r, MSAMP_REC_STACK, 4, U(5), U(3), U(1), U(2)); /* a frame missing */
    put_frame(&s, 0, &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, 0, &st);
    CHECK(strstr(text, "STACK id=255 depth=255 frames=0x1000,0x1004,") != NULL);
    CHECK(strstr(text, ",0x13f8\nSTACK id=256 depth=256 frames=0x1000,") != NULL);
    CHECK(strstr(text, ",0x13fc\n") != NULL);
    CHECK(strstr(text, "id=257") == NULL);
    CHECK(strstr(text, "id=0") == NULL);
    CHECK(strstr(text, "id=5") == NULL);
    CHECK_EQ_U(st.records, 2);
    CHECK_EQ_U(st.records_malformed, 4);
    CHECK_EQ_U(st.frames_ok, 1);
    free(text);
    buf_free(&s);
}

/* ---- varints ---- */

static void test_varints(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    rec_v(&r, MSAMP_REC_TIME, 1, UINT64_MAX); /* 10 bytes, the last 0x01 */
    static const uint8_t eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                      0x80, 0x80, 0x80, 0x80, 0x00 };
    buf_put(&p, eleven, sizeof(eleven));
    rec_put(&r, MSAMP_REC_TIME, &p);
    buf_free(&p);
    static const uint8_t overflow[] = { 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0x02 };
    buf_put(&p, overflow, sizeof(overflow));
    rec_put(&r, MSAMP_REC_TIME, &p);
    buf_free(&p);
    static const uint8_t bit63[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
    buf_put(&p, bit63, sizeof(bit63));
    rec_put(&r, MSAMP_REC_TIME, &p);
    buf_free(&p);
    static const uint8_t padded[] = { 0x85, 0x80, 0x00 }; /* non-minimal but valid: 5 */
    buf_put(&p, padded, sizeof(padded));
    rec_put(&r, MSAMP_REC_TIME, &p);
    buf_free(&p);
    static const uint8_t cut[] = { 0x01, 0x85 }; /* FREE whose dt varint is cut by the length */
    buf_put(&p, cut, sizeof(cut));
    rec_put(&r, MSAMP_REC_FREE, &p);
    buf_free(&p);
    rec_v(&r, MSAMP_REC_SNAP_END, 1, U(1)); /* count missing */
    rec_v(&r, MSAMP_REC_TIME, 1, U(77));
    put_frame(&s, 0, &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &st);
    CHECK_TEXT(text, "frame seq=0\n"
                     "TIME ts=18446744073709551615 @ts=18446744073709551615\n"
                     "TIME ts=9223372036854775808 @ts=9223372036854775808\n"
                     "TIME ts=5 @ts=5\n"
                     "TIME ts=77 @ts=77\n");
    CHECK_EQ_U(st.records_malformed, 4);
    CHECK(msamp_dec_stats_damaged(&st));
    free(text);
    buf_free(&s);

    /* A record length that is itself a bad varint, or longer than the frame, ends the frame. */
    static const uint8_t bad_len[] = { 0xF3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0x01 };
    rec_v(&r, MSAMP_REC_TIME, 1, U(1));
    buf_put(&r, bad_len, sizeof(bad_len));
    rec_v(&r, MSAMP_REC_TIME, 1, U(2));
    put_frame(&s, 0, &r);
    rec_v(&r, MSAMP_REC_TIME, 1, U(3));
    buf_u8(&r, 0xF3);
    buf_varint(&r, 1000);
    buf_u8(&r, 0x11);
    put_frame(&s, 1, &r);
    rec_v(&r, MSAMP_REC_TIME, 1, U(4));
    buf_u8(&r, 0x00); /* type 0: the frame is corrupt from here */
    rec_v(&r, MSAMP_REC_TIME, 1, U(5));
    put_frame(&s, 2, &r);
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_TEXT(text, "frame seq=0\nTIME ts=1\nframe seq=1\nTIME ts=3\nframe seq=2\nTIME ts=4\n");
    CHECK_EQ_U(st.records_malformed, 3);
    CHECK_EQ_U(st.frames_ok, 3);
    free(text);
    buf_free(&s);

    /* A varint cut by its record's end, the frame's last record or not, after a longer frame whose
     * bytes (each ends a varint) are still in the decoder's buffer past the short frame's end: the
     * decoder reads a varint before it checks its end, and must not take those bytes for it. */
    static const size_t cuts[] = { 1, 2, 3, 4, 9, 10 };
    char want[8192];
    size_t wn = 0;
    for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
        uint8_t seq = (uint8_t)(3 * c);
        for (int i = 0; i < 100; i++)
            rec_v(&r, MSAMP_REC_TIME, 1, U(1));
        put_frame(&s, seq, &r);
        wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "frame seq=%u\n", seq);
        for (int i = 0; i < 100; i++)
            wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "TIME ts=1\n");
        uint8_t cont[10];
        memset(cont, 0xFF, sizeof(cont));
        buf_put(&p, cont, cuts[c]);
        rec_v(&r, MSAMP_REC_TIME, 1, U(5));
        rec_put(&r, MSAMP_REC_TIME, &p); /* cut, the frame's last record */
        put_frame(&s, (uint8_t)(seq + 1u), &r);
        rec_put(&r, MSAMP_REC_TIME, &p); /* cut, a record follows */
        buf_free(&p);
        rec_v(&r, MSAMP_REC_TIME, 1, U(77));
        put_frame(&s, (uint8_t)(seq + 2u), &r);
        wn += (size_t)snprintf(want + wn, sizeof(want) - wn,
                               "frame seq=%u\nTIME ts=5\nframe seq=%u\nTIME ts=77\n", seq + 1u,
                               seq + 2u);
    }
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_TEXT(text, want);
    CHECK_EQ_U(st.records_malformed, 2 * sizeof(cuts) / sizeof(cuts[0]));
    free(text);
    buf_free(&s);
}

static void test_session_limits(void)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    session_payload(&p, 0, 1, 0, 8, MSAMP_WIRE_MAX_BUILD_ID);
    rec_put(&r, MSAMP_REC_SESSION, &p);
    buf_free(&p);
    session_payload(&p, 0, 1, 0, 8, MSAMP_WIRE_MAX_BUILD_ID + 1);
    rec_put(&r, MSAMP_REC_SESSION, &p);
    buf_free(&p);
    session_payload(&p, 0, 1, 0, 16, 0); /* no 16-byte pointers in v1 */
    rec_put(&r, MSAMP_REC_SESSION, &p);
    buf_free(&p);
    session_payload(&p, 0, 1, 0, 8, 4);
    p.len -= 1; /* build-id cut short */
    rec_put(&r, MSAMP_REC_SESSION, &p);
    buf_free(&p);
    buf_varint(&p, 1);
    buf_varint(&p, 2);
    buf_varint(&p, 0);
    buf_u8(&p, 0);
    buf_varint(&p, 5); /* path longer than the payload */
    buf_put(&p, "abc", 3);
    rec_put(&r, MSAMP_REC_MAPPING, &p);
    buf_free(&p);
    put_frame(&s, 0, &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, 0, &st);
    char want[2 * MSAMP_WIRE_MAX_BUILD_ID + 16] = "build_id=";
    for (unsigned i = 0; i < MSAMP_WIRE_MAX_BUILD_ID; i++)
        snprintf(want + 9 + 2 * i, 3, "%02x", (uint8_t)(0x0a + i * 0x11));
    strcat(want, "\n");
    CHECK(strstr(text, want) != NULL);
    CHECK_EQ_U(st.records, 1);
    CHECK_EQ_U(st.records_malformed, 4);
    free(text);
    buf_free(&s);
}

/* ---- framing ---- */

static struct buf sample_stream(int frames)
{
    struct buf s = { 0 }, r = { 0 }, p = { 0 };
    for (int f = 0; f < frames; f++) {
        if (f == 0)
            rec_session(&r, 0, 0xabcdef01u, 0, 8);
        rec_v(&r, MSAMP_REC_TIME, 1, U(1000 * f));
        buf_varint(&p, (uint64_t)f + 1);
        buf_varint(&p, 40);
        buf_varint(&p, 0x400000 + (uint64_t)f * 0x1000);
        for (int i = 1; i < 40; i++)
            buf_svarint(&p, (i & 1) ? -(int64_t)(i * 97) : i * 1031);
        rec_put(&r, MSAMP_REC_STACK, &p);
        buf_free(&p);
        for (int i = 0; i < f % 5 + 1; i++)
            rec_v(&r, MSAMP_REC_ALLOC, 4, U(i + 1), U(16 + i), U(f + 1), U(i));
        rec_v(&r, MSAMP_REC_FREE, 2, U(f % 3), U(2));
        put_frame(&s, (uint8_t)f, &r);
    }
    return s;
}

static void test_chunking(void)
{
    struct buf s = sample_stream(12);
    struct msamp_dec_stats whole, st;
    char *want = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &whole);
    size_t chunks[] = { 1, 2, 3, 7, 64, 255, 4096 };
    for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
        char *got = decode(s.p, s.len, chunks[k], MSAMP_PRINT_TIME, &st);
        CHECK_TEXT(got, want);
        CHECK(memcmp(&st, &whole, sizeof(st)) == 0);
        free(got);
    }
    CHECK_EQ_U(whole.frames_ok, 12);
    CHECK(!msamp_dec_stats_damaged(&whole));
    free(want);
    buf_free(&s);
}

struct offsets {
    uint64_t off[64];
    uint32_t len[64];
    int n;
};

static void on_frame_offset(void *arg, const struct msamp_record *rec)
{
    struct offsets *o = arg;
    if (rec->type == MSAMP_DEC_FRAME && o->n < 64) {
        o->off[o->n] = rec->u.frame.offset;
        o->len[o->n++] = rec->u.frame.enc_len;
    }
}

static void test_frame_offsets(void)
{
    struct buf s = sample_stream(3);
    struct offsets o = { .n = 0 };
    struct msamp_dec *d = msamp_dec_new(on_frame_offset, &o);
    static const uint8_t lead[] = { 0, 0, 0 };
    msamp_dec_feed(d, lead, sizeof(lead));
    for (size_t i = 0; i < s.len; i++)
        msamp_dec_feed(d, s.p + i, 1);
    msamp_dec_finish(d);
    CHECK_EQ_U(o.n, 3);
    CHECK_EQ_U(o.off[0], 3);
    size_t end0 = 3 + o.len[0];
    CHECK(s.p[end0 - 3] == 0 && s.p[end0 - 4] != 0);
    CHECK_EQ_U(o.off[1], end0 + 1);
    CHECK_EQ_U(o.off[2], o.off[1] + o.len[1] + 1);
    CHECK_EQ_U(o.off[2] + o.len[2] + 1, s.len + 3);
    CHECK(!msamp_dec_stats_damaged(msamp_dec_stats(d)));
    msamp_dec_free(d);
    buf_free(&s);
}

static void test_resync(void)
{
    struct buf s = { 0 }, r = { 0 };
    static const uint8_t garbage[] = { 0x13, 0x37, 0xfe, 0x02, 0x99 };
    buf_put(&s, garbage, sizeof(garbage)); /* the tail of a frame sent before we attached */
    buf_u8(&s, 0);
    rec_v(&r, MSAMP_REC_TIME, 1, U(10));
    put_frame(&s, 40, &r);
    buf_put(&s, garbage, sizeof(garbage)); /* noise between frames */
    buf_u8(&s, 0);
    buf_put(&s, "\0\0\0", 3);              /* filler between frames is not damage */
    rec_v(&r, MSAMP_REC_FREE, 2, U(1), U(5));
    put_frame(&s, 41, &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &st);
    CHECK_TEXT(text, "# loss bytes=6\n"
                     "frame seq=40\n"
                     "TIME ts=10 @ts=10\n"
                     "# loss bytes=6\n"
                     "frame seq=41\n"
                     "FREE slot=1 dt=5 @ts=?\n");
    CHECK_EQ_U(st.bytes_discarded, 12);
    CHECK_EQ_U(st.frames_bad, 1); /* bytes before the first 0x00 are not a bad frame */
    CHECK_EQ_U(st.frames_ok, 2);
    CHECK_EQ_U(st.frames_lost, 0);
    free(text);
    buf_free(&s);

    /* A bad CRC drops the frame whole; the next one decodes. */
    rec_v(&r, MSAMP_REC_TIME, 1, U(1));
    put_frame(&s, 0, &r);
    size_t cut = s.len;
    rec_v(&r, MSAMP_REC_TIME, 1, U(2));
    put_frame(&s, 1, &r);
    s.p[cut + 2] ^= 0x40;
    rec_v(&r, MSAMP_REC_TIME, 1, U(3));
    put_frame(&s, 2, &r);
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_TEXT(text, "frame seq=0\nTIME ts=1\n# loss bytes=9\n# lost frames=1\nframe seq=2\n"
                     "TIME ts=3\n");
    CHECK_EQ_U(st.frames_bad, 1);
    CHECK_EQ_U(st.frames_lost, 1);
    free(text);
    buf_free(&s);

    /* Too short for seq + crc, and a COBS group running past the end. */
    static const uint8_t shorty[] = { 0x03, 0x01, 0x02, 0x00, 0x09, 0x01, 0x02, 0x00 };
    free(decode(shorty, sizeof(shorty), 0, 0, &st));
    CHECK_EQ_U(st.frames_ok, 0);
    CHECK_EQ_U(st.frames_bad, 1);
    CHECK_EQ_U(st.bytes_discarded, 8);
}

static void test_seq(void)
{
    struct buf s = { 0 }, r = { 0 };
    static const uint8_t seqs[] = { 250, 251, 255, 0, 1, 1, 3 };
    for (size_t i = 0; i < sizeof(seqs); i++)
        put_frame(&s, seqs[i], &r);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len, 0, 0, &st);
    /* The second seq 1 is the first one again (same CRC): a repeat, dropped. */
    CHECK_TEXT(text, "frame seq=250\nframe seq=251\n# lost frames=3\nframe seq=255\nframe seq=0\n"
                     "frame seq=1\n# lost frames=1\nframe seq=3\n");
    CHECK_EQ_U(st.frames_lost, 4);
    CHECK_EQ_U(st.frames_repeated, 1);
    free(text);
    buf_free(&s);

    /* Another frame with the seq just seen is 255 frames later: a gap, not a repeat. */
    put_frame(&s, 1, &r);
    rec_v(&r, MSAMP_REC_TIME, 1, U(9));
    put_frame(&s, 1, &r);
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_TEXT(text, "frame seq=1\n# lost frames=255\nframe seq=1\nTIME ts=9\n");
    CHECK_EQ_U(st.frames_lost, 255);
    CHECK_EQ_U(st.frames_repeated, 0);
    free(text);
    buf_free(&s);

    /* A duplicated run brings back a frame a few frames old whole: dropped once, whatever its
     * distance among the latest 16; its records are not decoded twice. */
    for (unsigned i = 0; i < 6; i++) {
        rec_v(&r, MSAMP_REC_FREE, 2, U(i), U(1));
        put_frame(&s, (uint8_t)(10 + i), &r);
    }
    size_t third = 0;
    for (size_t i = 0, z = 0; i < s.len; i++)
        if (s.p[i] == 0 && ++z == 2)
            third = i + 1; /* start of the third frame (seq 12) */
    size_t fifth = 0;
    for (size_t i = 0, z = 0; i < s.len; i++)
        if (s.p[i] == 0 && ++z == 4)
            fifth = i + 1; /* end of the fourth frame (seq 13) */
    buf_put(&s, s.p + third, fifth - third);
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_TEXT(text, "frame seq=10\nFREE slot=0 dt=1\nframe seq=11\nFREE slot=1 dt=1\n"
                     "frame seq=12\nFREE slot=2 dt=1\nframe seq=13\nFREE slot=3 dt=1\n"
                     "frame seq=14\nFREE slot=4 dt=1\nframe seq=15\nFREE slot=5 dt=1\n");
    CHECK_EQ_U(st.frames_repeated, 2);
    CHECK_EQ_U(st.frames_lost, 0);
    free(text);
    buf_free(&s);

    /* A boot frame forgets the frames before it: a boot that sends its first frames again, the
     * same bytes (a replay a reset cut, then sent whole), has none of them dropped as repeats,
     * wherever the memory's next slot was at the boot (15 frames, then the boot's seq 1 in the
     * memory's slot 0, the next slot 1 at the second boot). */
    for (unsigned i = 0; i < 15; i++)
        put_frame(&s, (uint8_t)(40 + i), &r);
    for (unsigned k = 0; k < 2; k++) {
        rec_session(&r, 0, 0x5eed, 0, 8);
        put_frame(&s, 0, &r);
        rec_v(&r, MSAMP_REC_FREE, 2, U(7), U(1));
        put_frame(&s, 1, &r);
    }
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_EQ_U(st.frames_repeated, 0);
    CHECK_EQ_U(st.frames_ok, 19);
    CHECK(strstr(strstr(text, "FREE slot=7 dt=1\n") + 1, "FREE slot=7 dt=1\n") != NULL);
    free(text);
    buf_free(&s);

    /* A frame heard bad and brought back whole by a repeated run after newer frames is late: it
     * stays counted lost (once), is dropped as a repeat, and is not read as 254 lost frames. A
     * frame behind the latest whose seq was heard (another CRC) is not late: a gap as before. */
    size_t bad_at = 0, bad_end = 0;
    for (unsigned i = 0; i < 6; i++) {
        rec_v(&r, MSAMP_REC_FREE, 2, U(i), U(1));
        if (i == 2)
            bad_at = s.len;
        put_frame(&s, (uint8_t)(20 + i), &r);
        if (i == 2)
            bad_end = s.len;
    }
    buf_put(&s, s.p + bad_at, bad_end - bad_at); /* seq 22 again, whole */
    s.p[bad_at + 2] ^= 0x40;                     /* the first seq 22 heard bad */
    rec_v(&r, MSAMP_REC_FREE, 2, U(9), U(1));
    put_frame(&s, 24, &r);
    text = decode(s.p, s.len, 0, 0, &st);
    CHECK_TEXT(text, "frame seq=20\nFREE slot=0 dt=1\nframe seq=21\nFREE slot=1 dt=1\n"
                     "# loss bytes=10\n# lost frames=1\nframe seq=23\nFREE slot=3 dt=1\n"
                     "frame seq=24\nFREE slot=4 dt=1\nframe seq=25\nFREE slot=5 dt=1\n"
                     "# lost frames=254\nframe seq=24\nFREE slot=9 dt=1\n");
    CHECK_EQ_U(st.frames_bad, 1);
    CHECK_EQ_U(st.frames_repeated, 1);
    CHECK_EQ_U(st.frames_lost, 255);
    free(text);
    buf_free(&s);

    /* A gap makes the clock unknown until the next absolute time. */
    rec_v(&r, MSAMP_REC_TIME, 1, U(500));
    put_frame(&s, 3, &r);
    rec_v(&r, MSAMP_REC_FREE, 2, U(1), U(4));
    put_frame(&s, 5, &r);
    rec_v(&r, MSAMP_REC_SNAP_BEGIN, 2, U(1), U(600));
    rec_v(&r, MSAMP_REC_FREE, 2, U(1), U(4));
    put_frame(&s, 6, &r);
    text = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &st);
    CHECK_TEXT(text, "frame seq=3\nTIME ts=500 @ts=500\n# lost frames=1\nframe seq=5\n"
                     "FREE slot=1 dt=4 @ts=?\nframe seq=6\nSNAP_BEGIN pass=1 ts=600 @ts=600\n"
                     "FREE slot=1 dt=4 @ts=604\n");
    free(text);
    buf_free(&s);

    /* A device reset: seq restarts at 0 with SESSION resend_seq 0 first; not a gap. The clock
     * restarts too. A re-send (resend_seq > 0) of the same session keeps it. */
    rec_v(&r, MSAMP_REC_TIME, 1, U(100));
    put_frame(&s, 8, &r);
    rec_session(&r, 0, 5, 3, 8);
    rec_v(&r, MSAMP_REC_FREE, 2, U(1), U(1));
    put_frame(&s, 9, &r);
    rec_session(&r, 0, 5, 0, 8);
    rec_v(&r, MSAMP_REC_FREE, 2, U(1), U(1));
    put_frame(&s, 0, &r);
    rec_v(&r, MSAMP_REC_TIME, 1, U(7));
    put_frame(&s, 1, &r);
    rec_session(&r, 0, 6, 4, 8); /* another device, mid-session */
    put_frame(&s, 2, &r);
    rec_session(&r, 0, 6, 5, 8); /* its re-send, at a seq of 0: a gap, no reset */
    put_frame(&s, 0, &r);
    text = decode(s.p, s.len, 0, MSAMP_PRINT_TIME, &st);
    CHECK_TEXT(text,
               "frame seq=8\nTIME ts=100 @ts=100\n"
               "frame seq=9\nSESSION version=1 flags=0x00 session_id=0x00000005 resend_seq=3 "
               "arch=aarch64 ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 "
               "stack_capacity=128 max_depth=32 build_id=0a1b2c @ts=100\n"
               "FREE slot=1 dt=1 @ts=101\n"
               "frame seq=0\nSESSION version=1 flags=0x00 session_id=0x00000005 resend_seq=0 "
               "arch=aarch64 ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 "
               "stack_capacity=128 max_depth=32 build_id=0a1b2c @ts=?\n"
               "FREE slot=1 dt=1 @ts=?\n"
               "frame seq=1\nTIME ts=7 @ts=7\n"
               "frame seq=2\nSESSION version=1 flags=0x00 session_id=0x00000006 resend_seq=4 "
               "arch=aarch64 ptr_size=8 tick_hz=10000 interval=4096 live_capacity=256 "
               "stack_capacity=128 max_depth=32 build_id=0a1b2c @ts=?\n"
               "# lost frames=253\nframe seq=0\nSESSION version=1 flags=0x00 "
               "session_id=0x00000006 resend_seq=5 arch=aarch64 ptr_size=8 tick_hz=10000 "
               "interval=4096 live_capacity=256 stack_capacity=128 max_depth=32 "
               "build_id=0a1b2c @ts=?\n");
    CHECK_EQ_U(st.frames_lost, 253);
    free(text);
    buf_free(&s);
}

static void test_truncated_and_oversized(void)
{
    struct buf s = sample_stream(2);
    struct msamp_dec_stats st;
    char *text = decode(s.p, s.len - 7, 0, 0, &st);
    CHECK_EQ_U(st.frames_ok, 1);
    CHECK(st.bytes_discarded > 0);
    CHECK_EQ_U(st.frames_bad, 0);
    CHECK(strstr(text, "# loss bytes=") != NULL);
    CHECK(strstr(text, "frame seq=1") == NULL);
    free(text);
    buf_free(&s);

    /* Bodies of exactly MSAMP_WIRE_MAX_BODY bytes pass, one byte more is dropped. */
    for (size_t body = MSAMP_WIRE_MAX_BODY; body <= MSAMP_WIRE_MAX_BODY + 1; body++) {
        struct buf r = { 0 }, p = { 0 };
        size_t payload = body - 1 - 4 - 1 - 2; /* seq, crc, hdr, 2-byte length */
        for (size_t i = 0; i < payload; i++)
            buf_u8(&p, (uint8_t)('a' + i % 26));
        rec_put(&r, MSAMP_REC_MARK, &p);
        buf_free(&p);
        put_frame(&s, 0, &r);
        put_frame(&s, 1, &r);
        text = decode(s.p, s.len, 0, 0, &st);
        if (body == MSAMP_WIRE_MAX_BODY) {
            CHECK_EQ_U(st.frames_ok, 2);
            CHECK(!msamp_dec_stats_damaged(&st));
        } else {
            CHECK_EQ_U(st.frames_ok, 1);
            CHECK(st.bytes_discarded > MSAMP_WIRE_MAX_BODY);
            CHECK(strncmp(text, "# loss bytes=", 13) == 0);
        }
        free(text);
        buf_free(&s);
    }

    /* A megabyte without a 0x00 uses bounded memory and is discarded at the end. */
    uint8_t *noise = malloc(1u << 20);
    memset(noise, 0x41, 1u << 20);
    free(decode(noise, 1u << 20, 0, 0, &st));
    CHECK_EQ_U(st.bytes_discarded, 1u << 20);
    CHECK_EQ_U(st.frames_ok, 0);
    free(noise);
}

/* ---- every varint record of the list in msamp_wire.h ---- */

/* A record of the list as a test sees it: its fields' kinds and labels, in wire order. */
struct list_field {
    const char *kind, *label;
};
struct list_record {
    const char *name;
    unsigned type;
    struct list_field fields[16];
    unsigned n;
};
#define LIST_FIELD(m, kind, field, label) { #kind, #label },
#define LIST_VARINT(NAME, number, m)                                                     \
    { #NAME, number, { MSAMP_WIRE_FIELDS_##NAME(LIST_FIELD, m) },                        \
      sizeof((struct list_field[]){ MSAMP_WIRE_FIELDS_##NAME(LIST_FIELD, m) }) /          \
          sizeof(struct list_field) },
#define LIST_NONE(NAME, number, m)
static const struct list_record list[] = { MSAMP_WIRE_RECORDS(LIST_NONE, LIST_VARINT) };

static int list_optional(const char *kind)
{
    return !strcmp(kind, "ADDR") || !strcmp(kind, "OPT") || !strcmp(kind, "FLAG") ||
           !strcmp(kind, "WITH");
}

/* The payload of record r with its first n fields (field i holds 1 + i, FLAG 1), and in *want the
 * line msamp-dump prints for it (empty when n cuts a required field: malformed). */
static void list_payload(const struct list_record *r, unsigned n, struct buf *p, char *want,
                         size_t cap)
{
    size_t at = (size_t)snprintf(want, cap, "%s", r->name);
    if (r->type >= 16)
        buf_varint(p, r->type);
    for (unsigned i = 0; i < n; i++) {
        const struct list_field *f = &r->fields[i];
        uint64_t v = !strcmp(f->kind, "FLAG") ? 1 : 1 + i;
        buf_varint(p, v);
        at += (size_t)snprintf(want + at, cap - at, !strcmp(f->kind, "ADDR") ? " %s=0x%" PRIx64
                                                                             : " %s=%" PRIu64,
                               f->label, v);
    }
    snprintf(want + at, cap - at, "\n");
}

/* Each varint record, built from its field list alone: with all its fields, with each count of
 * them down to its required ones (optional fields absent: the listing leaves them out; a WITH
 * field without its pair's first is not a count a device sends), and cut before each required
 * field (malformed, nothing listed, the rest of the frame read). So a record added to the list is
 * decoded and listed by name without a line of the decoder or the listing written for it. */
static void test_record_list(void)
{
    CHECK(sizeof list / sizeof list[0] >= 10);
    for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) {
        const struct list_record *r = &list[k];
        unsigned req = 0;
        while (req < r->n && !list_optional(r->fields[req].kind))
            req++;
        for (unsigned n = 0; n <= r->n; n++) {
            if (n > req && n < r->n && !strcmp(r->fields[n].kind, "WITH"))
                continue;
            struct buf s = { 0 }, recs = { 0 }, p = { 0 };
            char want[512], line[600];
            rec_session(&recs, MSAMP_SESSION_FLAG_ADDRESSES, 1, 1, 8);
            list_payload(r, n, &p, want, sizeof want);
            rec_put(&recs, r->type >= 16 ? MSAMP_REC_EXTENDED : r->type, &p);
            buf_free(&p);
            rec_v(&recs, MSAMP_REC_SNAP_END, 2, U(7), U(8));
            put_frame(&s, 0, &recs);
            struct msamp_dec_stats st;
            char *got = decode(s.p, s.len, 0, 0, &st);
            const char *rest = strchr(got, '\n') ? strchr(strchr(got, '\n') + 1, '\n') : NULL;
            snprintf(line, sizeof line, "%s%s", n < req ? "" : want, "SNAP_END pass=7 count=8\n");
            check_text(r->name, (int)n, rest ? rest + 1 : got, line);
            CHECK_EQ_U(st.records_malformed, n < req);
            free(got);
            buf_free(&s);
        }
    }
}

int main(void)
{
    test_crc();
    test_cobs();
    test_all_records();
    test_addresses_and_long_records();
    test_adaptive_fields();
    test_version2();
    test_forward_compat();
    test_device_id();
    test_stack_wrap();
    test_stack_limits();
    test_varints();
    test_session_limits();
    test_chunking();
    test_frame_offsets();
    test_resync();
    test_seq();
    test_truncated_and_oversized();
    test_record_list();
    printf("decoder-unit: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
