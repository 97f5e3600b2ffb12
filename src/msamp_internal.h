/* Interfaces between the core's modules. Not part of the public API. */
#ifndef MSAMP_INTERNAL_H
#define MSAMP_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "msamp.h"
#include "msamp_heapdump.h"
#include "msamp_port.h"
#include "msamp_table.h"
#if MSAMP_CFG_SMALL_CODE
#define MSAMP_THIN_HELPER static __attribute__((noinline, unused))
#endif
#include "msamp_thin.h"
#include "msamp_pace.h"
#include "msamp_wire.h"

/* The link-aware interval (MSAMP_CFG_LINK_ADAPT, docs/ADAPTIVE.md "The link"): only where the
 * interval adapts. */
#define MSAMP_LINK_ADAPT (MSAMP_CFG_ADAPTIVE && MSAMP_CFG_LINK_ADAPT)
#define MSAMP_IS_POW2(x) ((x) != 0 && ((x) & ((x)-1)) == 0)
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_LIVE_CAPACITY), "MSAMP_CFG_LIVE_CAPACITY: power of two");
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_LIVE_WAYS), "MSAMP_CFG_LIVE_WAYS: power of two");
_Static_assert(MSAMP_CFG_LIVE_CAPACITY >= MSAMP_CFG_LIVE_WAYS, "live table smaller than a bucket");
_Static_assert(MSAMP_CFG_LIVE_CAPACITY <= MSAMP_WIRE_MAX_SLOTS,
               "MSAMP_CFG_LIVE_CAPACITY: at most MSAMP_WIRE_MAX_SLOTS (msamp_wire.h)");
_Static_assert(MSAMP_CFG_LIVE_WAYS <= 32, "MSAMP_CFG_LIVE_WAYS: at most 32");
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_STACK_CAPACITY), "MSAMP_CFG_STACK_CAPACITY: power of two");
_Static_assert(MSAMP_CFG_STACK_CAPACITY >= 2, "MSAMP_CFG_STACK_CAPACITY: at least 2");
_Static_assert(MSAMP_CFG_MAX_DEPTH >= 1 && MSAMP_CFG_MAX_DEPTH <= MSAMP_WIRE_MAX_DEPTH,
               "MSAMP_CFG_MAX_DEPTH: 1..MSAMP_WIRE_MAX_DEPTH");
_Static_assert(MSAMP_IS_POW2(MSAMP_CFG_RING_SIZE), "MSAMP_CFG_RING_SIZE: power of two");
_Static_assert(MSAMP_CFG_MAX_CONTEXTS >= 1, "MSAMP_CFG_MAX_CONTEXTS: at least 1");
_Static_assert(!MSAMP_CFG_SNAPSHOTS || !MSAMP_CFG_COMPACT_TABLES, "MSAMP_CFG_SNAPSHOTS needs the full tables (MSAMP_CFG_COMPACT_TABLES 0)");
_Static_assert(MSAMP_CFG_STACK_CAPACITY < MSAMP_WIRE_STACK_FULL, "stack ids below MSAMP_WIRE_STACK_FULL");
_Static_assert(MSAMP_CFG_THIN_BATCH >= 1, "MSAMP_CFG_THIN_BATCH: at least 1");
_Static_assert(MSAMP_CFG_CRC_TABLE >= 0 && MSAMP_CFG_CRC_TABLE <= 2, "MSAMP_CFG_CRC_TABLE: 0, 1 or 2");

#if defined(__GNUC__)
#define MSAMP_LIKELY(x) __builtin_expect(!!(x), 1)
#define MSAMP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MSAMP_WEAK __attribute__((weak))
/* Helpers called from several places stay out of line: at -Os compilers still copy small
 * functions into each caller, and on small parts code size matters more than a call. */
#define MSAMP_NOINLINE __attribute__((noinline))
/* A helper on the hot path of every byte written: inline, unless code size comes first. */
#if MSAMP_CFG_SMALL_CODE
#define MSAMP_HOT MSAMP_NOINLINE
#else
#define MSAMP_HOT __attribute__((always_inline)) inline
#endif
/* A helper with a few callers off the hot path: out of line where code size comes first, else
 * the compiler's choice. */
#if MSAMP_CFG_SMALL_CODE
#define MSAMP_SMALL_NOINLINE MSAMP_NOINLINE
#else
#define MSAMP_SMALL_NOINLINE
#endif
#else
#error "msamp needs GCC or Clang (weak symbols, builtins)"
#endif

/* The SESSION record's arch code and endian flag for the target being compiled. */
#if defined(__x86_64__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_X86_64
#elif defined(__aarch64__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_AARCH64
#elif defined(__arm__) && defined(__thumb__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_ARM_THUMB
#elif defined(__arm__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_ARM
#elif defined(__mips__) && defined(__mips64)
#define MSAMP_ARCH_SELF MSAMP_ARCH_MIPS64
#elif defined(__riscv) && __riscv_xlen == 64
#define MSAMP_ARCH_SELF MSAMP_ARCH_RISCV64
#elif defined(__riscv) && __riscv_xlen == 32
#define MSAMP_ARCH_SELF MSAMP_ARCH_RISCV32
#elif defined(__i386__)
#define MSAMP_ARCH_SELF MSAMP_ARCH_X86
#else
#define MSAMP_ARCH_SELF MSAMP_ARCH_UNKNOWN
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define MSAMP_SESSION_ENDIAN MSAMP_SESSION_FLAG_BIG_ENDIAN
#else
#define MSAMP_SESSION_ENDIAN 0u
#endif

/* sampler (msamp_sampler.c) */
/* One step of the generator; state must be nonzero. */
uint64_t msamp_rng_next(uint64_t *state);
/* A seed mixed from any 64-bit value (never 0). */
uint64_t msamp_rng_seed(uint64_t x);
/* -ln(u) in 20-bit fixed point for u = (r | 1) / 2^64, without libm (with MSAMP_CFG_SAMPLER32:
 * u = (low 32 bits of r | 1) / 2^32). */
uint32_t msamp_neg_log_q20(uint64_t r);
/* The next gap in bytes for mean interval R: floor(R * E) + 1 with E ~ Exp(1); always 1 for R = 1.
 * An allocation of s bytes reaches a gap g when s >= g, with probability 1 - exp(-s/R). */
uintptr_t msamp_draw_gap(uint64_t *state, uint32_t interval);

/* The frame writer (msamp_writer.c). Producers write events under the port lock straight into
 * the ring, past the bytes already published: each byte goes through the frame's CRC and COBS as
 * it is written, so there is no frame or record buffer. An event is one or more records that go
 * out together or not at all. Frames batch events until msamp_poll() closes them, or until their
 * body reaches MSAMP_CFG_FRAME_BYTES. */
struct msamp_writer {
    /* The time of the last timed record, the ring index of the next byte (wh) and of the open
     * COBS block's code byte, the CRC so far, the body's bytes (seq included) and records, the open
     * block's code, whether a frame is open; whether the identity is due by stream volume, and
     * (builds without snapshot passes) its re-sends so far. The last two fill what would be
     * padding. last_slot1: the slot + 1 of the latest ALLOC or REALLOC record in the open frame
     * (0: none, its sample had no slot, or an empty FREE freed it): a FREE of that slot at dt 0 is
     * an empty FREE record (wire v2). wt: the ring's tail when the event began, here where it
     * fills what would be padding, else in msamp_core (a take-back need not restore it). 32 bytes
     * on 32-bit targets: each event copies it (its mark), and clang on riscv32 copies a larger
     * struct by a call of memcpy. */
    uint64_t ts;
    uint32_t wh, code_at, crc;
    uint16_t n, records;
    uint8_t code, open, identity_due, resends;
#if MSAMP_CFG_EMPTY_FREE
    uint32_t last_slot1;
#else
    uint32_t wt;
#endif
};

/* A sink for a record's fields: sizing (counts bytes) or writing (into the open frame). Where code
 * size comes first every sink writes (NULL will do: it has no state), and a record is sized by
 * writing it and taking it back (msamp_event_record). */
struct msamp_sink {
    uint32_t n;
    uint32_t sizing;
};
void msamp_sink_byte(struct msamp_sink *s, uint32_t b);
void msamp_sink_varint(struct msamp_sink *s, uint64_t v);
void msamp_sink_bytes(struct msamp_sink *s, const void *p, uint32_t n);
/* A record's layout: writes its fields (after the header) into the sink; run once to size the
 * record, once to write it. */
typedef void (*msamp_layout_fn)(struct msamp_sink *s, const void *arg);

/* Before the boot header: a 0x00, so a frame a reset cut short ends there and the boot frame
 * after it is read whole. */
void msamp_writer_boot(void);
/* Starts an event (opens a frame when none is open, closing one that is full first); *mark keeps
 * what msamp_event_end needs to take the event back. */
void msamp_event_begin(struct msamp_writer *mark);
/* Writes one record of the event: the header for its size, then its fields. */
void msamp_event_record(unsigned type, msamp_layout_fn fn, const void *arg);
/* The same for a record whose fields are n varints (the layout of the commonest records). */
void msamp_event_varints(unsigned type, const uintptr_t *v, uint32_t n);
/* The time now, as the dt of a timed record of the event; writes an absolute TIME record first
 * when dt would not fit two varint bytes. */
uintptr_t msamp_event_stamp(void);
/* Ends the event: 0 when it fits the ring (it is sent with its frame); -1 when it does not, and
 * then it is taken back whole, and counted as dropped if `lossy` (an event, not a report the
 * caller repeats later or a refusal the caller returns). */
int msamp_event_end(const struct msamp_writer *mark, int lossy);
/* Closes the open frame, if any, and publishes it to the consumer. */
void msamp_writer_close(void);
/* Under the lock: bytes of the ring in use, published or written in the open frame. */
uint32_t msamp_ring_used(void);
/* Without the lock: bytes published and not yet handed to the transport. */
uint32_t msamp_ring_pending(void);
/* Consumer: hands published bytes to the transport, at most about one ring's worth. */
int msamp_ring_drain(void);
/* Consumer: whether everything written has been handed to the transport. */
int msamp_ring_empty(void);

/* Record layouts of wire format v1 (msamp_records.c): each written once, for every build. */
struct msamp_session_fields {
    uint32_t flags, session_id, resend_seq, arch, ptr_size, tick_hz, interval, live_capacity,
        stack_capacity, max_depth;
    const uint8_t *build_id;
    uint32_t build_id_len;
    const uint8_t *device_id;
    uint32_t device_id_len; /* 0: the optional field is not sent */
};
struct msamp_stack_fields {
    uint32_t id, depth;
    const uintptr_t *pcs;
};
struct msamp_varints64 {
    const uint64_t *v;
    uint32_t n;
};
struct msamp_bytes {
    const void *p;
    uint32_t n;
};
/* A STACK frame after the first: its difference d to the one before, zigzagged (signed to
 * unsigned, small either way). */
static inline uintptr_t msamp_zigzag(uintptr_t d)
{
    return (d << 1) ^ (0u - (d >> (sizeof(uintptr_t) * 8u - 1u)));
}
void msamp_layout_session(struct msamp_sink *s, const void *arg);
void msamp_layout_stack(struct msamp_sink *s, const void *arg);
void msamp_layout_varints64(struct msamp_sink *s, const void *arg); /* a struct msamp_varints64 */
void msamp_layout_bytes(struct msamp_sink *s, const void *arg);   /* a struct msamp_bytes */
void msamp_layout_mapping(struct msamp_sink *s, const void *arg); /* a struct msamp_mapping */
/* A MAPPING's path keeps its last this many bytes (the file name). */
#define MSAMP_MAPPING_PATH_MAX 192u
/* Records whose fields are varints, in wire order. */
/* ALLOC [old_slot < 0], or REALLOC of old_slot: slot1 size stack dt [addr]. */
void msamp_rec_alloc(int32_t old_slot, uint32_t slot1, uintptr_t size, uint32_t stack, uintptr_t dt,
                     uintptr_t addr);
void msamp_rec_free(uint32_t slot, uintptr_t dt, unsigned moved);
/* LIVE; interval, the one the entry stands for, is sent when it differs from the one in force. */
void msamp_rec_live(uint32_t slot, uintptr_t size, uint32_t stack, uint32_t birth, uintptr_t addr,
                    uint32_t interval);
void msamp_rec_drops(const uint32_t *count); /* MSAMP_CORE_DROPS counters */
/* INTERVAL; reason and epoch are sent unless reason is MSAMP_INTERVAL_SET. */
void msamp_rec_interval(uint32_t interval, uintptr_t dt, unsigned reason, uint32_t epoch);
void msamp_rec_snap_end(uint32_t pass, uint32_t count);
void msamp_rec_fail(unsigned kind, uintptr_t size, uint32_t stack, uintptr_t dt, uint32_t count);
/* CMD_ACK (an extended record): command frame seq, its command and status. */
void msamp_rec_cmd_ack(uint32_t seq, unsigned cmd, unsigned status, uint32_t series); /* series 0: none */
/* END (an extended record): the session's totals, the device's last record (msamp_end). */
void msamp_rec_end(uint32_t samples, uint32_t frees, uint32_t dropped);
/* RESET (an extended record): the previous session's end by a reset (msamp_keep.c). */
void msamp_rec_reset(uint32_t cause, uint32_t samples, uint32_t frees, uint32_t dropped);
/* The kept block (msamp_keep.c). */
#if MSAMP_KEEP
/* Before init's lock: the previous session from the kept block, when it is valid, onto the link
 * (the ring drained as it fills). */
void msamp_keep_replay(void);
/* The new session's block (init), and its figures brought up to date (msamp_poll). */
void msamp_keep_start(uint32_t session_id);
void msamp_keep_update(void);
/* msamp_end: the session ended with END, the block is no longer to be sent. */
void msamp_keep_end(void);
#else
#define msamp_keep_end() ((void)0)
#define msamp_keep_replay() ((void)0)
#define msamp_keep_start(session_id) ((void)0)
#define msamp_keep_update() ((void)0)
#endif
#if MSAMP_CFG_HEAP_STATS
void msamp_rec_heap(unsigned reason, const struct msamp_heap_stats *h, uintptr_t dt);
/* The allocator's state (msamp_heap.c): msamp_heap_read asks the port, outside the lock (a stats
 * struct of the caller's); msamp_heap_note, under the lock, keeps it and, when the low watermark
 * fell by the step, sends a HEAP record (reason LOW) and asks for a snapshot pass; msamp_heap_put
 * writes a HEAP record of the kept state into the open event. */
void msamp_heap_read(struct msamp_heap_stats *h);
/* msamp_poll's (MSAMP_CFG_HEAP_POLL_MS): msamp_heap_due, outside the lock, says whether to ask the
 * port now; msamp_heap_plan, under it, decides for the next poll. */
int msamp_heap_due(void);
void msamp_heap_plan(void);
void msamp_heap_note(const struct msamp_heap_stats *h);
void msamp_heap_put(unsigned reason);
#endif
#if MSAMP_CFG_TASK_BUDGETS
/* TASK_BUDGET (an extended record). */
void msamp_rec_task_budget(uint32_t task, uintptr_t budget, uintptr_t in_use, uintptr_t peak,
                           uint32_t events, uintptr_t dt);
/* Per-task budgets (msamp_task_budget.c), under the lock but the hooks: a sampled block of task in
 * slot (after msamp_live_set; a crossing sends its record, no event open); a slot about to be
 * emptied (msamp_slot_empty, before msamp_live_clear); thinning's new interval of a slot that stays (sets it);
 * init's zeroing; msamp_poll's records the ring had no room for; outside the lock, the hooks of
 * crossings, from the slow paths' exit. */
void msamp_budget_set(uint32_t slot, uint32_t task);
void msamp_budget_clear(uint32_t slot);
void msamp_budget_reweigh(uint32_t slot, uint32_t interval);
void msamp_budget_reset(void);
void msamp_budget_poll(void);
int msamp_budget_due(void); /* a record waits for msamp_budget_poll (msamp_flush goes on) */
void msamp_budget_hooks(void);
#else
#define msamp_budget_set(slot, task) ((void)0)
#define msamp_budget_clear(slot) ((void)0)
#define msamp_budget_reweigh(slot, interval) msamp_live_set_interval(slot, interval)
#endif
/* A live slot emptied (a free, a stale or detached entry, a block thinned out): its task's
 * budget gives back the block's weight, then the table forgets it. The one way slots are emptied. */
#define msamp_slot_empty(slot)      \
    do {                            \
        msamp_budget_clear(slot);   \
        msamp_live_clear(slot);     \
    } while (0)
/* SAMPLE_TASK (an extended record): the task of the sample record that follows in the event. */
void msamp_rec_sample_task(uint32_t task);
/* TASK (an extended record): a task id's name, a NUL-terminated string. */
struct msamp_task_fields {
    uint32_t task;
    const char *name;
};
void msamp_layout_task(struct msamp_sink *s, const void *arg);

/* The down-channel (msamp_command.c, MSAMP_CFG_CONTROL): from msamp_poll(), outside the lock, one
 * read of at most MSAMP_CFG_CONTROL_READ bytes from the transport, fed to the parser, which
 * carries out each whole command frame and acknowledges it. */
void msamp_command_poll(void);
/* Feeds received bytes to the parser (what msamp_command_poll does with what it read). */
void msamp_command_feed(const uint8_t *p, size_t n);
/* The parser's counters: commands carried out, repeats acknowledged again, malformed frames. */
void msamp_command_counts(uint32_t *done, uint32_t *repeated, uint32_t *bad, uint32_t *refused);

/* The loss counters the core keeps and sends in DROPS: all of enum msamp_wire_drop, but in the tiny
 * profile, which leaves out out_of_bounds (its DROPS stop at no_frame, as a device's from before
 * the field: drain then names both causes of walks without a frame) to keep the smallest
 * configuration within 1 KiB of RAM. */
#if MSAMP_CFG_TINY
#define MSAMP_CORE_DROPS MSAMP_DROP_OUT_OF_BOUNDS
#else
#define MSAMP_CORE_DROPS MSAMP_DROP_COUNT
#endif

/* msamp_core.initialised once END is written (msamp_end): msamp_poll() and msamp_flush() only move
 * the ring's bytes out, the control calls are refused, and the writer takes no event (END is the
 * session's last record). */
#define MSAMP_ENDED 2u

/* The core's state, under the port lock but where noted. */
struct msamp_core {
    struct msamp_writer w; /* first: small offsets keep Thumb loads and stores 16-bit */
#if MSAMP_CFG_EMPTY_FREE
    uint32_t wt; /* the ring's tail when the event being written began (struct msamp_writer) */
#endif
    _Atomic uint32_t head, tail; /* free-running ring indexes: producers (locked), the consumer */
    uint8_t seq, shift, initialised; /* 0, 1, or MSAMP_ENDED */
    _Atomic uint8_t enabled;
    _Atomic uint32_t gen;      /* bumped by every configuration change */
    _Atomic uint32_t interval; /* bytes */
    uint32_t count[MSAMP_CORE_DROPS]; /* loss counters (the reentrant one summed when sent) */
    uint32_t sent;                    /* their sum when last sent in a DROPS record */
    uint32_t samples, frees;
    /* Failures reported (FAIL.count), by kind; in the tiny profile 16-bit, saturating (with the
     * 32-bit seed below, this keeps the smallest configuration within 1 KiB of RAM). */
#if MSAMP_CFG_TINY
#define MSAMP_FAILED_MAX UINT16_MAX
    uint16_t failed[MSAMP_FAIL_KINDS];
#else
#define MSAMP_FAILED_MAX UINT32_MAX
    uint32_t failed[MSAMP_FAIL_KINDS];
#endif
    uint32_t registrations;
#if MSAMP_PORT_RTOS
    uint32_t tasks_named; /* TASK records sent since the last SESSION: ids 1..tasks_named */
#endif
    uint32_t session_id; /* for the dump block, the re-sent SESSION and the thinning coins */
    /* The adaptive interval (msamp_adapt.c): its bounds; the interval a thinning pass under way
     * thins to (0: none), the pass's next slot and its epoch (the coins' salt); counters; the time
     * of the last change. */
    uint32_t interval_min, interval_max;
    uint32_t thin_target, thin_cursor, epoch;
    uint32_t raises, lowers, thinned;
    uint32_t changed_at; /* low 32 bits of the time */
#if MSAMP_LINK_ADAPT
    /* The link (msamp_adapt.c): the backlog at which the next raise for it comes (0: the backlog
     * fell under half the ring since the last), the time a backlog over a quarter of the ring was
     * last seen, and the backlog itself: the bytes the last drain left in the ring (written by
     * msamp_ring_drain, read under the lock). */
    uint32_t ring_mark, behind_at;
    _Atomic uint32_t backlog;
#endif
#if MSAMP_CFG_LINK_BYTES_PER_S
    struct msamp_pace pace; /* MSAMP_CFG_LINK_BYTES_PER_S's credit (msamp_ring_drain) */
#endif
#if MSAMP_CFG_TINY
    uint32_t seed; /* contexts' generators are seeded from it (and their registration count) */
#else
    uint64_t seed;
    const char *device_id; /* msamp_config.device_id (the tiny profile asks the port only) */
#endif
#if MSAMP_CFG_SNAPSHOTS
    uint32_t pass; /* the snapshot pass under way, or the last one */
    uint32_t resend_seq, cursor, snap_count, mappings;
    /* Ring index (stream bytes) at the start and the end of the last pass; the bytes it took. */
    uint32_t pass_start, pass_end, pass_bytes;
    uint8_t scanning, snap_requested;
    uint64_t resend_ticks, next_resend;
#endif
#if MSAMP_CFG_HEAP_STATS
    /* The allocator's state as last read (msamp_heap_read), the low watermark last reported in a
     * HEAP record (UINTPTR_MAX: none yet) and its step. */
    struct msamp_heap_stats heap;
    uintptr_t heap_low, heap_step;
#if MSAMP_CFG_HEAP_POLL_MS
    uint64_t heap_next;       /* the time msamp_poll() asks the port again */
    _Atomic uint8_t heap_ask; /* set under the lock, read by the next msamp_poll() before it */
#endif
#endif
    struct msamp_context *ctx[MSAMP_CFG_MAX_CONTEXTS];
    uint8_t ring[MSAMP_CFG_RING_SIZE];
};
extern struct msamp_core msamp_core;

/* The snapshot pass stack definitions are sent for (always 1 in a build without passes). */
static inline uint32_t msamp_pass(void)
{
#if MSAMP_CFG_SNAPSHOTS
    return msamp_core.pass;
#else
    return 1;
#endif
}

/* The rate of wire ticks in Hz. */
static inline uint32_t msamp_tick_hz(void)
{
    return (uint32_t)(msamp_port_time_hz() >> msamp_core.shift);
}

/* The time now in wire ticks. */
static inline uint64_t msamp_now(void)
{
    return msamp_port_time() >> msamp_core.shift;
}

/* Contexts and the sampling decision (msamp_context.c). */
/* When an allocation of size bytes is sampled, the interval its gap was drawn at (nonzero); else
 * 0. Updates the context's countdown either way. */
uint32_t msamp_decide(struct msamp_context *c, size_t size);
/* Reseeds the contexts registered before msamp_init from the session's seed (under the lock). */
void msamp_reseed(void);
/* Makes every registered context re-read the configuration at its next allocation. */
void msamp_broadcast(void);
/* The reentrant-call counters of the registered contexts, summed. */
uint32_t msamp_reentrant(void);

/* What the core reports on its own (msamp_report.c): identity, loss counters, snapshot passes. */
/* The device's id (msamp_config.device_id, else the port's msamp_port_device_id()) and its length,
 * at most MSAMP_WIRE_MAX_DEVICE_ID; 0 (and *id NULL) when it has none, or when
 * MSAMP_CFG_DEVICE_ID is 0. */
uint32_t msamp_device_id(const uint8_t **id);
/* entropy with the device's id mixed in (FNV-1a over its bytes; unchanged without one): two
 * devices that boot alike draw different session ids. Without MSAMP_CFG_DEVICE_ID, entropy. */
#if MSAMP_CFG_DEVICE_ID
uint64_t msamp_device_entropy(uint64_t entropy);
#else
#define msamp_device_entropy(entropy) (entropy)
#endif
/* A SESSION record into the open event (flags: MSAMP_SESSION_FLAG_PREVIOUS, or 0). */
void msamp_rec_session(uint32_t session_id, uint32_t resend_seq, uint32_t flags, uint32_t interval,
                       uint32_t tick_hz);
/* SESSION (session_id, resend_seq) and the MAPPINGs: one event each. */
void msamp_put_identity(uint32_t session_id, uint32_t resend_seq);
/* An absolute TIME record: later dt fields count from now. */
void msamp_put_clock(void);
/* Under the lock, from msamp_poll(): due re-sends, the next part of a snapshot pass, a DROPS
 * record when a loss counter moved. */
void msamp_report_duties(void);

/* The adaptive interval (msamp_adapt.c), under the lock. */
#if MSAMP_CFG_ADAPTIVE
/* p's live slot, its pending thinning settled first (-1: not in the table, or thinned out). */
int32_t msamp_live_find_settled(uintptr_t p);
/* Whether slot holds an entry once its pending thinning is settled. */
int msamp_live_settled(uint32_t slot);
/* Thins a sample decided at *drawn to the interval in force when that is larger: 1 when it stays
 * (*drawn is then the interval in force), 0 when the coin (the context's generator) took it out. */
int msamp_adapt_admit(struct msamp_context *c, uint32_t *drawn, uintptr_t size);
/* p's bucket has no free slot: settles it, and raises the interval once when still full. 0 when
 * the sample itself was then thinned out. */
int msamp_adapt_room(struct msamp_context *c, uint32_t *drawn, uintptr_t p, uintptr_t size);
/* After each sample: the pass goes on a few slots; raises on a high-water mark. */
void msamp_adapt_after_sample(void);
/* From msamp_poll(): more of the pass, a raise or a lowering when due. */
void msamp_adapt_poll(void);
#else
/* Pinned: nothing is pending, nothing is thinned; a sample without room is counted live_full. */
static inline int32_t msamp_live_find_settled(uintptr_t p)
{
    return msamp_live_find(p);
}
static inline int msamp_live_settled(uint32_t slot)
{
    return msamp_live_addr(slot) != 0;
}
static inline int msamp_adapt_admit(struct msamp_context *c, uint32_t *drawn, uintptr_t size)
{
    (void)c, (void)drawn, (void)size;
    return 1;
}
static inline int msamp_adapt_room(struct msamp_context *c, uint32_t *drawn, uintptr_t p,
                                   uintptr_t size)
{
    (void)c, (void)drawn, (void)p, (void)size;
    return 1;
}
static inline void msamp_adapt_after_sample(void)
{
}
static inline void msamp_adapt_poll(void)
{
}
static inline void msamp_adapt_settle_all(void)
{
}
#endif
/* Changes the interval in force, with its INTERVAL record (reason: enum
 * msamp_wire_interval_reason) as an event of its own: the host must hear every change, so none
 * happens unless the record is in the ring. 1 when done. A raise starts a new thinning epoch. */
int msamp_adapt_change(uint32_t next, unsigned reason);
#if MSAMP_CFG_ADAPTIVE
/* Ends the pass under way (before the interval is set by hand). */
void msamp_adapt_settle_all(void);
#endif

/* The slow paths the wrappers call (msamp_sample.c). */
void msamp_alloc_slow(struct msamp_context *c, void *p, size_t size, const void *frame);
void msamp_free_slow(struct msamp_context *c, void *p);
/* old was a sampled block when the wrapper probed it; p (maybe NULL) is realloc's result. */
void msamp_realloc_slow(struct msamp_context *c, void *old, void *p, size_t size,
                        const void *frame);

/* struct msamp_context.busy: 0, or why an allocation in this context now is not looked at. */
#define MSAMP_BUSY_CORE 1   /* the core runs in this context: counted as reentrant */
#define MSAMP_BUSY_NESTED 2 /* a wrapper's call of the real allocator: the allocator's own calls */

/* An allocation failed (kind MSAMP_FAIL_NULL: the allocator returned NULL for size > 0) or the
 * giant guard refused it (MSAMP_FAIL_GIANT): a FAIL record with its stack (msamp_sample.c). */
void msamp_fail_slow(struct msamp_context *c, size_t size, const void *frame, unsigned kind);

/* The slow path of the wrappers that decide first (malloc, calloc, realloc, the aligned
 * allocators and newlib's _r forms: src/wrap/), in two halves around their own call of the real allocator. The first applies the
 * giant guard (MSAMP_SLOW_REFUSED: refused, reported; the wrapper fails the call) and decides:
 * the interval the sample was drawn at, or 0. The second looks at the result: a NULL for a
 * nonzero size is a failure (reported), a sampled block is recorded from `frame`, the slow path's
 * own frame address (the wrapper tail-called it, so its caller is the application). */
#define MSAMP_SLOW_REFUSED UINT32_MAX
/* Whether the first half refused the call: never without the giant guard, and the test folds. */
#define MSAMP_REFUSED(drawn) (MSAMP_CFG_GIANT_BYTES != 0 && (drawn) == MSAMP_SLOW_REFUSED)
uint32_t msamp_slow_decide(struct msamp_context *c, size_t size, const void *frame);

/* A walk's frames, from msamp_port_walk() through msamp_walk_collect(): n one past
 * MSAMP_CFG_MAX_DEPTH means the stack was cut; oob: the walk began outside the stack bounds
 * (MSAMP_WALK_OUT_OF_BOUNDS). */
struct msamp_walk {
    uintptr_t *pcs;
    uint32_t n;
    uint32_t oob;
};
int msamp_walk_collect(void *arg, uintptr_t pc);
/* The walk's buffer: two words before the frames (the STACK record's id and depth, written there
 * where code size comes first: msamp_sample.c's put_stack). */
#define MSAMP_WALK_WORDS (2u + MSAMP_CFG_MAX_DEPTH)
/* Declares walk `w` over a buffer of its own and walks from `frame` into it, in the function that
 * uses it rather than in a helper of its own: each frame between the walk's start and `frame` is
 * one more step of every walk, walked and dropped (about 130 instructions of the exidx walker's on
 * the Cortex-M3). */
#define MSAMP_WALK(w, frame)                                                                       \
    uintptr_t w##_pcs[MSAMP_WALK_WORDS];                                                           \
    struct msamp_walk w = {w##_pcs + 2, 0, 0};                                                     \
    msamp_port_walk(frame, msamp_walk_collect, &w)

/* Where the walk is done. A walker that unwinds from its caller's registers (the ARM port's exidx
 * walker, gcc's default in Thumb state; hosted Linux's DWARF walk, whose configuration sets this)
 * steps through every frame between the walk's start and `frame`, about 130 instructions each with
 * exidx: there msamp_slow_alloc is inline (MSAMP_WALK_IN_SLOW 1), so that a wrapper's slow
 * function walks from its own frame and the walk's first step leaves it for the application's. A
 * frame-chain walker (port/common/msamp_frame_walk.c: the ARM port's with clang and in ARM state,
 * aarch64, RISC-V, x86-64 bare metal) starts at `frame` itself, and a frame more below it costs
 * nothing: there msamp_slow_alloc is out of line, once (msamp_sample.c), rather than in each
 * wrapper. Out of line on MIPS too, whose walker proves a frame by scanning its function's code
 * (port/mips64/README.md) and does not find the frame of a `slow` that walks (the malta boards'
 * walks then found no frame). */
#if defined(__mips__)
#undef MSAMP_WALK_IN_SLOW
#define MSAMP_WALK_IN_SLOW 0
#elif !defined(MSAMP_WALK_IN_SLOW)
#if defined(__arm__) && defined(__thumb__) && !defined(__clang__)
#define MSAMP_WALK_IN_SLOW 1
#else
#define MSAMP_WALK_IN_SLOW 0
#endif
#endif
/* The second half, in two parts around the walk: msamp_slow_wants reports a failure and says
 * whether p is to be sampled (then the context is busy), msamp_slow_sample records it from the
 * walk and leaves the slow path (functions of their own where the walk is inline, and on MIPS). */
#if MSAMP_WALK_IN_SLOW || defined(__mips__)
int msamp_slow_wants(struct msamp_context *c, void *p, size_t size, const void *frame,
                     uint32_t drawn);
void msamp_slow_sample(struct msamp_context *c, void *p, size_t size, struct msamp_walk *w,
                       uint32_t drawn);
#endif
#if MSAMP_WALK_IN_SLOW
static inline __attribute__((always_inline)) void msamp_slow_alloc(struct msamp_context *c,
                                                                   void *p, size_t size,
                                                                   const void *frame,
                                                                   uint32_t drawn)
{
    if (msamp_slow_wants(c, p, size, frame, drawn)) {
        MSAMP_WALK(w, frame);
        msamp_slow_sample(c, p, size, &w, drawn);
    }
}
#else
void msamp_slow_alloc(struct msamp_context *c, void *p, size_t size, const void *frame,
                      uint32_t drawn);
#endif
/* realloc's, in two halves too. Before the real call, msamp_realloc_detach takes old's live slot
 * off its address (under the lock; -1 when old is not tracked, or the context is busy): the slot
 * keeps the allocation but holds old | MSAMP_LIVE_MOVING, which no probe matches. Once the real
 * realloc has freed old, its address may come back from another context's malloc (an interrupt,
 * a task, a thread) before this one takes the lock again; a sample of that block must not take
 * the chain's slot for its stale entry, nor the chain take the new block's slot for its own.
 * msamp_slow_realloc then ends the move: a REALLOC from the slot when p is sampled, a FREE
 * (marked moved) when it is not, the slot given back its address when the call failed (p NULL for
 * a nonzero size: the old block is untouched), a FREE when realloc(old, 0) freed it. */
#if MSAMP_CFG_REALLOC_CHAINS
#define MSAMP_LIVE_MOVING ((uintptr_t)1) /* allocators' blocks are at least 2-aligned */
#else
#define MSAMP_LIVE_MOVING ((uintptr_t)0) /* no slot is ever detached */
#endif
int32_t msamp_realloc_detach(struct msamp_context *c, void *old);
void msamp_slow_realloc(struct msamp_context *c, void *old, int32_t old_slot, void *p, size_t size,
                        const void *frame, uint32_t drawn);

/* Whether p is a sampled block the live table tracks. (The allocation paths' inline parts, the
 * charge, the notes and the nesting guard, are in src/wrap/msamp_fast.h.) */
static inline int msamp_is_sampled(void *p)
{
    return p != NULL && msamp_live_maybe((uintptr_t)p) && msamp_live_find((uintptr_t)p) >= 0;
}

/* msamp_on_realloc's bookkeeping, after the real realloc returned p: old_sampled is old's probe
 * (an unsampled old block takes msamp_note_alloc's charge, as a malloc would). Out of line
 * (msamp_note_realloc.c); the realloc wrappers detach old's slot before their real call instead
 * (msamp_realloc_detach). */
void msamp_note_realloc(void *old, int old_sampled, void *p, size_t size, const void *frame);

#endif
