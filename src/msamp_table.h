/* The live table and the stack table: one interface, two implementations chosen by
 * MSAMP_CFG_COMPACT_TABLES (0: msamp_table_dump.c, the RAM-dump block; 1: msamp_table_compact.c, address-only
 * slots and hashed stacks). Everything but the lock-free probes runs under the port lock. */
#ifndef MSAMP_TABLE_H
#define MSAMP_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "msamp_config.h"
#include "msamp_heapdump.h"

/* The rules of include/msamp_config.h the tables' own code depends on: checked here, before
 * anything below uses them, so that a build that breaks them stops at the rule's message. */
_Static_assert(!MSAMP_CFG_RUNTIME_TABLES || !MSAMP_CFG_COMPACT_TABLES,
               "MSAMP_CFG_RUNTIME_TABLES needs the full tables (MSAMP_CFG_COMPACT_TABLES 0)");
_Static_assert(MSAMP_CFG_HEAPDUMP || MSAMP_CFG_COMPACT_TABLES,
               "MSAMP_CFG_HEAPDUMP 0 needs the compact tables (the full tables are the RAM-dump block)");

/* Linked into the executable (or a firmware image): reached without a GOT load. */
#define MSAMP_TABLE_HIDDEN __attribute__((visibility("hidden")))

/* The tables' capacities: build-time constants, or (MSAMP_CFG_RUNTIME_TABLES, hosted) sizes the
 * port chose at init, kept in the dump block's header. */
#if MSAMP_CFG_RUNTIME_TABLES
#define MSAMP_LIVE_CAP (msamp_heapdump.live_capacity)
#define MSAMP_STACK_CAP (msamp_heapdump.stack_capacity)
#define MSAMP_FRAME_CAP (msamp_heapdump.frame_capacity)
#define MSAMP_LIVE_BUCKETS (msamp_live_buckets)
extern uint32_t msamp_live_buckets;
/* The free filter of a table sized at init: a static array of a build-time size whatever the
 * table's, a byte per cell counting the live blocks whose cell it is (msamp_live_cell: a multiply
 * and a shift), so the probe every free makes is one byte's load and test, and a free of a sampled
 * block takes its count down instead of rebuilding anything (a count at 255 stays there: its cell
 * answers "maybe" for good). Its probe costs a free 5 instructions beyond a bare --wrap, where the
 * word-per-bucket masks it replaced (the table's mixed hash, a word and a bit; 64 KiB) cost 13
 * (make bench-wrappers, issue 41). 2^17 cells, 128 KiB: a probe that finds nothing (about 180
 * instructions, the block's reach scanned) comes at 2,000 live samples on 0.7-1.7 % of frees (the
 * masks' 2^19 bits: 0.4 %), at 10,000 on 3.4-8.5 % (1.9 %): make bench-free-filter. */
#define MSAMP_PROBE_CELL_BITS 17u
#define MSAMP_PROBE_CELLS (1u << MSAMP_PROBE_CELL_BITS)
#if MSAMP_CFG_FREE_FILTER
extern _Atomic uint8_t msamp_live_count[MSAMP_PROBE_CELLS] MSAMP_TABLE_HIDDEN;
#endif
#else
#define MSAMP_LIVE_CAP ((uint32_t)MSAMP_CFG_LIVE_CAPACITY)
#define MSAMP_STACK_CAP ((uint32_t)MSAMP_CFG_STACK_CAPACITY)
#define MSAMP_FRAME_CAP ((uint32_t)MSAMP_CFG_FRAME_POOL)
#define MSAMP_LIVE_BUCKETS (MSAMP_CFG_LIVE_CAPACITY / MSAMP_CFG_LIVE_WAYS)
/* One 32-bit fingerprint mask per bucket of MSAMP_CFG_LIVE_WAYS slots: the bit of each block in
 * the bucket is set, so the check every free makes (is this block sampled?) is one load and a bit
 * test, and reads the bucket's addresses only when the bit is set. */
#define MSAMP_PROBE_WORDS MSAMP_LIVE_BUCKETS
#if MSAMP_CFG_FREE_FILTER
extern _Atomic uint32_t msamp_live_mask[MSAMP_LIVE_BUCKETS];
#endif
#endif

/* The address's hash: its top bits pick the bucket, bits 16..20 the block's fingerprint bit in its
 * bucket's mask (fixed tables; the tables sized at init filter frees with msamp_live_cell). A multiply by the golden ratio, the high half
 * folded onto the low with an xor, and the same multiply again (the shape of murmur3's finaliser):
 * the top bits depend on every address bit, and not linearly. A multiply alone (Fibonacci hashing)
 * maps blocks in arithmetic progression, as an allocator hands them out, to a rotation of the
 * circle, whose points crowd into a few clusters when stride x 0.618... is near a fraction of small
 * denominator: glibc's 1000 B blocks, 1008 B apart, took 833 of 8192 buckets, and the table at
 * 15 % load refused 29 % of them (issue 36). */
#if !MSAMP_CFG_RUNTIME_TABLES && MSAMP_CFG_LIVE_CAPACITY <= 4u * MSAMP_CFG_LIVE_WAYS
/* A table of one reach (4 buckets: the small configurations' 32 slots) gives every block every slot
 * whatever its home, so no layout of addresses crowds it: there the multiply alone, 8 bytes less
 * (the minimal Cortex-M3 firmware's 4096 B). */
#define MSAMP_LIVE_HASH_MIX 0
#else
#define MSAMP_LIVE_HASH_MIX 1
#endif
static inline uint32_t msamp_live_hash(uintptr_t p)
{
#if !MSAMP_LIVE_HASH_MIX
    return (uint32_t)p * 0x9E3779B9u;
#elif UINTPTR_MAX > 0xFFFFFFFFu
    uint64_t x = (uint64_t)p * 0x9E3779B97F4A7C15ull;
    x ^= x >> 32;
    return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32);
#else
    uint32_t x = (uint32_t)p * 0x9E3779B9u;
    x ^= x >> 16;
    return x * 0x9E3779B9u;
#endif
}

static inline uint32_t msamp_live_bucket(uint32_t h)
{
    return (uint32_t)(((uint64_t)h * MSAMP_LIVE_BUCKETS) >> 32);
}

#if !MSAMP_CFG_RUNTIME_TABLES
/* The mask word of hash h and its bit in that word. */
static inline uint32_t msamp_live_word(uint32_t h)
{
    return msamp_live_bucket(h);
}

static inline uint32_t msamp_live_bit(uint32_t h)
{
    return 1u << ((h >> 16) & 31u);
}
#else
/* p's cell of the free filter: the top bits of a multiply of its low 32 bits (Fibonacci hashing,
 * without the table hash's second round: the probe of every free pays for each instruction; the
 * clusters a multiply alone makes of some strides cost only more probes that find nothing). */
static inline uint32_t msamp_live_cell(uintptr_t p)
{
    return ((uint32_t)p * 0x9E3779B9u) >> (32u - MSAMP_PROBE_CELL_BITS);
}
#endif

/* Lock-free: 0 when p is certainly not in the table (the common case of every free); nonzero when
 * it may be (then msamp_live_find decides). Without the filter (MSAMP_CFG_FREE_FILTER 0) any block
 * but NULL may be. */
static inline uint32_t msamp_live_maybe(uintptr_t p)
{
#if !MSAMP_CFG_FREE_FILTER
    return p != 0;
#elif MSAMP_CFG_RUNTIME_TABLES
    return atomic_load_explicit(&msamp_live_count[msamp_live_cell(p)], memory_order_relaxed);
#else
    uint32_t h = msamp_live_hash(p);
    return atomic_load_explicit(&msamp_live_mask[msamp_live_word(h)], memory_order_relaxed) &
           msamp_live_bit(h);
#endif
}

/* The slots are numbered way-major: slot = way * buckets + bucket, a bucket's slots
 * MSAMP_LIVE_BUCKETS apart. The wire names an entry by its slot, and the table fills its low ways
 * first, so the entries take the smallest numbers, the shortest varints: at the hosted 65536 slots
 * ways 0 and 1 are 2-byte varints, where bucket-major numbering made three slots in four 3 bytes;
 * in a 256-slot firmware table ways 0..3 are one byte (docs/WIRE_FORMAT.md#slots). */
static inline uint32_t msamp_live_slot_of(uint32_t bucket, uint32_t way)
{
    return bucket + way * MSAMP_LIVE_BUCKETS;
}

static inline uint32_t msamp_live_bucket_of(uint32_t slot)
{
    return slot & (MSAMP_LIVE_BUCKETS - 1u);
}

/* The slots a block may take: way 0 of its home bucket and of the 3 buckets after it (wrapping
 * round the table), then way 1 of the four, and so on: its reach, MSAMP_LIVE_REACH slots in the
 * order a sample takes the first free one, so the low ways fill first (the shortest varints) and a
 * sample goes to the least full of its four buckets. Four buckets' reach refuses none of
 * unit-spread's heap-like samples at half load and about 1 in 2000 at three quarters (8 ways; one
 * bucket: 3 % and 12 %), and costs the lookups of a sampled block and the mask's rebuild when one
 * is freed. */
#define MSAMP_LIVE_REACH_BUCKETS 4u
#define MSAMP_LIVE_REACH (MSAMP_LIVE_REACH_BUCKETS * MSAMP_CFG_LIVE_WAYS)

/* The k-th slot of the reach of the block whose home is bucket `home` (k < MSAMP_LIVE_REACH). */
static inline uint32_t msamp_live_reach_slot(uint32_t home, uint32_t k)
{
    return msamp_live_slot_of((home + k % MSAMP_LIVE_REACH_BUCKETS) & (MSAMP_LIVE_BUCKETS - 1u),
                              k / MSAMP_LIVE_REACH_BUCKETS);
}

/* Whether slot is in p's reach: its bucket is p's home or one of the 3 after it. */
static inline int msamp_live_reaches(uintptr_t p, uint32_t slot)
{
    uint32_t home = msamp_live_bucket(msamp_live_hash(p));
    return ((msamp_live_bucket_of(slot) - home) & (MSAMP_LIVE_BUCKETS - 1u)) <
           MSAMP_LIVE_REACH_BUCKETS;
}

/* The live slots' addresses (0: free), slot i in bucket msamp_live_bucket_of(i): the compact
 * tables' own array, or msamp_heapdump.live_addr. msamp_live.c keeps them and the masks for both
 * implementations. */
#if MSAMP_CFG_COMPACT_TABLES
extern _Atomic uintptr_t msamp_live_slots[MSAMP_CFG_LIVE_CAPACITY];
#endif
/* Stores slot's address (0 empties it) with one store, then rebuilds its bucket's mask. */
void msamp_live_publish(uint32_t slot, uintptr_t p);
/* Empties every slot and mask. */
void msamp_live_reset(void);

/* Sets the tables up and empties them (init): MSAMP_ERR_INVAL when the port's capacities are not
 * powers of two in range, MSAMP_ERR_IO when it has no memory for them (MSAMP_CFG_RUNTIME_TABLES). */
int msamp_table_reset(void);
/* Puts the session's parameters where a RAM-dump reader finds them and marks the block valid
 * (init; again when the interval changes). Nothing to do for the compact tables. */
#if MSAMP_CFG_HEAPDUMP || !MSAMP_CFG_COMPACT_TABLES
void msamp_table_describe(uint32_t session_id, uint32_t interval, uint32_t tick_hz);
#else
#define msamp_table_describe(session_id, interval, tick_hz) ((void)0) /* no block */
#endif
#if MSAMP_CFG_HEAPDUMP
/* The previous boot's session id, from the block's header (.noinit.msamp: kept across a warm
 * reset) when its magic is there; 0 after power-on (1 in 2^32 of garbage passes), or without a
 * block. Init mixes it into the new id. */
static inline uint32_t msamp_table_previous(void)
{
    return atomic_load_explicit(&msamp_heapdump.magic, memory_order_relaxed) == MSAMP_HEAPDUMP_MAGIC
               ? msamp_heapdump.session_id
               : 0u;
}
#else
#define msamp_table_previous() 0u
#endif

/* Lock-free probe of p's reach: its slot, or -1 (always -1 for p == 0, the empty slot's mark). */
int32_t msamp_live_find(uintptr_t p);
/* The first free slot of p's reach, or -1 when the reach is full. p must not be in the table. */
int32_t msamp_live_free_slot(uintptr_t p);
/* Fills a slot for a block sampled at `interval`; the address is published last, with one store.
 * The slot holds a reference to its stack (an evicted stack is one no slot refers to). */
void msamp_live_set(uint32_t slot, uintptr_t p, uintptr_t size, uint32_t stack, uint32_t birth,
                    uint32_t interval);
/* Empties a slot with one store and drops its stack reference. */
void msamp_live_clear(uint32_t slot);
uint32_t msamp_live_used(void);
/* What thinning reads of an occupied slot: its block's size and the interval it stands for (exact,
 * or rounded down to 8-bit codes in the compact tables: msamp_thin_code), and the slot's address
 * (0: free). */
uintptr_t msamp_live_thin_size(uint32_t slot);
uint32_t msamp_live_interval(uint32_t slot);
void msamp_live_set_interval(uint32_t slot, uint32_t interval);
uintptr_t msamp_live_addr(uint32_t slot);

/* Interns frames pcs[0..n) and returns the stack's id (1..capacity-1); 0 when n is 0;
 * MSAMP_WIRE_STACK_FULL when the table (or frame pool) is full and no stack can be evicted. A
 * stack no live slot refers to may be evicted to make room, and its id handed to a new stack,
 * whose definition is then unsent. */
uint32_t msamp_stack_intern(const uintptr_t *pcs, uint32_t n);
/* Stacks that live slots refer to now (what the adaptive interval watches). */
uint32_t msamp_stacks_referenced(void);
/* Stacks evicted since init. */
uint32_t msamp_stacks_evicted(void);
/* Whether stack id's definition must be sent before a record that uses it: never sent, or (with
 * snapshot passes) not yet in pass `pass`. Never for id 0 or MSAMP_WIRE_STACK_FULL. */
int msamp_stack_unsent(uint32_t id, uint32_t pass);
/* Its definition went out in pass `pass`. */
void msamp_stack_sent(uint32_t id, uint32_t pass);
#if MSAMP_CFG_COMPACT_TABLES
/* Every definition is unsent again (the compact tables; the dump tables count passes). */
void msamp_stacks_resend(void);
#endif
uint32_t msamp_stacks_used(void);
/* Frames in use in the frame pool (0 for the compact tables). */
uint32_t msamp_frames_used(void);

/* Kept across a reset (MSAMP_CFG_RESET_PROFILE, src/msamp_keep.c): the static full tables, in
 * section .noinit.msamp (port/msamp.ld: NOLOAD in RAM), which the start code neither loads nor
 * zeroes. The full tables' block header is there in every build (its session id: the next boot's
 * entropy). */
#define MSAMP_KEEP (MSAMP_CFG_RESET_PROFILE && !MSAMP_CFG_COMPACT_TABLES && !MSAMP_CFG_RUNTIME_TABLES)
/* Zero-initialised variables in a named section: gcc makes it NOBITS by the attribute; clang
 * only by its pragma (the attribute alone gives PROGBITS: zeros in the image). Declarations go
 * between MSAMP_NOINIT_BEGIN and MSAMP_NOINIT_END, each with MSAMP_NOINIT. */
#if defined(__clang__)
#define MSAMP_NOINIT_BEGIN _Pragma("clang section bss=\".noinit.msamp\"")
#define MSAMP_NOINIT_END _Pragma("clang section bss=\"\"")
#define MSAMP_NOINIT
#else
#define MSAMP_NOINIT_BEGIN
#define MSAMP_NOINIT_END
#define MSAMP_NOINIT __attribute__((section(".noinit.msamp")))
#endif
#if MSAMP_KEEP
#define MSAMP_KEPT_BEGIN MSAMP_NOINIT_BEGIN
#define MSAMP_KEPT_END MSAMP_NOINIT_END
#define MSAMP_KEPT MSAMP_NOINIT
/* Whether the block's header is this build's (version, pointer size, capacities, the arrays'
 * addresses) and valid (its magic): what a previous boot left, before msamp_table_reset. */
int msamp_table_kept(void);
/* A kept stack's frames (its depth, 0: undefined or implausible: beyond the pool, too deep). */
uint32_t msamp_stack_kept(uint32_t id, const uintptr_t **pcs);
/* Every stack definition unsent (pass 0), for the previous session's replay. */
void msamp_stacks_unmark(void);
#else
#define MSAMP_KEPT_BEGIN
#define MSAMP_KEPT_END
#define MSAMP_KEPT
#endif

#if !MSAMP_CFG_COMPACT_TABLES
/* What a snapshot pass reads back: slot's block (addr 0: the slot is free). */
struct msamp_live_entry {
    uintptr_t addr, size;
    uint32_t stack, birth, interval;
};
void msamp_live_get(uint32_t slot, struct msamp_live_entry *e);
/* Frames of stack id; returns the depth (0: not defined). */
uint32_t msamp_stack_frames(uint32_t id, const uintptr_t **pcs);
#endif

#endif
