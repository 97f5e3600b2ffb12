/* The frame writer and the ring (msamp_internal.h). Producers hold the port lock, so they are
 * serialised; the one consumer (msamp_poll) runs without it. A frame is written COBS-encoded and
 * CRC'd byte by byte straight into the ring past the published head; the head moves past it with
 * a release store only once it is closed whole, as SEGGER RTT publishes its write index, so the
 * consumer never reads a half-written frame and a producer never overwrites unread bytes. It
 * never blocks: an event that does not fit is taken back whole and counted. */
#include "msamp_internal.h"

#define W msamp_core.w
#define RING_MASK (MSAMP_CFG_RING_SIZE - 1u)
/* A dt that needs more than two varint bytes is preceded by an absolute TIME record. */
#define DT_LIMIT (1u << 14)
/* Ring bytes a close may write beyond an event: the CRC's four (each a byte or a block's code)
 * and a code byte if a block fills in them, then the delimiter. */
#define CLOSE_RESERVE 6u
/* The largest event: a sample (a TIME, a FREE of a stale slot, a full STACK, a REALLOC with an
 * address) or a MAPPING. A frame holds fewer than MSAMP_CFG_FRAME_BYTES body bytes before its
 * last event. */
#define PTR_VARINT ((sizeof(uintptr_t) * 8u + 6u) / 7u)
#define SAMPLE_MAX                                                                                 \
    ((1u + MSAMP_WIRE_MAX_VARINT) + (1u + 2u * PTR_VARINT) +                                       \
     (MSAMP_WIRE_MAX_REC_HEADER + 10u + MSAMP_CFG_MAX_DEPTH * PTR_VARINT) + (1u + 6u * PTR_VARINT))
/* A MAPPING, the largest record an identity event holds. */
#define MAPPING_MAX                                                                                \
    (MSAMP_WIRE_MAX_REC_HEADER + 3u * PTR_VARINT + 1u + MSAMP_WIRE_MAX_BUILD_ID + 2u +               \
     MSAMP_MAPPING_PATH_MAX)
/* A SESSION with the longest build-id and device id (u32 varints: 5 bytes each). */
#define SESSION_MAX                                                                                \
    (MSAMP_WIRE_MAX_REC_HEADER + 6u + 5u + 2u + 5u * 5u + 1u + MSAMP_WIRE_MAX_BUILD_ID + 1u +      \
     MSAMP_WIRE_MAX_DEVICE_ID)
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#if MSAMP_CFG_MAPPINGS
#define EVENT_MAX MAX2(MAX2(SAMPLE_MAX, MAPPING_MAX), SESSION_MAX)
#else
#define EVENT_MAX MAX2(SAMPLE_MAX, SESSION_MAX)
#endif
#define BODY_MAX (MSAMP_CFG_FRAME_BYTES + EVENT_MAX + MSAMP_WIRE_CRC_SIZE)
_Static_assert(BODY_MAX <= MSAMP_WIRE_MAX_BODY, "a frame could exceed the wire maximum");
_Static_assert(BODY_MAX + BODY_MAX / 254u + 2u <= MSAMP_CFG_RING_SIZE,
               "MSAMP_CFG_RING_SIZE below one frame: raise it or lower MSAMP_CFG_FRAME_BYTES");

struct msamp_core msamp_core;

/* Stores a byte at ring index i unless it would land on bytes not yet consumed: an event that
 * does not fit is written in part, never published, and taken back. */
static void ring_at(uint32_t i, uint32_t b)
{
    if (i - W.wt < MSAMP_CFG_RING_SIZE)
        msamp_core.ring[i & RING_MASK] = (uint8_t)b;
}

/* Ends the open COBS block (its code is its length + 1) and opens the next. */
MSAMP_NOINLINE static void block(void)
{
    ring_at(W.code_at, W.code);
    W.code_at = W.wh++;
    W.code = 1;
}

#if MSAMP_CFG_CRC_TABLE == 2
/* A byte table, 1 KiB of constants computed by the compiler: one lookup per byte. */
#define CRC1(c) ((c) >> 1 ^ (0xEDB88320u & (0u - ((c)&1u))))
#define CRC8(c) CRC1(CRC1(CRC1(CRC1(CRC1(CRC1(CRC1(CRC1(c))))))))
#define CRC_2(n) CRC8(n), CRC8((n) + 1u)
#define CRC_8(n) CRC_2(n), CRC_2((n) + 2u), CRC_2((n) + 4u), CRC_2((n) + 6u)
#define CRC_32(n) CRC_8(n), CRC_8((n) + 8u), CRC_8((n) + 16u), CRC_8((n) + 24u)
#define CRC_128(n) CRC_32(n), CRC_32((n) + 32u), CRC_32((n) + 64u), CRC_32((n) + 96u)
static const uint32_t crc_byte[256] = {CRC_128(0u), CRC_128(128u)};
#elif MSAMP_CFG_CRC_TABLE
/* Nibble table: 64 bytes of constants instead of 1 KiB, about 2x the cost of a byte table. */
static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u,
    0x4DB26158u, 0x5005713Cu, 0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};
#endif

/* One byte of the frame body: into the CRC (IEEE, reflected), then COBS-encoded into the ring. A
 * block holds at most 254 non-zero bytes; one shorter than that stands for the zero that ends it. */
MSAMP_HOT static void emit(uint32_t b)
{
    b &= 0xFFu;
    uint32_t c = W.crc ^ b;
#if MSAMP_CFG_CRC_TABLE == 2
    c = (c >> 8) ^ crc_byte[c & 0xFFu];
#elif MSAMP_CFG_CRC_TABLE
    c = (c >> 4) ^ crc_nibble[c & 0x0Fu];
    c = (c >> 4) ^ crc_nibble[c & 0x0Fu];
#else
    for (unsigned k = 0; k < 8u; k++)
        c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
#endif
    W.crc = c;
    W.n++;
    if (W.code == 0xFFu)
        block();
    if (b == 0) {
        block();
    } else {
        ring_at(W.wh++, b);
        W.code++;
    }
}

static uint32_t varint_size(uint64_t v)
{
    uint32_t n = 1;
    for (; v >= 0x80u; v >>= 7)
        n++;
    return n;
}

MSAMP_HOT static void put_varint(uint64_t v)
{
    for (; v >= 0x80u; v >>= 7)
        emit((uint32_t)v | 0x80u);
    emit((uint32_t)v);
}

/* A sizing sink only counts; a writing one only writes (nobody reads its count). */
void msamp_sink_byte(struct msamp_sink *s, uint32_t b)
{
    if (s->sizing)
        s->n++;
    else
        emit(b);
}

void msamp_sink_varint(struct msamp_sink *s, uint64_t v)
{
    if (s->sizing)
        s->n += varint_size(v);
    else
        put_varint(v);
}

void msamp_sink_bytes(struct msamp_sink *s, const void *p, uint32_t n)
{
    const uint8_t *b = p;
    if (s->sizing) {
        s->n += n;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        emit(b[i]);
}

void msamp_writer_boot(void)
{
    if (!W.open) {
        ring_at(W.wh++, 0);
        atomic_store_explicit(&msamp_core.head, W.wh, memory_order_release);
    }
}

void msamp_writer_close(void)
{
    if (!W.open)
        return;
    uint32_t crc = ~W.crc;
    for (unsigned i = 0; i < MSAMP_WIRE_CRC_SIZE; i++)
        emit(crc >> (8u * i));
    ring_at(W.code_at, W.code);
    ring_at(W.wh++, 0); /* the delimiter */
    W.open = 0;
    msamp_core.seq++;
#if MSAMP_CFG_RESEND_BYTES
    _Static_assert((MSAMP_CFG_RESEND_BYTES & (MSAMP_CFG_RESEND_BYTES - 1)) == 0,
                   "MSAMP_CFG_RESEND_BYTES: a power of two");
    /* The frame crossed a multiple of MSAMP_CFG_RESEND_BYTES (it starts at the published head). */
    uint32_t start = atomic_load_explicit(&msamp_core.head, memory_order_relaxed);
    if (((start ^ W.wh) & ~(MSAMP_CFG_RESEND_BYTES - 1u)) != 0)
        W.identity_due = 1;
#endif
    atomic_store_explicit(&msamp_core.head, W.wh, memory_order_release);
}

void msamp_event_begin(struct msamp_writer *mark)
{
    W.wt = atomic_load_explicit(&msamp_core.tail, memory_order_acquire);
    if (W.n >= MSAMP_CFG_FRAME_BYTES)
        msamp_writer_close();
    /* Before a frame is opened: one whose opening event does not fit is taken back with it (its
     * seq byte may not have reached the ring), so an open frame always has room to close. */
    *mark = W;
    if (!W.open) {
        W.open = 1;
        W.code_at = W.wh++;
        W.code = 1;
        W.crc = 0xFFFFFFFFu;
        W.n = 0;
        W.records = 0;
        emit(msamp_core.seq);
    }
}

/* A record's header for a payload of len bytes. */
static void header(unsigned type, uint32_t len)
{
    W.records++;
    if (len <= MSAMP_WIRE_LEN_INLINE_MAX) {
        emit(type | len << 4);
    } else {
        emit(type | MSAMP_WIRE_LEN_EXTENDED << 4);
        put_varint(len);
    }
}

void msamp_event_record(unsigned type, msamp_layout_fn fn, const void *arg)
{
    struct msamp_sink s = {0, 1};
    fn(&s, arg);
    header(type, s.n);
    s.sizing = 0;
    fn(&s, arg);
}

void msamp_event_varints(unsigned type, const uintptr_t *v, uint32_t n)
{
    uint32_t len = 0;
    for (uint32_t i = 0; i < n; i++)
        len += varint_size(v[i]);
    header(type, len);
    for (uint32_t i = 0; i < n; i++)
        put_varint(v[i]);
}

uintptr_t msamp_event_stamp(void)
{
    uint64_t ts = msamp_now();
    uint64_t d = ts - W.ts;
    if (ts < W.ts || d >= DT_LIMIT) {
        struct msamp_varints64 f = {&ts, 1};
        msamp_event_record(MSAMP_REC_TIME, msamp_layout_varints64, &f);
        d = 0;
    }
    W.ts = ts;
    return (uintptr_t)d;
}

int msamp_event_end(const struct msamp_writer *mark, int lossy)
{
    if (W.wh - W.wt + CLOSE_RESERVE <= MSAMP_CFG_RING_SIZE)
        return 0;
    if (lossy) {
        /* The event's records and bytes (not the seq of a frame it opened). */
        msamp_core.count[MSAMP_DROP_RING_RECORDS] += W.records - (mark->open ? mark->records : 0u);
        msamp_core.count[MSAMP_DROP_RING_BYTES] += W.n - (mark->open ? mark->n : 1u);
    }
    W = *mark;
    return -1;
}

uint32_t msamp_ring_used(void)
{
    return W.wh - atomic_load_explicit(&msamp_core.tail, memory_order_relaxed);
}

uint32_t msamp_ring_pending(void)
{
    return atomic_load_explicit(&msamp_core.head, memory_order_acquire) -
           atomic_load_explicit(&msamp_core.tail, memory_order_relaxed);
}

int msamp_ring_empty(void)
{
    return !W.open &&
           atomic_load_explicit(&msamp_core.head, memory_order_acquire) ==
               atomic_load_explicit(&msamp_core.tail, memory_order_relaxed);
}

int msamp_ring_drain(void)
{
    int total = 0;
    while (total < (int)MSAMP_CFG_RING_SIZE) {
        uint32_t tail = atomic_load_explicit(&msamp_core.tail, memory_order_relaxed);
        uint32_t avail = atomic_load_explicit(&msamp_core.head, memory_order_acquire) - tail;
        uint32_t run = MSAMP_CFG_RING_SIZE - (tail & RING_MASK);
        if (avail == 0)
            break;
        int w = msamp_transport_write(&msamp_core.ring[tail & RING_MASK], avail < run ? avail : run);
        if (w < 0)
            return MSAMP_ERR_IO;
        if (w == 0)
            break;
        atomic_store_explicit(&msamp_core.tail, tail + (uint32_t)w, memory_order_release);
        total += w;
    }
    return total;
}
