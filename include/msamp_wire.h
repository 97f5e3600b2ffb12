/*
 * msamp wire format, version 2: the constants shared by the device encoder and the host decoder.
 * The normative description is docs/WIRE_FORMAT.md; this header is its machine-readable half.
 *
 * Layers, outermost first:
 *   stream  = frame*                       a reader may join at any byte and resync at the next 0x00
 *   frame   = COBS(body) 0x00              body = seq:u8 record* crc:u32le
 *   record  = hdr:u8 [len:varint] payload  type = hdr & 0x0F, L = hdr >> 4;
 *                                          L < 15: payload is L bytes; L == 15: a varint length follows
 * crc is CRC-32 (IEEE 802.3: reflected, poly 0xEDB88320, init and final xor 0xFFFFFFFF) over seq and
 * the records. A record never spans two frames. Integers are unsigned LEB128 varints unless said
 * otherwise; "svarint" is zigzag then LEB128; fixed-size fields are little-endian on every device.
 * A payload may be longer than the fields a reader knows: readers ignore trailing bytes, which is how
 * later versions add fields. Unknown record types are skipped by their length.
 */
#ifndef MSAMP_WIRE_H
#define MSAMP_WIRE_H

/* 2: a DT field of 0 that would end its record's payload may be left out, and an empty FREE frees
 * the slot of the frame's latest ALLOC or REALLOC (docs/WIRE_FORMAT.md#versions); a reader reads
 * version 1 streams as before. */
#define MSAMP_WIRE_VERSION 2u

/* Largest frame body (seq + records + crc, before COBS) a decoder must accept. Devices send less. */
#define MSAMP_WIRE_MAX_BODY 4096u
/* Largest COBS-encoded frame: body + one code byte per 254 bytes + 1. */
#define MSAMP_WIRE_MAX_ENCODED (MSAMP_WIRE_MAX_BODY + MSAMP_WIRE_MAX_BODY / 254u + 2u)
#define MSAMP_WIRE_CRC_SIZE 4u
#define MSAMP_WIRE_LEN_INLINE_MAX 14u
#define MSAMP_WIRE_LEN_EXTENDED 15u
#define MSAMP_WIRE_MAX_VARINT 10u
/* A record header: the type/length byte and, for a payload over 14 bytes, its length as a varint
 * of at most two bytes (every record a device writes is under 16 KiB). */
#define MSAMP_WIRE_MAX_REC_HEADER 3u
/* Longest GNU build-id carried in SESSION and MAPPING (build_id_len is at most this). */
#define MSAMP_WIRE_MAX_BUILD_ID 64u
/* Longest MARK text a device sends (msamp_mark). */
#define MSAMP_WIRE_MAX_MARK 64u
/* Longest device id carried in SESSION's optional [device_id_len device_id] (docs/WIRE_FORMAT.md). */
#define MSAMP_WIRE_MAX_DEVICE_ID 32u

/* Live-table slots: a device's table holds at most this many (its slot indexes are below it), and
 * a reader tracks every index below it. */
#define MSAMP_WIRE_MAX_SLOTS (1u << 22)

/* Deepest STACK record (depth 1..this). */
#define MSAMP_WIRE_MAX_DEPTH 256u

/*
 * The records, described once. MSAMP_WIRE_RECORDS(FREEFORM, VARINT) calls FREEFORM(NAME, type,
 * member) for a record whose layout is written by hand (a length, bytes, deltas: its layout is in
 * the comment above it and in its encoder and parser), and VARINT(NAME, type, member) for a record
 * whose payload is a list of varints, listed once as MSAMP_WIRE_FIELDS_NAME(F, m): one
 * F(m, KIND, field, label) per field, in wire order (m: the caller's, passed through; field: the
 * member of the decoder's struct msamp_record u.member or, for dt, rec->dt; label: msamp-dump's
 * name of it). The device encoder (src/msamp_records.c), the host decoder (parse_payload in
 * host_tools/lib/msamp_decode.c) and the listing (host_tools/lib/msamp_listing.c) expand these
 * lists (a free-form record has hand-written parse_<member> and print_<member> there instead), and
 * decoder-unit (test_record_list) decodes and lists each record from its list alone; nanopb's
 * message descriptors are the model. Types >= 16 are extended: sent as type 15, the payload's
 * first varint the real type. A field added to a record later goes at its end, optional (the
 * wire version stays: docs/WIRE_FORMAT.md#versions). KIND is one of:
 *   REQ    a varint
 *   DT     a varint, the time since the previous timed record (docs/WIRE_FORMAT.md#time); from
 *          version 2 a dt of 0 that would end the payload may be left out (a reader reads a DT
 *          with no bytes left as 0; the device leaves it out of ALLOC, REALLOC and FREE)
 *   TS     a varint, an absolute time: it sets the reader's clock
 *   ID16   a varint in 1..65535 (a task id), else the record is malformed
 * and, trailing only, optional fields: a reader that predates one sees the record as before it.
 *   ADDR   [addr], present when SESSION has MSAMP_SESSION_FLAG_ADDRESSES (before any SESSION:
 *          when bytes remain); has_addr says it was
 *   OPT    [field], present when bytes remain; has_<field> says it was
 *   FLAG   [field], 0 or 1 (absent: 0), present when bytes remain
 *   WITH   [field], the second of a pair: present exactly when the optional field before it is
 *          (a payload that holds the first without it is malformed)
 * and, in the fixed part of SESSION (a free-form record whose encoder and parser expand
 * MSAMP_WIRE_FIELDS_SESSION for it), fixed-size fields:
 *   VERSION  a u8, MSAMP_WIRE_VERSION      U8  a u8      U32LE  a little-endian u32
 */
#define MSAMP_WIRE_RECORDS(FREEFORM, VARINT)  \
    FREEFORM(SESSION, 1, session)             \
    FREEFORM(STACK, 2, stack)                 \
    VARINT(ALLOC, 3, alloc)                   \
    VARINT(FREE, 4, free)                     \
    VARINT(LIVE, 5, live)                     \
    VARINT(SNAP_BEGIN, 6, snap_begin)         \
    VARINT(SNAP_END, 7, snap_end)             \
    VARINT(DROPS, 8, drops)                   \
    VARINT(INTERVAL, 9, interval)             \
    VARINT(TIME, 10, time)                    \
    VARINT(REALLOC, 11, realloc)              \
    FREEFORM(MARK, 12, mark)                  \
    FREEFORM(MAPPING, 13, mapping)            \
    VARINT(FAIL, 14, fail)                    \
    VARINT(CMD_ACK, 16, cmd_ack)              \
    FREEFORM(TASK, 17, task)                  \
    VARINT(SAMPLE_TASK, 18, task)             \
    VARINT(END, 19, end)                      \
    VARINT(HEAP, 20, heap)                   \
    VARINT(TASK_BUDGET, 21, task_budget)      \
    VARINT(RESET, 22, reset)

/* SESSION: the fields of MSAMP_WIRE_FIELDS_SESSION (VERSION: a u8, MSAMP_WIRE_VERSION; U8, U32LE:
 * fixed-size), then build_id_len:u8 build_id[build_id_len] [device_id_len:u8
 * device_id[device_id_len]] (1..MSAMP_WIRE_MAX_DEVICE_ID bytes; absent when the device has no id).
 * resend_seq is 0 in the first header after reset and counts up with each periodic re-send;
 * a header whose session_id differs, or whose resend_seq is 0, starts a new session. */
#define MSAMP_WIRE_FIELDS_SESSION(F, m)                                                          \
    F(m, VERSION, version, version) F(m, U8, flags, flags) F(m, U32LE, session_id, session_id)  \
    F(m, REQ, resend_seq, resend_seq) F(m, U8, arch, arch) F(m, U8, ptr_size, ptr_size)         \
    F(m, REQ, tick_hz, tick_hz) F(m, REQ, interval, interval)                                   \
    F(m, REQ, live_capacity, live_capacity) F(m, REQ, stack_capacity, stack_capacity)           \
    F(m, REQ, max_depth, max_depth)

/* STACK: stack_id depth frame0 (svarint delta)*(depth-1): frame0 is an absolute address, each
 * later frame the difference to the one before. Frames are return addresses as the unwinder found
 * them, innermost first (the allocator's caller); the host moves each back into its call
 * instruction before symbolizing. Stack id 0 is never defined: it means "stack unknown".
 * A device may define an id again with other frames once no live entry uses it (the stack
 * table evicted it): records after the new definition mean the new stack. */

/* ALLOC: a sampled allocation. slot1 = live-table slot + 1, or 0 when the live table had no room
 * (the allocation counts as allocated, never as in use). */
#define MSAMP_WIRE_FIELDS_ALLOC(F, m)                                                         \
    F(m, REQ, slot1, slot1) F(m, REQ, size, size) F(m, REQ, stack_id, stack) F(m, DT, dt, dt) \
    F(m, ADDR, addr, addr)

/* FREE: the sampled allocation in that slot was freed; or, with moved = 1, it was realloc'd to a
 * block that was not sampled: the allocation lives on unseen (a reader that counts a realloc
 * chain as one allocation takes the chain out, as its last block was not sampled; a reader
 * without the field sees a free). */
#define MSAMP_WIRE_FIELDS_FREE(F, m)                                \
    F(m, REQ, slot, slot) F(m, DT, dt, dt) F(m, FLAG, moved, moved)

/* LIVE: a live sampled allocation, re-sent during a snapshot pass. birth is the low 32 bits of the
 * absolute time of the allocation: the reader takes the latest time not after the current one
 * with those low bits. interval, present only when it differs from the interval in force, is the
 * one the entry stands for (it was sampled, or last thinned, at it). Not an allocation event. */
#define MSAMP_WIRE_FIELDS_LIVE(F, m)                                             \
    F(m, REQ, slot, slot) F(m, REQ, size, size) F(m, REQ, stack_id, stack)       \
    F(m, REQ, birth, birth) F(m, ADDR, addr, addr) F(m, OPT, interval, interval)

/* SNAP_BEGIN: a snapshot pass starts at absolute time ts. */
#define MSAMP_WIRE_FIELDS_SNAP_BEGIN(F, m) F(m, REQ, pass, pass) F(m, TS, ts, ts)

/* SNAP_END: the pass ended; count LIVE records were sent in it. Every allocation that was live at
 * SNAP_BEGIN and still is at SNAP_END appeared in a LIVE or ALLOC record in between. */
#define MSAMP_WIRE_FIELDS_SNAP_END(F, m) F(m, REQ, pass, pass) F(m, REQ, count, count)

/* DROPS: cumulative device counters of samples that lost information (see msamp_stats), in the
 * order of enum msamp_wire_drop. */
#define MSAMP_WIRE_FIELDS_DROPS(F, m)                                       \
    F(m, REQ, ring_records, ring_records) F(m, REQ, ring_bytes, ring_bytes) \
    F(m, REQ, live_full, live_full) F(m, REQ, stack_full, stack_full)       \
    F(m, REQ, reentrant, reentrant) F(m, REQ, truncated, truncated)         \
    F(m, OPT, no_frame, no_frame) F(m, OPT, out_of_bounds, out_of_bounds)

/* INTERVAL: sampling interval in bytes for the samples that follow. reason (enum
 * msamp_wire_interval_reason, 0 when absent) says who changed it. A raise by the device (reasons
 * LIVE_HIGH, STACK_HIGH, BUCKET_FULL, RING_HIGH: MSAMP_INTERVAL_THINS) also thins the live table at this point of the stream:
 * every live entry whose interval is below the new one stays only if
 * msamp_thin_keep(slot, epoch, session_id, msamp_thin_q16(size, its interval, interval))
 * (include/msamp_thin.h); an entry that stays now stands for the new interval, one that does not
 * leaves the live set without a FREE. docs/ADAPTIVE.md. */
#define MSAMP_WIRE_FIELDS_INTERVAL(F, m)                                     \
    F(m, REQ, interval, interval) F(m, DT, dt, dt) F(m, OPT, reason, reason) \
    F(m, WITH, epoch, epoch)

/* TIME: absolute timestamp; following dt fields are relative to it. */
#define MSAMP_WIRE_FIELDS_TIME(F, m) F(m, TS, ts, ts)

/* REALLOC: a realloc of a sampled block whose result was sampled too: the old block is freed and
 * the new one continues its lifetime. */
#define MSAMP_WIRE_FIELDS_REALLOC(F, m)                                                 \
    F(m, REQ, old_slot, old_slot) F(m, REQ, new_slot1, new_slot1) F(m, REQ, size, size) \
    F(m, REQ, stack_id, stack) F(m, DT, dt, dt) F(m, ADDR, addr, addr)

/* MARK: text bytes (the whole payload): an application marker (msamp_mark). */

/* MAPPING: start limit offset build_id_len:u8 build_id path_len path: a loaded image (hosted
 * programs). Addresses in [start, limit) belong to the ELF file `path`, mapped from file offset
 * `offset`. Sent with each SESSION. Without any MAPPING, addresses are the ELF's own (bare
 * metal). */

/* FAIL: an allocation that failed (kind MSAMP_FAIL_NULL: the allocator returned NULL for size > 0)
 * or that the giant-allocation guard refused (MSAMP_FAIL_GIANT), with the stack of the call.
 * Every failure is reported, not a sample of them: size is the request's, not weighted. count is
 * the device's cumulative number of failures of that kind (those whose record the ring dropped
 * included), so the host knows the total. */
#define MSAMP_WIRE_FIELDS_FAIL(F, m)                                                        \
    F(m, REQ, kind, kind) F(m, REQ, size, size) F(m, REQ, stack_id, stack) F(m, DT, dt, dt) \
    F(m, REQ, count, count)

/* CMD_ACK (extended): the device's answer to the command frame seq (docs/CONTROL.md) of command
 * cmd (enum msamp_wire_cmd): status (enum msamp_wire_cmd_status) says whether it carried it out
 * and how it went. series, present when the frame was of command version 2, is the frame's series
 * (the host's run): the host matches an ack by series, seq and cmd. A device carries out each seq
 * of a series once and in order; a repeat is acknowledged again (its status as recorded, or
 * MSAMP_CMD_DONE_EARLIER), a seq ahead of the one expected is refused (MSAMP_CMD_ERR_ORDER). */
#define MSAMP_WIRE_FIELDS_CMD_ACK(F, m)                               \
    F(m, REQ, seq, seq) F(m, REQ, cmd, cmd) F(m, REQ, status, status) F(m, OPT, series, series)

/* TASK (extended): task name_len name[name_len]: the name of a task id (1..65535) of an RTOS
 * device (an interrupt context has an id and a name too, "[interrupt]"). Sent once per identity
 * and when the id first appears; a later TASK for the same id renames it (the RTOS reused the
 * id). */

/* SAMPLE_TASK (extended): the task id of the sample record (ALLOC, REALLOC, FAIL) that follows it
 * in the same frame; any other record in between forgets it. Samples without one have no task. */
#define MSAMP_WIRE_FIELDS_SAMPLE_TASK(F, m) F(m, ID16, task, task)

/* END (extended): the device's last record of the session (msamp_end(): a hosted program's exit,
 * a firmware's shutdown), with its session totals: sampled allocations (ALLOC and REALLOC records
 * written or dropped), frees of sampled allocations (FREE records and REALLOC's old blocks) and
 * records the ring dropped (DROPS.ring_records). A reader that received every sample has
 * samples of them; a stream that ends without END was cut short. */
#define MSAMP_WIRE_FIELDS_END(F, m)                                          \
    F(m, REQ, samples, samples) F(m, REQ, frees, frees) F(m, REQ, dropped, dropped)

/* HEAP (extended): the allocator's own state (msamp_port_heap_stats, docs/HEALTH.md) when the
 * device sent it: reason (enum msamp_wire_heap_reason), valid (the MSAMP_HEAP_* bits of
 * msamp_port.h, MSAMP_WIRE_HEAP_* here: which of the next five fields the allocator knows; an
 * unknown one is 0), bytes free, the fewest bytes free ever (the allocator's figure or, with
 * MSAMP_WIRE_HEAP_MIN_SEEN, the fewest the device saw at its polls), the largest free block, the
 * free blocks and the heap's total. */
#define MSAMP_WIRE_FIELDS_HEAP(F, m)                                                         \
    F(m, REQ, reason, reason) F(m, REQ, valid, valid) F(m, REQ, free_bytes, free)           \
    F(m, REQ, min_free, min_free) F(m, REQ, largest_free, largest_free)                     \
    F(m, REQ, free_blocks, free_blocks) F(m, REQ, total, total) F(m, DT, dt, dt)

/* TASK_BUDGET (extended): task's estimated in-use bytes (the weights of its sampled live blocks,
 * as the device counts them since the budget was set) passed its budget (msamp_task_budget,
 * docs/HEALTH.md#task-budgets): the budget, the estimate just after the sample that passed it, the
 * task's peak estimate so far and events, the task's crossings so far (this one included: a reader
 * that saw fewer lost some). Once per crossing: the device sends the next after the estimate fell
 * back to 7/8 of the budget. */
#define MSAMP_WIRE_FIELDS_TASK_BUDGET(F, m)                                            \
    F(m, ID16, task, task) F(m, REQ, budget, budget) F(m, REQ, in_use, in_use)        \
    F(m, REQ, peak, peak) F(m, REQ, events, events) F(m, DT, dt, dt)

/* RESET (extended): the previous session ended by a reset. The next boot's msamp_init() sends it
 * from the block kept across the reset (MSAMP_CFG_RESET_PROFILE, docs/POSTMORTEM.md) as the last
 * record of that session, which it sends first: SESSION (the previous session_id, resend_seq
 * nonzero, MSAMP_SESSION_FLAG_PREVIOUS), TIME (the session's start), SNAP_BEGIN (pass 0, at the
 * last time known), STACK and LIVE records of its live set, SNAP_END, HEAP (reason END, the last
 * figures read) where the build has heap health, then RESET, whose dt is 0: the reset happened
 * at the last time known (msamp_note_reset's, else the last msamp_poll()'s). cause is enum
 * msamp_wire_reset_cause; samples, frees and dropped are END's totals as they were then. Then the
 * new boot's SESSION (resend_seq 0). A reader ends the previous session there: "ended by a
 * reset". */
#define MSAMP_WIRE_FIELDS_RESET(F, m)                                                         \
    F(m, REQ, cause, cause) F(m, REQ, samples, samples) F(m, REQ, frees, frees)              \
    F(m, REQ, dropped, dropped) F(m, DT, dt, dt)

/* RESET.cause (msamp.h's enum msamp_reset_cause has the same values). */
enum msamp_wire_reset_cause {
    MSAMP_WIRE_RESET_UNKNOWN = 0,  /* not noted (a watchdog without a hook, a reset pin) */
    MSAMP_WIRE_RESET_SOFTWARE = 1, /* the firmware asked for it */
    MSAMP_WIRE_RESET_FAULT = 2,    /* a fault handler */
    MSAMP_WIRE_RESET_WATCHDOG = 3, /* a watchdog's early warning */
    MSAMP_WIRE_RESET_ASSERT = 4,   /* a failed assertion, a panic */
    MSAMP_WIRE_RESET_CAUSES = 5
};

#define MSAMP_WIRE_TYPE_(NAME, type, member) MSAMP_REC_##NAME = type,
enum msamp_wire_type {
    MSAMP_REC_INVALID = 0,
    /* Type 15 means the first payload varint holds the real type (>= 16). */
    MSAMP_REC_EXTENDED = 15,
    MSAMP_WIRE_RECORDS(MSAMP_WIRE_TYPE_, MSAMP_WIRE_TYPE_)
};
#undef MSAMP_WIRE_TYPE_
/* Longest TASK name a device sends (configMAX_TASK_NAME_LEN is 16 by default). */
#define MSAMP_WIRE_MAX_TASK_NAME 32u

/* The down-channel: command frames from the host to the device (docs/CONTROL.md).
 *   frame = COBS(body) 0x00       body = version:u8 series:u16le seq:u16le cmd:u8 args crc:u32le
 * crc is the up-stream's CRC-32 over version, series, seq, cmd and args. Args by command:
 * SET_INTERVAL interval:varint; SET_BOUNDS min:varint max:varint; MARK text bytes (up to
 * MSAMP_WIRE_MAX_MARK); the others none. Trailing bytes after the args a device knows are ignored.
 * series (1..65535) names the host's run; seq counts its commands from 0. The device carries out
 * seq 0 of a series it does not know (starting that series), then only the seq it expects next
 * (the last one + 1, modulo 2^16); the statuses of its last MSAMP_CMD_KEPT commands are kept for
 * repeats. Version 1 (body = version seq:u16le cmd args crc, no order) is answered
 * MSAMP_CMD_ERR_VERSION and not carried out. */
#define MSAMP_CMD_VERSION 2u
#define MSAMP_CMD_VERSION_1 1u
/* Commands back whose statuses a device keeps (a nibble each in a u32): a host sends at most this
 * many before the first is acknowledged. */
#define MSAMP_CMD_KEPT 8u
/* Bytes before the args: version, series, seq, cmd. */
#define MSAMP_CMD_HEAD 6u
/* Largest command body (head, MARK's text, crc) and frame (COBS, 0x00). */
#define MSAMP_CMD_MAX_BODY (MSAMP_CMD_HEAD + MSAMP_WIRE_MAX_MARK + MSAMP_WIRE_CRC_SIZE)
#define MSAMP_CMD_MAX_FRAME (MSAMP_CMD_MAX_BODY + 2u)
enum msamp_wire_cmd {
    MSAMP_CMD_ENABLE = 1,          /* msamp_enable() */
    MSAMP_CMD_DISABLE = 2,         /* msamp_disable() */
    MSAMP_CMD_SET_INTERVAL = 3,    /* msamp_set_interval(interval) */
    MSAMP_CMD_SET_BOUNDS = 4,      /* msamp_set_interval_bounds(min, max) */
    MSAMP_CMD_SNAPSHOT = 5,        /* msamp_snapshot() */
    MSAMP_CMD_RESEND_IDENTITY = 6, /* SESSION, MAPPINGs, TIME and DROPS again (a late reader) */
    MSAMP_CMD_MARK = 7,            /* msamp_mark(text) */
    MSAMP_CMD_COUNT = 8
};
/* CMD_ACK.status: 0, or the negated MSAMP_ERR_* code the API call returned, or UNKNOWN; 7..9 say
 * the command was not carried out this time (ORDER, DONE_EARLIER, VERSION). */
enum msamp_wire_cmd_status {
    MSAMP_CMD_OK = 0,
    MSAMP_CMD_ERR_INVAL = 1,       /* a bad argument (interval 0, min > max, a cut argument) */
    MSAMP_CMD_ERR_STATE = 2,
    MSAMP_CMD_ERR_BUSY = 3,        /* the ring had no room: resend (it is carried out then) */
    MSAMP_CMD_ERR_IO = 4,
    MSAMP_CMD_ERR_UNSUPPORTED = 5, /* not in this build (SNAPSHOT in the tiny profile) */
    MSAMP_CMD_ERR_UNKNOWN = 6,     /* a command this device does not know */
    MSAMP_CMD_ERR_ORDER = 7,       /* not carried out: an earlier seq of the series has not come
                                      (or the series is not the device's: it reset): resend in order */
    MSAMP_CMD_DONE_EARLIER = 8,    /* carried out earlier, more than MSAMP_CMD_KEPT commands back:
                                      its status is no longer kept; not carried out again */
    MSAMP_CMD_ERR_VERSION = 9,     /* a version-1 frame (a host older than the device): not
                                      carried out */
    MSAMP_CMD_STATUSES = 10
};

/* The DROPS record's fields, in order: cumulative device counters of samples that lost
 * information (struct msamp_stats names them too). */
enum msamp_wire_drop {
    MSAMP_DROP_RING_RECORDS = 0, /* records dropped because the ring was full */
    MSAMP_DROP_RING_BYTES = 1,   /* bytes of those records */
    MSAMP_DROP_LIVE_FULL = 2,    /* samples not tracked as live: their bucket was full */
    MSAMP_DROP_STACK_FULL = 3,   /* samples whose stack did not fit the stack table */
    MSAMP_DROP_REENTRANT = 4,    /* allocations skipped because msamp was already running */
    MSAMP_DROP_TRUNCATED = 5,    /* stacks cut at the device's maximum depth */
    MSAMP_DROP_NO_FRAME = 6,     /* walks that found no frame at all (stack id 0): no unwind tables,
                                    no frame pointers, misplaced unwind sections */
    MSAMP_DROP_OUT_OF_BOUNDS = 7, /* of those, walks that began on a stack outside the bounds the
                                     walker may read (__msamp_stack_lo/hi): counted in both */
    MSAMP_DROP_COUNT = 8
};

/* FAIL.kind. */
enum msamp_wire_fail {
    MSAMP_FAIL_NULL = 0,  /* the allocator returned NULL */
    MSAMP_FAIL_GIANT = 1, /* the giant-allocation guard (MSAMP_CFG_GIANT_BYTES) refused it */
    MSAMP_FAIL_KINDS = 2
};

/* Why a HEAP record was sent (HEAP.reason). */
enum msamp_wire_heap_reason {
    MSAMP_HEAP_IDENTITY = 0, /* with an identity (SESSION) */
    MSAMP_HEAP_LOW = 1,      /* the low watermark fell by the step: a snapshot pass follows */
    MSAMP_HEAP_FAIL = 2,     /* right after a FAIL record, in its event: the heap at the failure */
    MSAMP_HEAP_END = 3,      /* just before END (msamp_end): the heap as the session ends */
    MSAMP_HEAP_REASONS = 4
};
/* HEAP.valid bits (the same as msamp_port.h's MSAMP_HEAP_*). */
#define MSAMP_WIRE_HEAP_TOTAL 0x01u
#define MSAMP_WIRE_HEAP_FREE 0x02u
#define MSAMP_WIRE_HEAP_MIN_FREE 0x04u
#define MSAMP_WIRE_HEAP_LARGEST_FREE 0x08u
#define MSAMP_WIRE_HEAP_FREE_BLOCKS 0x10u
#define MSAMP_WIRE_HEAP_MIN_SEEN 0x20u /* min_free: the fewest the device saw, not the allocator's */

/* Why the interval changed (INTERVAL.reason). */
enum msamp_wire_interval_reason {
    MSAMP_INTERVAL_SET = 0,         /* msamp_set_interval(): no thinning */
    MSAMP_INTERVAL_LIVE_HIGH = 1,   /* raised: the live table crossed its high-water mark */
    MSAMP_INTERVAL_STACK_HIGH = 2,  /* raised: stacks in use crossed the stack table's mark */
    MSAMP_INTERVAL_BUCKET_FULL = 3, /* raised: a sample found its reach full, the table 3/4 full */
    MSAMP_INTERVAL_LOWER = 4,       /* lowered: the tables fell below their low-water mark */
    MSAMP_INTERVAL_RING_HIGH = 5,   /* raised: a drain left the ring over 1/4 full */
    MSAMP_INTERVAL_REASONS = 6
};

/* Whether an INTERVAL of this reason (an unsigned value) is the device's raise, which thins the
 * live table. */
#define MSAMP_INTERVAL_THINS(reason)                                                               \
    (((reason) >= MSAMP_INTERVAL_LIVE_HIGH && (reason) <= MSAMP_INTERVAL_BUCKET_FULL) ||           \
     (reason) == MSAMP_INTERVAL_RING_HIGH)

/* The stack id of a sample whose stack found the stack table full with nothing to evict: it counts
 * in every total under a frame "[stack table full]" (DROPS.stack_full counts such samples). Id 0
 * stays "stack unknown" (no frame found). Device ids are below this. */
#define MSAMP_WIRE_STACK_FULL 0x0FFFFFFFu

/* SESSION flags. */
#define MSAMP_SESSION_FLAG_BIG_ENDIAN 0x01u
#define MSAMP_SESSION_FLAG_ADDRESSES 0x02u /* ALLOC/LIVE/REALLOC carry [addr] */
/* The device thins with sizes and intervals rounded to their 8-bit codes (msamp_thin_code; the
 * compact tables keep nothing finer): the host rounds the same before msamp_thin_q16. */
#define MSAMP_SESSION_FLAG_CODED_SIZES 0x04u
/* This SESSION and the records up to the next SESSION describe the previous boot's session, sent
 * by the next boot from the block it kept (RESET, above): not a re-send of the session in force. */
#define MSAMP_SESSION_FLAG_PREVIOUS 0x08u
/* The device reads command frames of version 2 (MSAMP_CMD_VERSION: a series, carried out once
 * and in order). A device without it reads version 1 or none (docs/CONTROL.md#versions). */
#define MSAMP_SESSION_FLAG_CMD_V2 0x40u

/* Architectures in SESSION.arch. */
enum msamp_wire_arch {
    MSAMP_ARCH_UNKNOWN = 0,
    MSAMP_ARCH_X86_64 = 1,
    MSAMP_ARCH_AARCH64 = 2,
    MSAMP_ARCH_ARM = 3,
    MSAMP_ARCH_ARM_THUMB = 4,
    MSAMP_ARCH_MIPS64 = 5,
    MSAMP_ARCH_RISCV64 = 6,
    MSAMP_ARCH_RISCV32 = 7,
    MSAMP_ARCH_X86 = 8
};

#endif
