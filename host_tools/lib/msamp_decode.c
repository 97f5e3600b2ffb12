/* Host decoder of the msamp wire format (v1 and v2). See msamp_decode.h and docs/WIRE_FORMAT.md. */
#include "msamp_decode.h"

#include <stdlib.h>
#include <string.h>

#define BODY_MIN (1u + MSAMP_WIRE_CRC_SIZE) /* seq + crc */
_Static_assert(MSAMP_COBS_SLACK >= MSAMP_WIRE_MAX_VARINT, "a varint is read whole past an end");
/* Latest frames remembered to drop repeats. */
#define MSAMP_DEC_RECENT 16u

struct msamp_dec {
    msamp_record_fn fn;
    void *arg;
    struct msamp_dec_stats st;

    /* The frame being received (encoded, up to its 0x00), and its decoded body. */
    /* Each with slack past its end: COBS copies a short group in one move of MSAMP_COBS_SLACK
     * bytes (msamp_cobs_decode_padded), a varint is decoded before its end is checked
     * (rd_varint). */
    uint8_t enc[MSAMP_WIRE_MAX_ENCODED + MSAMP_COBS_SLACK];
    uint8_t body[MSAMP_WIRE_MAX_BODY + MSAMP_COBS_SLACK];
    size_t body_len;
    uint32_t body_crc; /* the CRC it carries (checked) */
    uint64_t chunk_bytes; /* encoded bytes of the frame so far; beyond enc[] it is too long */
    uint64_t chunk_start; /* stream offset of its first byte */
    int synced;           /* a 0x00 has been seen: the next byte starts a frame */

    int have_seq;
    uint8_t last_seq;
    /* The seq and CRC of the latest frames: a line that repeats bytes (a duplicated run) brings a
     * frame back whole, valid; it is dropped, not decoded twice. */
    uint32_t recent_crc[MSAMP_DEC_RECENT];
    uint8_t recent_seq[MSAMP_DEC_RECENT];
    unsigned recent_n, recent_at;
    /* The seqs counted lost among the 32 before last_seq (bit i: last_seq - 1 - i): a frame that
     * was bad when sent and comes back whole in a repeated run arrives after newer ones; it is
     * late, not the start of 254 lost frames. */
    uint32_t missed;

    int have_session;
    uint32_t session_id;
    uint8_t ptr_size;
    uint8_t flags;
    uint8_t version; /* the session's wire version (SESSION.version) */

    uint64_t now; /* the clock: absolute time of the last timed record */
    int now_valid;

    uint64_t frames[MSAMP_DEC_MAX_DEPTH];
};

struct msamp_dec *msamp_dec_new(msamp_record_fn fn, void *arg)
{
    struct msamp_dec *d = calloc(1, sizeof(*d));
    if (d == NULL)
        return NULL;
    d->fn = fn;
    d->arg = arg;
    d->ptr_size = 8;
    return d;
}

void msamp_dec_free(struct msamp_dec *d)
{
    free(d);
}

const struct msamp_dec_stats *msamp_dec_stats(const struct msamp_dec *d)
{
    return &d->st;
}

int msamp_dec_stats_damaged(const struct msamp_dec_stats *st)
{
    return st->frames_bad != 0 || st->frames_lost != 0 || st->bytes_discarded != 0 ||
           st->records_malformed != 0;
}

/* Field readers: every read is checked, and an error sticks until the record is dropped: it sets
 * err and moves p to end, so that every later read fails too. Every reader reads d->body, which
 * has MSAMP_WIRE_MAX_VARINT bytes of slack past any record's end: a varint is decoded from the
 * bytes there and then checked against the end, one test instead of one a byte. */

struct rd {
    const uint8_t *p, *end;
    int err;
};

static size_t rd_left(const struct rd *r)
{
    return (size_t)(r->end - r->p);
}

static inline void rd_fail(struct rd *r)
{
    r->err = 1;
    r->p = r->end;
}

static uint8_t rd_u8(struct rd *r)
{
    if (r->p == r->end) {
        rd_fail(r);
        return 0;
    }
    return *r->p++;
}

static uint32_t rd_u32le(struct rd *r)
{
    if (rd_left(r) < 4) {
        rd_fail(r);
        return 0;
    }
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
                 (uint32_t)r->p[3] << 24;
    r->p += 4;
    return v;
}

/* A varint's value and length (0: not a varint, its 10th byte holds more than bit 63). */
struct varint {
    uint64_t v;
    size_t n;
};

/* Unsigned LEB128 at p, whatever the end: at most 10 bytes, and the 10th may only hold bit 63. */
static struct varint varint_long(const uint8_t *p)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < MSAMP_WIRE_MAX_VARINT - 1; i++) {
        uint64_t b = p[i];
        v |= (b & 0x7Fu) << (7 * i);
        if (b < 0x80u)
            return (struct varint){ v, i + 1u };
    }
    if (p[9] <= 1u)
        return (struct varint){ v | (uint64_t)p[9] << 63, MSAMP_WIRE_MAX_VARINT };
    return (struct varint){ 0, 0 };
}

/* Most fields are one to three bytes (sizes, slots, time steps, stack ids): those inline, the
 * rest out of line. The readers and the record's parser are inlined into parse_records (callgrind:
 * a parser out of line costs more than the calls saved). A varint that runs past the end is an
 * error, as one cut short. */
static inline __attribute__((always_inline)) uint64_t rd_varint(struct rd *r)
{
    const uint8_t *p = r->p;
    uint64_t v = p[0];
    size_t n = 1;
    if (v >= 0x80u) {
        v = (v & 0x7Fu) | (uint64_t)p[1] << 7;
        n = 2;
        if (p[1] >= 0x80u) {
            if (p[2] < 0x80u) {
                v = (v & 0x3FFFu) | (uint64_t)p[2] << 14;
                n = 3;
            } else {
                struct varint x = varint_long(p);
                if (x.n == 0) {
                    rd_fail(r);
                    return 0;
                }
                v = x.v;
                n = x.n;
            }
        }
    }
    const uint8_t *q = p + n; /* inside the slack */
    if (q > r->end) {
        rd_fail(r);
        return 0;
    }
    r->p = q;
    return v;
}

static uint64_t rd_svarint(struct rd *r)
{
    uint64_t z = rd_varint(r);
    return (z >> 1) ^ (0 - (z & 1u));
}

static const uint8_t *rd_bytes(struct rd *r, uint64_t n)
{
    if (n > rd_left(r)) {
        rd_fail(r);
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    return p;
}

/* record: a record of the stream (counted), not one of the decoder's events. */
static inline __attribute__((always_inline)) void emit(struct msamp_dec *d,
                                                       struct msamp_record *rec, int record)
{
    rec->ts = d->now_valid ? d->now : 0;
    rec->ts_valid = d->now_valid;
    if (record)
        d->st.records++;
    if (d->fn)
        d->fn(d->arg, rec);
}

static void clock_lost(struct msamp_dec *d)
{
    d->now_valid = 0;
    d->now = 0;
}

static void clock_set(struct msamp_dec *d, uint64_t ts)
{
    d->now = ts;
    d->now_valid = 1;
}

static void clock_add(struct msamp_dec *d, uint64_t dt)
{
    if (d->now_valid)
        d->now += dt;
}

/* What a record's fields do to the clock: bit 0 a dt advances it (DT), bit 1 an absolute time sets
 * it (TS). A malformed record with either leaves the clock unknown. */
#define TIME_REQ 0
#define TIME_DT 1
#define TIME_TS 2
#define TIME_ID16 0
#define TIME_ADDR 0
#define TIME_OPT 0
#define TIME_FLAG 0
#define TIME_WITH 0
#define TIME_FIELD(m, kind, field, label) | TIME_##kind
#define TIME_RECORD(NAME, number, m) \
    case MSAMP_REC_##NAME:                                  \
        return 0 MSAMP_WIRE_FIELDS_##NAME(TIME_FIELD, m);
#define TIME_NONE(NAME, number, m)

static int time_fields(int type)
{
    switch (type) {
        MSAMP_WIRE_RECORDS(TIME_NONE, TIME_RECORD)
    default:
        return 0;
    }
}

/* The optional [addr] is read when the session says addresses are sent, or, before any SESSION,
 * whenever bytes remain (a v1 payload holds nothing else there). */
static int want_addr(const struct msamp_dec *d, const struct rd *r)
{
    if (rd_left(r) == 0)
        return 0;
    return !d->have_session || (d->flags & MSAMP_SESSION_FLAG_ADDRESSES);
}

/* From wire version 2 a dt of 0 that would end the payload is left out; before any SESSION the
 * version is unknown and a payload that ends there is read so too. In a version 1 session it is
 * a cut record (malformed). */
static inline int dt_may_be_left_out(const struct msamp_dec *d)
{
    return !d->have_session || d->version >= 2u;
}

static uint64_t ptr_mask(const struct msamp_dec *d)
{
    return d->ptr_size >= 8 ? UINT64_MAX : ((uint64_t)1 << (8u * d->ptr_size)) - 1u;
}

/* One statement per field KIND of the records' field lists (include/msamp_wire.h). `on`: the latest
 * optional field was present (a WITH field comes with it). */
#define RD_REQ(m, field) rec->u.m.field = rd_varint(r);
#define RD_VERSION(m, field) rec->u.m.field = rd_u8(r);
#define RD_U8(m, field) rec->u.m.field = rd_u8(r);
#define RD_U32LE(m, field) rec->u.m.field = rd_u32le(r);
#define RD_DT(m, field)                                     \
    if (r->p != r->end || !dt_may_be_left_out(d))           \
        rec->dt = rd_varint(r); /* else it stays 0 */
#define RD_TS(m, field)                                     \
    rec->u.m.field = rd_varint(r);                          \
    if (!r->err)                                            \
        clock_set(d, rec->u.m.field);
#define RD_ID16(m, field)                                   \
    rec->u.m.field = rd_varint(r);                          \
    if (!r->err && (rec->u.m.field == 0 || rec->u.m.field > 0xFFFFu)) \
        return -1;
#define RD_ADDR(m, field) RD_OPTIONAL(m, field, want_addr(d, r))
#define RD_OPT(m, field) RD_OPTIONAL(m, field, rd_left(r) != 0)
/* After an error p is at the end: no optional field is present. */
#define RD_OPTIONAL(m, field, present)                      \
    on = (present);                                         \
    if (on) {                                               \
        rec->u.m.field = rd_varint(r);                      \
        rec->u.m.has_##field = 1;                           \
    }
#define RD_FLAG(m, field)                                   \
    if (rd_left(r) != 0)                                    \
        rec->u.m.field = rd_varint(r) != 0;
#define RD_WITH(m, field)                                   \
    if (on)                                                 \
        rec->u.m.field = rd_varint(r);
#define RD_FIELD(m, kind, field, label) RD_##kind(m, field)
/* The frame's latest slot (*last_slot1, wire v2's empty FREE): the tests on the record's type are
 * constants in each case, so only ALLOC, REALLOC and FREE pay for them. */
#define RD_VARINT(NAME, number, m)                          \
    case MSAMP_REC_##NAME:                                  \
        rec->type = MSAMP_REC_##NAME;                       \
        memset(&rec->u.m, 0, sizeof(rec->u.m));             \
        if (MSAMP_REC_##NAME == MSAMP_REC_FREE && r->p == r->end) \
            return empty_free(rec, last_slot1);             \
        MSAMP_WIRE_FIELDS_##NAME(RD_FIELD, m)               \
        if (MSAMP_REC_##NAME == MSAMP_REC_ALLOC)            \
            *last_slot1 = rec->u.alloc.slot1;               \
        if (MSAMP_REC_##NAME == MSAMP_REC_REALLOC)          \
            *last_slot1 = rec->u.realloc.new_slot1;         \
        return varint_end(d, r, rec, time_fields(MSAMP_REC_##NAME));

/* A varint record's fields are read: -1 when one was missing or invalid, else its dt (when its
 * fields have one: `time`, time_fields' of its type, a constant in each case) advances the
 * clock. */
static inline __attribute__((always_inline)) int varint_end(struct msamp_dec *d,
                                                            const struct rd *r,
                                                            const struct msamp_record *rec,
                                                            int time)
{
    if (r->err)
        return -1;
    if (time & TIME_DT)
        clock_add(d, rec->dt);
    return 0;
}

/* An empty FREE (wire v2): the slot the frame's latest ALLOC or REALLOC filled, at dt 0; none is
 * latest after it. Malformed when there is none. */
static int empty_free(struct msamp_record *rec, uint64_t *last_slot1)
{
    if (*last_slot1 == 0)
        return -1;
    rec->u.free.slot = *last_slot1 - 1u;
    *last_slot1 = 0;
    return 0;
}

static int parse_session(struct msamp_dec *d, struct rd *r, struct msamp_record *rec)
{
    MSAMP_WIRE_FIELDS_SESSION(RD_FIELD, session)
    rec->u.session.build_id_len = rd_u8(r);
    if (r->err || rec->u.session.build_id_len > MSAMP_DEC_MAX_BUILD_ID ||
        rec->u.session.ptr_size == 0 || rec->u.session.ptr_size > 8)
        return -1;
    const uint8_t *bid = rd_bytes(r, rec->u.session.build_id_len);
    if (bid == NULL)
        return -1;
    memset(rec->u.session.build_id, 0, sizeof(rec->u.session.build_id));
    memcpy(rec->u.session.build_id, bid, rec->u.session.build_id_len);
    /* [device_id_len:u8 device_id]: 1..MSAMP_WIRE_MAX_DEVICE_ID bytes, whole, or the record is
     * malformed. */
    rec->u.session.device_id_len = 0;
    memset(rec->u.session.device_id, 0, sizeof(rec->u.session.device_id));
    if (rd_left(r) != 0) {
        uint8_t n = rd_u8(r);
        const uint8_t *id = n >= 1 && n <= MSAMP_DEC_MAX_DEVICE_ID ? rd_bytes(r, n) : NULL;
        if (r->err || id == NULL)
            return -1;
        rec->u.session.device_id_len = n;
        memcpy(rec->u.session.device_id, id, n);
    }

    /* A reset (resend_seq 0) or another device restarts the clock; a re-send keeps it. */
    if (rec->u.session.resend_seq == 0 ||
        (d->have_session && d->session_id != rec->u.session.session_id))
        clock_lost(d);
    d->have_session = 1;
    d->session_id = rec->u.session.session_id;
    d->ptr_size = rec->u.session.ptr_size;
    d->flags = rec->u.session.flags;
    d->version = rec->u.session.version;
    return 0;
}

static int parse_stack(struct msamp_dec *d, struct rd *r, struct msamp_record *rec)
{
    uint64_t id = rd_varint(r);
    uint64_t depth = rd_varint(r);
    if (r->err || id == 0 || depth == 0 || depth > MSAMP_DEC_MAX_DEPTH)
        return -1;
    uint64_t mask = ptr_mask(d);
    uint64_t f = rd_varint(r) & mask;
    d->frames[0] = f;
    for (uint64_t i = 1; i < depth; i++) {
        f = (f + rd_svarint(r)) & mask;
        d->frames[i] = f;
    }
    if (r->err)
        return -1;
    rec->u.stack.id = id;
    rec->u.stack.depth = (uint32_t)depth;
    rec->u.stack.frames = d->frames;
    return 0;
}

static int parse_mapping(struct msamp_dec *d, struct rd *r, struct msamp_record *rec)
{
    (void)d;
    rec->u.mapping.start = rd_varint(r);
    rec->u.mapping.limit = rd_varint(r);
    rec->u.mapping.offset = rd_varint(r);
    rec->u.mapping.build_id_len = rd_u8(r);
    if (r->err || rec->u.mapping.build_id_len > MSAMP_DEC_MAX_BUILD_ID)
        return -1;
    const uint8_t *bid = rd_bytes(r, rec->u.mapping.build_id_len);
    uint64_t path_len = rd_varint(r);
    const uint8_t *path = rd_bytes(r, path_len);
    if (r->err)
        return -1;
    memset(rec->u.mapping.build_id, 0, sizeof(rec->u.mapping.build_id));
    memcpy(rec->u.mapping.build_id, bid, rec->u.mapping.build_id_len);
    rec->u.mapping.path = path;
    rec->u.mapping.path_len = (size_t)path_len;
    return 0;
}

static int parse_mark(struct msamp_dec *d, struct rd *r, struct msamp_record *rec)
{
    (void)d;
    rec->u.mark.text = r->p;
    rec->u.mark.len = rd_left(r);
    return 0;
}

static int parse_task(struct msamp_dec *d, struct rd *r, struct msamp_record *rec)
{
    (void)d;
    rec->u.task.task = rd_varint(r);
    uint64_t n = rd_varint(r);
    if (r->err || rec->u.task.task == 0 || rec->u.task.task > 0xFFFFu ||
        n > MSAMP_WIRE_MAX_TASK_NAME || n > rd_left(r))
        return -1;
    rec->u.task.name = r->p;
    rec->u.task.len = (size_t)n;
    return 0;
}

/* A record of a free-form layout has its parser, parse_<member>, given a copy of the reader: the
 * varint records' reader stays in registers. */
#define RD_FREEFORM(NAME, number, m)                        \
    case MSAMP_REC_##NAME: {                                \
        struct rd copy = *r;                                \
        rec->type = MSAMP_REC_##NAME;                       \
        return parse_##m(d, &copy, rec);                    \
    }

/* Fills rec from one payload; returns -1 when a required field is missing or invalid. *last_slot1:
 * the slot + 1 of the frame's latest ALLOC or REALLOC record (0: none, or an empty FREE freed
 * it), which an empty FREE (wire v2) frees at dt 0. */
static inline __attribute__((always_inline)) int parse_payload(struct msamp_dec *d, struct rd *r,
                                                               struct msamp_record *rec,
                                                               uint64_t *last_slot1)
{
    uint64_t type = (uint64_t)rec->type;
    int on = 0;
    if (type == MSAMP_REC_EXTENDED) {
        type = rd_varint(r);
        if (r->err || type < 16)
            return -1;
    }
    switch (type) {
        MSAMP_WIRE_RECORDS(RD_FREEFORM, RD_VARINT)
    default:
        d->st.records_unknown++;
        rec->type = MSAMP_DEC_UNKNOWN;
        rec->u.unknown.type = type;
        rec->u.unknown.payload = r->p;
        rec->u.unknown.len = rd_left(r);
        return 0;
    }
}

__attribute__((noinline)) static void parse_records(struct msamp_dec *d, const uint8_t *p,
                                                   const uint8_t *end)
{
    uint64_t last_slot1 = 0; /* a frame's own: frames are decoded alone */
    while (p < end) {
        const uint8_t *start = p;
        struct rd r = { p, end, 0 };
        uint8_t hdr = rd_u8(&r);
        int type = hdr & 0x0F;
        uint64_t len = hdr >> 4;
        if (len == MSAMP_WIRE_LEN_EXTENDED)
            len = rd_varint(&r);
        if (r.err || len > rd_left(&r) || type == MSAMP_REC_INVALID) {
            /* The rest of the frame cannot be delimited: its records, and any dt in them, are
             * lost. */
            d->st.records_malformed++;
            clock_lost(d);
            return;
        }
        struct rd payload = { r.p, r.p + len, 0 };
        p = r.p + len;

        /* Zero only what the per-record parsers do not set: a varint record's own member (its
         * optional fields' flags among them: in its case, RD_VARINT) and dt. The free-form
         * records set all theirs. */
        struct msamp_record rec;
        rec.type = type;
        rec.dt = 0; /* ts and ts_valid: emit's */
        rec.wire_len = (uint32_t)(p - start);
        if (parse_payload(d, &payload, &rec, &last_slot1) < 0) {
            d->st.records_malformed++;
            if (time_fields(rec.type) != 0)
                clock_lost(d);
            continue;
        }
        emit(d, &rec, 1);
    }
}

/* A device reset restarts seq at 0 with a fresh SESSION (resend_seq 0) first in the frame. */
static int frame_starts_session(const uint8_t *p, const uint8_t *end)
{
    struct rd r = { p, end, 0 };
    uint8_t hdr = rd_u8(&r);
    uint64_t len = hdr >> 4;
    if ((hdr & 0x0F) != MSAMP_REC_SESSION)
        return 0;
    if (len == MSAMP_WIRE_LEN_EXTENDED)
        len = rd_varint(&r);
    if (r.err || len > rd_left(&r))
        return 0;
    struct rd s = { r.p, r.p + len, 0 };
    (void)rd_u8(&s);
    (void)rd_u8(&s);
    (void)rd_u32le(&s);
    uint64_t resend = rd_varint(&s);
    return !s.err && resend == 0;
}

/* A frame equal (seq and CRC) to one of the latest ones is a repeat; else it is remembered. */
static int frame_repeated(struct msamp_dec *d, uint8_t seq)
{
    uint32_t crc = d->body_crc;
    for (unsigned i = 0; i < d->recent_n; i++)
        if (d->recent_seq[i] == seq && d->recent_crc[i] == crc)
            return 1;
    d->recent_seq[d->recent_at] = seq;
    d->recent_crc[d->recent_at] = crc;
    d->recent_at = (d->recent_at + 1u) % MSAMP_DEC_RECENT;
    if (d->recent_n < MSAMP_DEC_RECENT)
        d->recent_n++;
    return 0;
}

/* A frame up to 32 behind the latest whose seq was counted lost: sent once, heard bad, and brought
 * back whole by a repeated run after newer frames. Its records are older than what was decoded
 * since (a slot it allocates may be in use again), so it is dropped as a repeat and stays counted
 * lost. */
static int frame_late(const struct msamp_dec *d, uint8_t seq, int boot)
{
    uint8_t back = (uint8_t)(d->last_seq - seq);
    return d->have_seq && !boot && back >= 1u && back <= 32u && (d->missed >> (back - 1u) & 1u) != 0;
}

static void frame_good(struct msamp_dec *d)
{
    const uint8_t *rec_start = d->body + 1;
    const uint8_t *rec_end = d->body + d->body_len - MSAMP_WIRE_CRC_SIZE;
    uint8_t seq = d->body[0];
    uint32_t lost = 0;
    /* A boot frame is never a repeat: a device whose first frames are the same at every boot may
     * be reset before its 17th frame. The frames remembered are forgotten, all of them: the ones
     * checked are slots 0 .. recent_n - 1, so the next is written to slot 0 (a slot left from
     * before the boot, the same seq and CRC as a frame the boot sends again, as a replay cut by a
     * reset and sent whole, was taken for a repeat). */
    int boot = seq == 0 && frame_starts_session(rec_start, rec_end);
    if (boot)
        d->recent_n = d->recent_at = 0;
    if (frame_repeated(d, seq) || frame_late(d, seq, boot)) {
        d->st.frames_repeated++;
        return;
    }
    if (d->have_seq && !boot)
        lost = (uint8_t)(seq - d->last_seq - 1u);
    /* Shifted by the frames this one advances over (lost + 1 of them), the lost among them set;
     * a boot starts afresh. */
    if (boot || !d->have_seq)
        d->missed = 0;
    else if (lost >= 32u)
        d->missed = ~0u;
    else
        d->missed = (uint32_t)((uint64_t)d->missed << (lost + 1u) | ((1ull << lost) - 1u));
    d->have_seq = 1;
    d->last_seq = seq;
    d->st.frames_ok++;
    d->st.frames_lost += lost;
    if (lost)
        clock_lost(d);

    struct msamp_record rec;
    memset(&rec, 0, sizeof(rec));
    rec.type = MSAMP_DEC_FRAME;
    rec.u.frame.seq = seq;
    rec.u.frame.lost = lost;
    rec.u.frame.offset = d->chunk_start;
    rec.u.frame.enc_len = (uint32_t)d->chunk_bytes;
    emit(d, &rec, 0);
    parse_records(d, rec_start, rec_end);
}

static void discard(struct msamp_dec *d, uint64_t bytes)
{
    d->st.bytes_discarded += bytes;
    clock_lost(d);
    struct msamp_record rec;
    memset(&rec, 0, sizeof(rec));
    rec.type = MSAMP_DEC_LOSS;
    rec.u.loss.bytes = bytes;
    emit(d, &rec, 0);
}

static int frame_valid(struct msamp_dec *d)
{
    if (d->chunk_bytes > MSAMP_WIRE_MAX_ENCODED)
        return 0;
    /* chunk_bytes fit: d->enc holds the bytes between two 0x00, none. */
    long n_body = msamp_cobs_decode_padded(d->enc, (size_t)d->chunk_bytes, d->body,
                                           MSAMP_WIRE_MAX_BODY);
    if (n_body < (long)BODY_MIN)
        return 0;
    d->body_len = (size_t)n_body;
    size_t n = d->body_len - MSAMP_WIRE_CRC_SIZE;
    const uint8_t *c = d->body + n;
    d->body_crc = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16 |
                  (uint32_t)c[3] << 24;
    return msamp_crc32(0, d->body, n) == d->body_crc;
}


/* A 0x00 ended the frame. Empty frames (runs of 0x00) are line filler, not damage. Before the
 * first 0x00, the bytes may be the tail of a frame sent before the reader attached: dropping them
 * is counted as discarded bytes, not as a bad frame. */
static void chunk_end(struct msamp_dec *d)
{
    if (d->chunk_bytes != 0) {
        if (frame_valid(d)) {
            frame_good(d);
        } else {
            if (d->synced)
                d->st.frames_bad++;
            discard(d, d->chunk_bytes + 1);
        }
    }
    d->synced = 1;
    d->chunk_bytes = 0;
}

void msamp_dec_feed(struct msamp_dec *d, const uint8_t *data, size_t len)
{
    const uint8_t *p = data, *end = data + len;
    while (p < end) {
        const uint8_t *zero = memchr(p, 0, (size_t)(end - p));
        size_t run = (size_t)((zero ? zero : end) - p);
        if (run != 0) {
            if (d->chunk_bytes == 0)
                d->chunk_start = d->st.bytes_in;
            if (d->chunk_bytes < MSAMP_WIRE_MAX_ENCODED) {
                size_t room = MSAMP_WIRE_MAX_ENCODED - (size_t)d->chunk_bytes;
                memcpy(d->enc + d->chunk_bytes, p, run < room ? run : room);
            }
            d->chunk_bytes += run;
            d->st.bytes_in += run;
            p += run;
        }
        if (zero != NULL) {
            d->st.bytes_in++;
            p++;
            chunk_end(d);
        }
    }
}

void msamp_dec_finish(struct msamp_dec *d)
{
    if (d->chunk_bytes != 0)
        discard(d, d->chunk_bytes);
    d->chunk_bytes = 0;
}
