/* The frame writer and the ring (msamp_internal.h). Producers hold the port lock, so they are
 * serialised; the one consumer (msamp_poll) runs without it. A frame is written COBS-encoded and
 * CRC'd byte by byte straight into the ring past the published head; the head moves past it with
 * a release store only once it is closed whole, as SEGGER RTT publishes its write index, so the
 * consumer never reads a half-written frame and a producer never overwrites unread bytes. It
 * never blocks: an event that does not fit is taken back whole and counted. */
#include "msamp_internal.h"

#define W msamp_core.w
#define RING_MASK (MSAMP_CFG_RING_SIZE - 1u)
/* The ring's tail when the event began: in the writer, or beside it (struct msamp_writer). */
#if MSAMP_CFG_EMPTY_FREE
#define WT msamp_core.wt
#else
#define WT W.wt
#endif
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
_Static_assert(UINTPTR_MAX > 0xFFFFFFFFu || sizeof(struct msamp_writer) <= 32u,
               "an event's mark above 32 bytes: a memcpy call per event on some 32-bit targets");

/* Stores a byte at ring index i unless it would land on bytes not yet consumed: an event that
 * does not fit is written in part, never published, and taken back. */
static void ring_at(uint32_t i, uint32_t b)
{
    if (i - WT < MSAMP_CFG_RING_SIZE)
        msamp_core.ring[i & RING_MASK] = (uint8_t)b;
}

/* The same out of line where code size comes first, for the writes of code bytes and delimiters
 * (emit's own, one per byte, stays inline). */
MSAMP_SMALL_NOINLINE static void ring_put(uint32_t i, uint32_t b)
{
    ring_at(i, b);
}

/* Ends the open COBS block (its code is its length + 1) and opens the next. */
MSAMP_NOINLINE static void block(void)
{
    ring_put(W.code_at, W.code);
    W.code_at = W.wh++;
    W.code = 1;
}

#if MSAMP_CFG_CRC_TABLE == 2
/* A byte table, 1 KiB of constants: one lookup per byte (entry n is n run through the CRC's 8
 * bit steps; written out, since generating it with macros made this file the slowest of the core
 * to compile by far). */
static const uint32_t crc_byte[256] = {
    0x00000000u, 0x77073096u, 0xEE0E612Cu, 0x990951BAu, 0x076DC419u, 0x706AF48Fu,
    0xE963A535u, 0x9E6495A3u, 0x0EDB8832u, 0x79DCB8A4u, 0xE0D5E91Eu, 0x97D2D988u,
    0x09B64C2Bu, 0x7EB17CBDu, 0xE7B82D07u, 0x90BF1D91u, 0x1DB71064u, 0x6AB020F2u,
    0xF3B97148u, 0x84BE41DEu, 0x1ADAD47Du, 0x6DDDE4EBu, 0xF4D4B551u, 0x83D385C7u,
    0x136C9856u, 0x646BA8C0u, 0xFD62F97Au, 0x8A65C9ECu, 0x14015C4Fu, 0x63066CD9u,
    0xFA0F3D63u, 0x8D080DF5u, 0x3B6E20C8u, 0x4C69105Eu, 0xD56041E4u, 0xA2677172u,
    0x3C03E4D1u, 0x4B04D447u, 0xD20D85FDu, 0xA50AB56Bu, 0x35B5A8FAu, 0x42B2986Cu,
    0xDBBBC9D6u, 0xACBCF940u, 0x32D86CE3u, 0x45DF5C75u, 0xDCD60DCFu, 0xABD13D59u,
    0x26D930ACu, 0x51DE003Au, 0xC8D75180u, 0xBFD06116u, 0x21B4F4B5u, 0x56B3C423u,
    0xCFBA9599u, 0xB8BDA50Fu, 0x2802B89Eu, 0x5F058808u, 0xC60CD9B2u, 0xB10BE924u,
    0x2F6F7C87u, 0x58684C11u, 0xC1611DABu, 0xB6662D3Du, 0x76DC4190u, 0x01DB7106u,
    0x98D220BCu, 0xEFD5102Au, 0x71B18589u, 0x06B6B51Fu, 0x9FBFE4A5u, 0xE8B8D433u,
    0x7807C9A2u, 0x0F00F934u, 0x9609A88Eu, 0xE10E9818u, 0x7F6A0DBBu, 0x086D3D2Du,
    0x91646C97u, 0xE6635C01u, 0x6B6B51F4u, 0x1C6C6162u, 0x856530D8u, 0xF262004Eu,
    0x6C0695EDu, 0x1B01A57Bu, 0x8208F4C1u, 0xF50FC457u, 0x65B0D9C6u, 0x12B7E950u,
    0x8BBEB8EAu, 0xFCB9887Cu, 0x62DD1DDFu, 0x15DA2D49u, 0x8CD37CF3u, 0xFBD44C65u,
    0x4DB26158u, 0x3AB551CEu, 0xA3BC0074u, 0xD4BB30E2u, 0x4ADFA541u, 0x3DD895D7u,
    0xA4D1C46Du, 0xD3D6F4FBu, 0x4369E96Au, 0x346ED9FCu, 0xAD678846u, 0xDA60B8D0u,
    0x44042D73u, 0x33031DE5u, 0xAA0A4C5Fu, 0xDD0D7CC9u, 0x5005713Cu, 0x270241AAu,
    0xBE0B1010u, 0xC90C2086u, 0x5768B525u, 0x206F85B3u, 0xB966D409u, 0xCE61E49Fu,
    0x5EDEF90Eu, 0x29D9C998u, 0xB0D09822u, 0xC7D7A8B4u, 0x59B33D17u, 0x2EB40D81u,
    0xB7BD5C3Bu, 0xC0BA6CADu, 0xEDB88320u, 0x9ABFB3B6u, 0x03B6E20Cu, 0x74B1D29Au,
    0xEAD54739u, 0x9DD277AFu, 0x04DB2615u, 0x73DC1683u, 0xE3630B12u, 0x94643B84u,
    0x0D6D6A3Eu, 0x7A6A5AA8u, 0xE40ECF0Bu, 0x9309FF9Du, 0x0A00AE27u, 0x7D079EB1u,
    0xF00F9344u, 0x8708A3D2u, 0x1E01F268u, 0x6906C2FEu, 0xF762575Du, 0x806567CBu,
    0x196C3671u, 0x6E6B06E7u, 0xFED41B76u, 0x89D32BE0u, 0x10DA7A5Au, 0x67DD4ACCu,
    0xF9B9DF6Fu, 0x8EBEEFF9u, 0x17B7BE43u, 0x60B08ED5u, 0xD6D6A3E8u, 0xA1D1937Eu,
    0x38D8C2C4u, 0x4FDFF252u, 0xD1BB67F1u, 0xA6BC5767u, 0x3FB506DDu, 0x48B2364Bu,
    0xD80D2BDAu, 0xAF0A1B4Cu, 0x36034AF6u, 0x41047A60u, 0xDF60EFC3u, 0xA867DF55u,
    0x316E8EEFu, 0x4669BE79u, 0xCB61B38Cu, 0xBC66831Au, 0x256FD2A0u, 0x5268E236u,
    0xCC0C7795u, 0xBB0B4703u, 0x220216B9u, 0x5505262Fu, 0xC5BA3BBEu, 0xB2BD0B28u,
    0x2BB45A92u, 0x5CB36A04u, 0xC2D7FFA7u, 0xB5D0CF31u, 0x2CD99E8Bu, 0x5BDEAE1Du,
    0x9B64C2B0u, 0xEC63F226u, 0x756AA39Cu, 0x026D930Au, 0x9C0906A9u, 0xEB0E363Fu,
    0x72076785u, 0x05005713u, 0x95BF4A82u, 0xE2B87A14u, 0x7BB12BAEu, 0x0CB61B38u,
    0x92D28E9Bu, 0xE5D5BE0Du, 0x7CDCEFB7u, 0x0BDBDF21u, 0x86D3D2D4u, 0xF1D4E242u,
    0x68DDB3F8u, 0x1FDA836Eu, 0x81BE16CDu, 0xF6B9265Bu, 0x6FB077E1u, 0x18B74777u,
    0x88085AE6u, 0xFF0F6A70u, 0x66063BCAu, 0x11010B5Cu, 0x8F659EFFu, 0xF862AE69u,
    0x616BFFD3u, 0x166CCF45u, 0xA00AE278u, 0xD70DD2EEu, 0x4E048354u, 0x3903B3C2u,
    0xA7672661u, 0xD06016F7u, 0x4969474Du, 0x3E6E77DBu, 0xAED16A4Au, 0xD9D65ADCu,
    0x40DF0B66u, 0x37D83BF0u, 0xA9BCAE53u, 0xDEBB9EC5u, 0x47B2CF7Fu, 0x30B5FFE9u,
    0xBDBDF21Cu, 0xCABAC28Au, 0x53B39330u, 0x24B4A3A6u, 0xBAD03605u, 0xCDD70693u,
    0x54DE5729u, 0x23D967BFu, 0xB3667A2Eu, 0xC4614AB8u, 0x5D681B02u, 0x2A6F2B94u,
    0xB40BBE37u, 0xC30C8EA1u, 0x5A05DF1Bu, 0x2D02EF8Du,
};
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
    /* The eight steps of the bitwise CRC at once, without a table: the byte's share of the
     * polynomial (taps 0, 1, 2, 4, 5, 7, 8, 10, 11, 12, 16, 22, 23, 26 of the reflected 0xEDB88320)
     * as shifts of low = s ^ (s << 6), three of them by multiplies (Stephan Brumme's
     * crc32_1byte_tableless: the same CRC as the loop, about 15 instructions instead of 40;
     * test-unit-writer_bitwise checks its frames against the bitwise form on random bytes). */
    uint32_t low = (c ^ c << 6) & 0xFFu;
    uint32_t a = low * ((1u << 23) + (1u << 14) + (1u << 2));
    c = (c >> 8) ^ low * ((1u << 24) + (1u << 16) + (1u << 8)) ^ a ^ a >> 1 ^
        low * ((1u << 20) + (1u << 12)) ^ low << 19 ^ low << 17 ^ low >> 2;
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

/* The same for a word (the records of msamp_event_varints), in word arithmetic. */
static uint32_t word_size(uintptr_t v)
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

/* A sizing sink only counts; a writing one only writes (nobody reads its count). Where code size
 * comes first a sink always writes: msamp_event_record sizes a record by writing it and taking
 * it back. */
void msamp_sink_byte(struct msamp_sink *s, uint32_t b)
{
    if (!MSAMP_CFG_SMALL_CODE && s->sizing)
        s->n++;
    else
        emit(b);
}

void msamp_sink_varint(struct msamp_sink *s, uint64_t v)
{
    if (!MSAMP_CFG_SMALL_CODE && s->sizing)
        s->n += varint_size(v);
    else
        put_varint(v);
}

void msamp_sink_bytes(struct msamp_sink *s, const void *p, uint32_t n)
{
    const uint8_t *b = p;
    if (!MSAMP_CFG_SMALL_CODE && s->sizing) {
        s->n += n;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        emit(b[i]);
}

/* From msamp_init only, once: no frame is open before it (nothing writes before the core is
 * initialised, and it stays initialised). */
void msamp_writer_boot(void)
{
    ring_put(W.wh++, 0);
    atomic_store_explicit(&msamp_core.head, W.wh, memory_order_release);
}

void msamp_writer_close(void)
{
    if (!W.open)
        return;
    uint32_t crc = ~W.crc;
    for (unsigned i = 0; i < MSAMP_WIRE_CRC_SIZE; i++)
        emit(crc >> (8u * i));
    ring_put(W.code_at, W.code);
    ring_put(W.wh++, 0); /* the delimiter */
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
    WT = atomic_load_explicit(&msamp_core.tail, memory_order_acquire);
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
#if MSAMP_CFG_EMPTY_FREE
        W.last_slot1 = 0;
#endif
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
#if MSAMP_CFG_SMALL_CODE
    /* Sized by writing it, then taking it back (the bytes went past the published head, into
     * the open frame, and are written again at once), without a sink that also counts: what
     * emit() moves, as it was. */
    struct msamp_sink *s = NULL; /* a sink that writes: no state */
    uint32_t wh = W.wh, code_at = W.code_at, crc = W.crc, n = W.n, code = W.code;
    fn(s, arg);
    uint32_t len = (uint16_t)(W.n - n);
    W.wh = wh, W.code_at = code_at, W.crc = crc, W.n = (uint16_t)n, W.code = (uint8_t)code;
#else
    struct msamp_sink sizing = {0, 1}, writing = {0, 0}, *s = &writing;
    fn(&sizing, arg);
    uint32_t len = sizing.n;
#endif
    header(type, len);
    fn(s, arg);
}

void msamp_event_varints(unsigned type, const uintptr_t *v, uint32_t n)
{
    uint32_t len = 0;
    for (uint32_t i = 0; i < n; i++)
        len += word_size(v[i]);
    header(type, len);
    for (uint32_t i = 0; i < n; i++) {
        uintptr_t x = v[i]; /* put_varint's loop in word arithmetic, without its call */
        for (; x >= 0x80u; x >>= 7)
            emit((uint32_t)x | 0x80u);
        emit((uint32_t)x);
    }
}

uintptr_t msamp_event_stamp(void)
{
    uint64_t ts = msamp_now();
    uint64_t d = ts - W.ts;
    if (ts < W.ts || d >= DT_LIMIT) {
#if MSAMP_CFG_SMALL_CODE
        /* TIME = ts without a layout sized twice (36 bytes less on a Cortex-M3); elsewhere the
         * header and varint writer would be copied here, inlined. */
        struct msamp_sink s = {0, 0};
        header(MSAMP_REC_TIME, varint_size(ts));
        msamp_sink_varint(&s, ts);
#else
        struct msamp_varints64 f = {&ts, 1};
        msamp_event_record(MSAMP_REC_TIME, msamp_layout_varints64, &f);
#endif
        d = 0;
    }
    W.ts = ts;
    return (uintptr_t)d;
}

int msamp_event_end(const struct msamp_writer *mark, int lossy)
{
    /* After END nothing is recorded (a sampled block freed then passes through): taken back, not
     * counted as lost. */
    int ended = msamp_core.initialised == MSAMP_ENDED;
    if (!ended && W.wh - WT + CLOSE_RESERVE <= MSAMP_CFG_RING_SIZE)
        return 0;
    if (lossy && !ended) {
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

#if MSAMP_CFG_LINK_BYTES_PER_S
/* The bytes the link's budget allows now: its credit at MSAMP_CFG_LINK_BYTES_PER_S, a burst of an
 * eighth of a second's worth (at least 16 bytes). */
static uint32_t budget(void)
{
    uint32_t burst = MSAMP_CFG_LINK_BYTES_PER_S / 8u > 16u ? MSAMP_CFG_LINK_BYTES_PER_S / 8u : 16u;
    return msamp_pace_credit(&msamp_core.pace, (uint32_t)msamp_now(),
                             msamp_pace_ticks_per_byte(msamp_tick_hz(), MSAMP_CFG_LINK_BYTES_PER_S),
                             burst);
}
#endif

int msamp_ring_drain(void)
{
    int total = 0;
#if MSAMP_CFG_LINK_BYTES_PER_S
    uint32_t allowed = budget();
#else
    uint32_t allowed = MSAMP_CFG_RING_SIZE;
#endif
    uint32_t left = msamp_ring_pending();
    while ((uint32_t)total < allowed) {
        uint32_t tail = atomic_load_explicit(&msamp_core.tail, memory_order_relaxed);
        uint32_t avail = atomic_load_explicit(&msamp_core.head, memory_order_acquire) - tail;
        uint32_t run = MSAMP_CFG_RING_SIZE - (tail & RING_MASK);
        left = avail;
        if (avail == 0)
            break;
        if (run > avail)
            run = avail;
        if (run > allowed - (uint32_t)total)
            run = allowed - (uint32_t)total;
        int w = msamp_transport_write(&msamp_core.ring[tail & RING_MASK], run);
        if (w < 0)
            return MSAMP_ERR_IO;
        if (w == 0)
            break;
        atomic_store_explicit(&msamp_core.tail, tail + (uint32_t)w, memory_order_release);
        total += w;
        left -= (uint32_t)w;
    }
#if MSAMP_CFG_LINK_BYTES_PER_S
    msamp_core.pace.credit -= (uint32_t)total;
#endif
#if MSAMP_LINK_ADAPT
    /* What the link did not take: the adaptive interval's signal (msamp_adapt.c). */
    atomic_store_explicit(&msamp_core.backlog, left, memory_order_relaxed);
#endif
    (void)left;
    return total;
}
