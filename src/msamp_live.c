/* The live table's slots and fingerprint masks, for both table implementations: sampled blocks
 * not yet freed, by address. An address hashes to its home bucket of MSAMP_CFG_LIVE_WAYS slots
 * and takes the first free slot of its reach (the home and the 3 buckets after it, wrapping round,
 * way 0 of the four first: msamp_live_reach_slot), so a crowded bucket overflows into its
 * neighbours instead of refusing a sample while the table is mostly empty, and the low ways, the
 * small slot numbers, fill first. The masks are by home:
 * a block's fingerprint bit is in its home's word wherever its slot is, so a free of an unsampled
 * block still reads one mask word, and the reach only when its bit is set. (Tables sized at init:
 * a count per filter cell instead, msamp_table.h.) A new sample whose
 * reach is full is not tracked (the caller counts it, or raises the interval). A slot is published
 * or emptied by a single store of its address, so a RAM dump and the lock-free probe never see a
 * half-written slot. */
#include "msamp_internal.h"

/* The slots' storage: in the dump block, or an array of the compact tables' own. */
#if !MSAMP_CFG_COMPACT_TABLES
#define L msamp_heapdump.live_addr
#else
#define L msamp_live_slots
#endif

#if MSAMP_CFG_FREE_FILTER && MSAMP_CFG_RUNTIME_TABLES
_Atomic uint8_t msamp_live_count[MSAMP_PROBE_CELLS];
#elif MSAMP_CFG_FREE_FILTER
_Atomic uint32_t msamp_live_mask[MSAMP_PROBE_WORDS];
#endif
/* One bit per mask word: set when a block of the word went to a slot outside its home bucket (it
 * overflowed), cleared by a rebuild that finds none there any more. A clear bit lets the rebuild
 * read only the word's own buckets, as before the reach; a stale set bit costs only a longer
 * scan, so a reset leaves them. Where code size and RAM come first, only in a table of more than
 * one reach (the tiny profile's 256 slots: a word of RAM and some 40 bytes of code for 24 slots
 * fewer read at each sampled free, about 130 instructions on a Cortex-M3): a rebuild in the small
 * configurations' table of one reach always reads the whole table. */
#define SPILL                                                                                      \
    (MSAMP_CFG_FREE_FILTER && !MSAMP_CFG_RUNTIME_TABLES &&                                         \
     (!MSAMP_CFG_SMALL_CODE || MSAMP_CFG_LIVE_CAPACITY > MSAMP_LIVE_REACH))
#if SPILL
static uint32_t spill[(MSAMP_PROBE_WORDS + 31u) / 32u];
#define SPILLED(word) (spill[(word) / 32u] & (1u << ((word) % 32u)))
#define SPILL_SET(word) (spill[(word) / 32u] |= 1u << ((word) % 32u))
#define SPILL_CLEAR(word) (spill[(word) / 32u] &= ~(1u << ((word) % 32u)))
#else
#define SPILLED(word) 1u
#define SPILL_SET(word) ((void)0)
#define SPILL_CLEAR(word) ((void)0)
#endif

/* Tables sized at init come zeroed from the port (msamp_port_table_memory) and are left
 * untouched: a pass over them would make every page resident at start-up (about 0.8 MiB at the
 * hosted sizes). The masks are static, and may hold a previous session's bits. */
void msamp_live_reset(void)
{
#if !MSAMP_CFG_RUNTIME_TABLES
    for (uint32_t i = 0; i < MSAMP_LIVE_CAP; i++)
        atomic_store_explicit(&L[i], 0, memory_order_relaxed);
#endif
#if MSAMP_CFG_FREE_FILTER && MSAMP_CFG_RUNTIME_TABLES
    for (uint32_t i = 0; i < MSAMP_PROBE_CELLS; i++)
        if (atomic_load_explicit(&msamp_live_count[i], memory_order_relaxed) != 0)
            atomic_store_explicit(&msamp_live_count[i], 0, memory_order_relaxed);
#elif MSAMP_CFG_FREE_FILTER
    for (uint32_t b = 0; b < MSAMP_PROBE_WORDS; b++)
        if (atomic_load_explicit(&msamp_live_mask[b], memory_order_relaxed) != 0)
            atomic_store_explicit(&msamp_live_mask[b], 0, memory_order_relaxed);
#endif
}

/* The first slot of p's reach whose address is `want` (p itself, or 0 for a free one), or -1.
 * One copy for both callers when code size comes first. */
static MSAMP_HOT int32_t slot_holding(uintptr_t p, uintptr_t want)
{
    uint32_t home = msamp_live_bucket(msamp_live_hash(p));
    for (uint32_t k = 0; k < MSAMP_LIVE_REACH; k++) {
        uint32_t i = msamp_live_reach_slot(home, k);
        if (atomic_load_explicit(&L[i], memory_order_relaxed) == want)
            return (int32_t)i;
    }
    return -1;
}

/* A block whose fingerprint bit is clear is not in the table: no scan. */
int32_t msamp_live_find(uintptr_t p)
{
    return p != 0 && msamp_live_maybe(p) ? slot_holding(p, p) : -1;
}

int32_t msamp_live_free_slot(uintptr_t p)
{
    return slot_holding(p, 0);
}

#if MSAMP_CFG_FREE_FILTER && MSAMP_CFG_RUNTIME_TABLES
/* Under the lock: p's filter count up (d 1) or down (d -1); a count at 255 stays there, since it
 * may have counted more blocks than it holds. */
static void count_cell(uintptr_t p, int d)
{
    _Atomic uint8_t *n = &msamp_live_count[msamp_live_cell(p)];
    uint8_t was = atomic_load_explicit(n, memory_order_relaxed);
    if (was != 255u)
        atomic_store_explicit(n, (uint8_t)(was + d), memory_order_relaxed);
}
#elif MSAMP_CFG_FREE_FILTER
/* Rebuilds mask word `word` from the blocks whose home its hash range covers: they are in its
 * buckets, and in the reach after them when some overflowed. */
static void rebuild_word(uint32_t word)
{
    uint32_t b = word, own = 1;
    uint32_t mask = 0, outside = 0;
    /* The word's own buckets, and the 3 after them when a block overflowed: every way of each. */
    uint32_t n = SPILLED(word) ? own + MSAMP_LIVE_REACH_BUCKETS - 1u : own;
    for (uint32_t j = 0; j < n; j++) {
        /* A bucket's ways, MSAMP_LIVE_BUCKETS slots apart: a pointer stepped by that stride (an
         * empty slot costs a load, a branch and the loop's step). */
        const _Atomic uintptr_t *s = &L[msamp_live_slot_of((b + j) & (MSAMP_LIVE_BUCKETS - 1u), 0)];
        for (uint32_t way = 0; way < MSAMP_CFG_LIVE_WAYS; way++, s += MSAMP_LIVE_BUCKETS) {
            uintptr_t a = atomic_load_explicit(s, memory_order_relaxed);
            if (MSAMP_LIKELY(a == 0))
                continue; /* a free slot: a load and a branch, not the hash */
            uint32_t h = msamp_live_hash(a);
            if ((a & MSAMP_LIVE_MOVING) == 0 && msamp_live_word(h) == word) {
                mask |= msamp_live_bit(h);
                outside |= j >= own;
            }
        }
    }
    if (SPILL && !outside)
        SPILL_CLEAR(word);
    atomic_store_explicit(&msamp_live_mask[word], mask, memory_order_relaxed);
}

#endif

void msamp_live_publish(uint32_t slot, uintptr_t p)
{
#if !MSAMP_CFG_FREE_FILTER
    atomic_store_explicit(&L[slot], p, memory_order_release); /* no mask to keep */
#elif MSAMP_CFG_RUNTIME_TABLES
    /* The filter counts the slots that hold a block (a realloc's detached slot, p |
     * MSAMP_LIVE_MOVING, holds none: no probe is to find it). The new block counts before its slot
     * is published, the old one after it is gone, so a probe never misses a block in the table. */
    uintptr_t was = atomic_load_explicit(&L[slot], memory_order_relaxed);
    if (p != 0 && (p & MSAMP_LIVE_MOVING) == 0)
        count_cell(p, 1);
    atomic_store_explicit(&L[slot], p, memory_order_release);
    if (was != 0 && (was & MSAMP_LIVE_MOVING) == 0)
        count_cell(was, -1);
#else
    uintptr_t was = atomic_load_explicit(&L[slot], memory_order_relaxed);
    atomic_store_explicit(&L[slot], p, memory_order_release);
    /* The block in or out (a detached one's address without its mark): its hash and word. */
    uint32_t h = msamp_live_hash((p != 0 ? p : was) & ~MSAMP_LIVE_MOVING), word = msamp_live_word(h);
    if (SPILL && p != 0 && msamp_live_bucket_of(slot) != msamp_live_bucket(h))
        SPILL_SET(word); /* it overflowed: rebuilds read the reach */
    /* A realloc's detached slot (p | MSAMP_LIVE_MOVING) has no bit: no probe is to find it. */
    if (p != 0 && (p & MSAMP_LIVE_MOVING) == 0) {
        /* one more block: its bit joins the mask */
        uint32_t mask = atomic_load_explicit(&msamp_live_mask[word], memory_order_relaxed);
        atomic_store_explicit(&msamp_live_mask[word], mask | msamp_live_bit(h),
                              memory_order_relaxed);
        return;
    }
    /* One block fewer (or a block detached): the bits of the
     * blocks whose home is the changed block's, since two may share one. */
    rebuild_word(word);
#endif
}
