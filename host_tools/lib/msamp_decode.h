/*
 * Host-side decoder of the msamp wire format, versions 1 and 2 (docs/WIRE_FORMAT.md): deframes a
 * byte stream (COBS, CRC-32, resync), parses records and hands each to a callback with its time
 * resolved.
 * Never trusts the stream: memory is bounded whatever it declares, every length is checked, and
 * damage is counted in msamp_dec_stats, never fatal. Not thread-safe per decoder.
 *
 * Decoding rules where the spec leaves a choice:
 * - Every run of bytes up to a 0x00 is tried as a frame, the first one too, so a stream captured
 *   from its very first byte loses nothing; a failing first run (a late join) counts as discarded
 *   bytes but not as a bad frame. Empty runs (0x00 0x00) are line filler, not damage.
 * - Time: ALLOC, FREE, INTERVAL and REALLOC add their dt to the clock; TIME and SNAP_BEGIN set it.
 *   The clock is unknown (ts_valid 0, ts 0) at the start, after a LOSS, a seq gap or a malformed
 *   timed record, and from a SESSION that starts a new session (resend_seq 0 or another
 *   session_id), until the next TIME or SNAP_BEGIN.
 * - STACK frames wrap modulo 2^(8*ptr_size) of the latest SESSION (8 before any). SESSION with
 *   ptr_size outside 1..8, build_id_len > MSAMP_WIRE_MAX_BUILD_ID, or an optional device id
 *   whose length is 0, above MSAMP_WIRE_MAX_DEVICE_ID or cut short, STACK with id 0 or depth
 *   outside 1..MSAMP_WIRE_MAX_DEPTH, and an extended type below 16 are malformed.
 * - Each varint record is parsed from its field list in msamp_wire.h (MSAMP_WIRE_FIELDS_<NAME>),
 *   into u.<member>.<field> (dt into rec->dt), and each optional trailing field by its kind: ADDR
 *   when the latest SESSION has MSAMP_SESSION_FLAG_ADDRESSES or, before any SESSION, when bytes
 *   remain (has_addr); OPT when bytes remain (has_<field>); FLAG when bytes remain (0 when not);
 *   WITH exactly when the optional field before it was present (a pair cut after its first field
 *   is malformed). Optional fields are reported as sent: what they mean (thinning, an entry's own
 *   interval) is the reader's model's business.
 * - A record whose length runs past its frame, or of type 0, ends the frame's parsing: one
 *   malformed record is counted and the clock becomes unknown.
 */
#ifndef MSAMP_DECODE_H
#define MSAMP_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "msamp_wire.h"

/* The decoder's limits are the wire format's: deepest STACK, longest build-id. */
#define MSAMP_DEC_MAX_DEPTH MSAMP_WIRE_MAX_DEPTH
#define MSAMP_DEC_MAX_BUILD_ID MSAMP_WIRE_MAX_BUILD_ID
#define MSAMP_DEC_MAX_DEVICE_ID MSAMP_WIRE_MAX_DEVICE_ID

/* Pseudo record types the decoder reports besides the wire types. */
enum msamp_dec_event {
    /* A good frame starts: u.frame.seq; u.frame.lost = frames missed before it by the seq gap. A
     * frame with seq 0 whose first record is a SESSION with resend_seq 0 (a device reset) is never
     * a gap. A gap makes the clock unknown, as a LOSS does. */
    MSAMP_DEC_FRAME = -1,
    MSAMP_DEC_LOSS = -2,  /* u.loss.bytes were discarded (bad CRC, bad COBS, too long, cut off) */
    MSAMP_DEC_UNKNOWN = -3 /* a record of a type this decoder does not know: skipped */
};

struct msamp_record {
    int type;            /* enum msamp_wire_type or enum msamp_dec_event */
    uint64_t ts;         /* absolute device time of the record in ticks (0 until known) */
    int ts_valid;        /* 0 while the clock is unknown (after a loss, before a TIME/SNAP_BEGIN) */
    uint32_t wire_len;   /* a wire record's encoded bytes in its frame (header, length, payload: a
                          * short form's as sent); 0 for the decoder's own events */
    union {
        /* offset: stream position of the frame's first encoded byte (bytes fed before it);
         * enc_len: its encoded length without the 0x00 delimiter. */
        struct { uint8_t seq; uint32_t lost; uint64_t offset; uint32_t enc_len; } frame;
        struct { uint64_t bytes; } loss;
        struct {
            uint8_t version, flags, arch, ptr_size;
            uint32_t session_id;
            uint64_t resend_seq, tick_hz, interval, live_capacity, stack_capacity, max_depth;
            uint8_t build_id_len;
            uint8_t build_id[MSAMP_DEC_MAX_BUILD_ID];
            /* The optional trailing device id (device_id_len 0: absent). */
            uint8_t device_id_len;
            uint8_t device_id[MSAMP_DEC_MAX_DEVICE_ID];
        } session;
        struct { uint64_t id; uint32_t depth; const uint64_t *frames; } stack;
        struct { uint64_t slot1, size, stack_id, addr; int has_addr; } alloc;
        struct { uint64_t slot; int moved; } free; /* moved: [moved] was 1 (docs/WIRE_FORMAT.md) */
        /* interval: the entry's own sampling interval when has_interval (else the one in force) */
        struct {
            uint64_t slot, size, stack_id, birth, addr, interval;
            int has_addr, has_interval;
        } live;
        struct { uint64_t pass, ts; } snap_begin; /* ts: as rec->ts */
        struct { uint64_t ts; } time;             /* TIME: ts as rec->ts */
        struct { uint64_t pass, count; } snap_end;
        struct {
            uint64_t ring_records, ring_bytes, live_full, stack_full, reentrant, truncated;
            uint64_t no_frame; /* walks that found no frame (0 when !has_no_frame: older devices) */
            uint64_t out_of_bounds; /* of those, walks begun outside the stack bounds (0 when
                                       !has_out_of_bounds: older devices) */
            int has_no_frame, has_out_of_bounds;
        } drops;
        /* kind: enum msamp_wire_fail (other values: a later kind, listed by number); count: the
         * device's cumulative failures of that kind */
        struct { uint64_t kind, size, stack_id, count; } fail;
        /* reason: enum msamp_wire_interval_reason (0 when !has_reason); epoch: the thinning's */
        struct { uint64_t interval, reason, epoch; int has_reason; } interval;
        struct { uint64_t old_slot, new_slot1, size, stack_id, addr; int has_addr; } realloc;
        struct { const uint8_t *text; size_t len; } mark;
        struct {
            uint64_t start, limit, offset;
            uint8_t build_id_len;
            uint8_t build_id[MSAMP_DEC_MAX_BUILD_ID];
            const uint8_t *path; /* not NUL-terminated */
            size_t path_len;
        } mapping;
        struct { uint64_t type; const uint8_t *payload; size_t len; } unknown;
        /* CMD_ACK (extended type 16): the command frame's seq, its command (enum msamp_wire_cmd)
         * and status (enum msamp_wire_cmd_status); series when has_series (a version-2 frame's) */
        struct { uint64_t seq, cmd, status, series; int has_series; } cmd_ack;
        /* TASK (extended type 17): a task id (1..65535) and its name (not NUL-terminated, at most
         * MSAMP_WIRE_MAX_TASK_NAME bytes); SAMPLE_TASK (18): the task id alone (name NULL) */
        struct { uint64_t task; const uint8_t *name; size_t len; } task;
        /* END (extended type 19): the device's session totals (docs/WIRE_FORMAT.md) */
        struct { uint64_t samples, frees, dropped; } end;
        /* HEAP (extended type 20): the allocator's state (enum msamp_wire_heap_reason; valid: the
         * MSAMP_WIRE_HEAP_* bits; an unknown field is 0) */
        struct { uint64_t reason, valid, free_bytes, min_free, largest_free, free_blocks, total; } heap;
        /* TASK_BUDGET (extended type 21): a task passed its budget (docs/HEALTH.md#task-budgets):
         * its estimated in-use bytes then, its peak so far, its crossings so far */
        struct { uint64_t task, budget, in_use, peak, events; } task_budget;
        /* RESET (extended type 22): the previous session's end by a reset, sent by the next boot
         * (docs/WIRE_FORMAT.md): cause (enum msamp_wire_reset_cause), END's totals as they were */
        struct { uint64_t cause, samples, frees, dropped; } reset;
    } u;
    uint64_t dt; /* the record's dt field as sent (ALLOC, FREE, INTERVAL, REALLOC, FAIL), else 0 */
};

struct msamp_dec_stats {
    uint64_t bytes_in;          /* bytes fed */
    uint64_t frames_ok;         /* frames that passed COBS and CRC */
    uint64_t frames_bad;        /* frames dropped: CRC, COBS or length errors */
    uint64_t frames_lost;       /* frames missing according to seq gaps */
    uint64_t frames_repeated;   /* valid frames equal to a recent one (seq and CRC): dropped */
    uint64_t bytes_discarded;   /* bytes not in any good frame (before sync, in bad frames) */
    uint64_t records;           /* records delivered */
    uint64_t records_malformed; /* records skipped because a required field was missing */
    uint64_t records_unknown;   /* records of unknown types */
};

typedef void (*msamp_record_fn)(void *arg, const struct msamp_record *rec);

struct msamp_dec;

/* A new decoder; NULL when out of memory. The callback sees every record and event in order;
 * pointers inside a record are valid only during the call. */
struct msamp_dec *msamp_dec_new(msamp_record_fn fn, void *arg);
void msamp_dec_free(struct msamp_dec *d);

/* Feed bytes as they arrive, in any chunking. */
void msamp_dec_feed(struct msamp_dec *d, const uint8_t *data, size_t len);

/* End of input: an unfinished frame is counted as discarded. */
void msamp_dec_finish(struct msamp_dec *d);

const struct msamp_dec_stats *msamp_dec_stats(const struct msamp_dec *d);

/* Prints one record as one line of msamp-dump's listing format, the format of tests/vectors/ *.txt.
 * Events: MSAMP_DEC_FRAME prints "frame seq=N" (preceded by the comment line "# lost frames=N"
 * after a seq gap), MSAMP_DEC_LOSS the comment line "# loss bytes=N", MSAMP_DEC_UNKNOWN
 * "UNKNOWN type=N len=N" (len of the payload after the type). */
void msamp_record_print(FILE *out, const struct msamp_record *rec);

/* Options of msamp_record_print_opt. */
#define MSAMP_PRINT_TIME 0x1u /* append " @ts=N" (" @ts=?" while the clock is unknown) to records */
void msamp_record_print_opt(FILE *out, const struct msamp_record *rec, unsigned opts);

/* Prints the counters as "name=value" lines, each prefixed by `prefix`. */
void msamp_dec_stats_print(FILE *out, const char *prefix, const struct msamp_dec_stats *st);

/* Nonzero when the counters show damage: bad, lost or discarded frames, or malformed records. */
int msamp_dec_stats_damaged(const struct msamp_dec_stats *st);

/* CRC-32/IEEE of the wire format. Start with crc = 0; pass the result to continue over more data.
 * msamp_crc32(0, "123456789", 9) == 0xCBF43926. */
uint32_t msamp_crc32(uint32_t crc, const void *data, size_t len);

/* COBS-decodes one frame's bytes (without its 0x00 delimiter) into out[cap]. Returns the decoded
 * length, or -1 when the input holds a 0x00, a group runs past the end, or the output would exceed
 * cap. */
long msamp_cobs_decode(const uint8_t *in, size_t len, uint8_t *out, size_t cap);
/* The same for bytes known to hold no 0x00 (the decoder's: it cuts frames at them), without
 * looking for one. */
long msamp_cobs_decode_zero_free(const uint8_t *in, size_t len, uint8_t *out, size_t cap);
/* The same again, for buffers with MSAMP_COBS_SLACK bytes past len (in) and cap (out) that it may
 * read and write (what it writes there is not the decoded frame's). */
#define MSAMP_COBS_SLACK 16u
long msamp_cobs_decode_padded(const uint8_t *in, size_t len, uint8_t *out, size_t cap);

/* Name of an architecture code ("aarch64", ...) or "unknown". */
const char *msamp_arch_name(unsigned arch);

#endif
