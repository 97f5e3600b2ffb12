/* The live table's slots and fingerprint masks, for both table implementations: sampled blocks
 * not yet freed, by address. Set-associative: an address hashes to one bucket of
 * MSAMP_CFG_LIVE_WAYS slots, so a free of an unsampled block reads one mask word and, at most
 * ways/32 of the time, one bucket. A new sample whose bucket is full is not tracked (the caller
 * counts it). A slot is published or emptied by a single store of its address, so a RAM dump and
 * the lock-free probe never see a half-written slot. */
#include "msamp_internal.h"

/* The slots' storage: in the dump block, or an array of the compact tables' own. */
#if !MSAMP_CFG_COMPACT_TABLES
#define L msamp_heapdump.live_addr
#else
#define L msamp_live_slots
#endif

_Atomic uint32_t msamp_live_mask[MSAMP_PROBE_WORDS];

/* Tables sized at init come zeroed from the port (msamp_port_table_memory) and are left
 * untouched: a pass over them would make every page resident at start-up (about 0.8 MiB at the
 * hosted sizes). The masks are static, and may hold a previous session's bits. */
void msamp_live_reset(void)
{
#if !MSAMP_CFG_RUNTIME_TABLES
    for (uint32_t i = 0; i < MSAMP_LIVE_CAP; i++)
        atomic_store_explicit(&L[i], 0, memory_order_relaxed);
#endif
    for (uint32_t b = 0; b < MSAMP_PROBE_WORDS; b++)
        if (atomic_load_explicit(&msamp_live_mask[b], memory_order_relaxed) != 0)
            atomic_store_explicit(&msamp_live_mask[b], 0, memory_order_relaxed);
}

/* The slot of p's bucket whose address is `want` (p itself, or 0 for a free one), or -1. */
static int32_t slot_holding(uintptr_t p, uintptr_t want)
{
    uint32_t b = msamp_live_bucket(msamp_live_hash(p));
    for (uint32_t w = 0; w < MSAMP_CFG_LIVE_WAYS; w++) {
        uint32_t s = msamp_live_slot_of(b, w);
        if (atomic_load_explicit(&L[s], memory_order_relaxed) == want)
            return (int32_t)s;
    }
    return -1;
}

int32_t msamp_live_find(uintptr_t p)
{
    return p != 0 ? slot_holding(p, p) : -1;
}

int32_t msamp_live_free_slot(uintptr_t p)
{
    return slot_holding(p, 0);
}

#if MSAMP_CFG_RUNTIME_TABLES
/* Rebuilds mask word `word` from the blocks of the buckets its hash range covers. */
static void rebuild_word(uint32_t word)
{
    uint32_t h_lo = word << (32u - MSAMP_PROBE_WORD_BITS);
    uint32_t h_hi = h_lo | (0xFFFFFFFFu >> MSAMP_PROBE_WORD_BITS), mask = 0;
    for (uint32_t b = msamp_live_bucket(h_lo); b <= msamp_live_bucket(h_hi); b++)
        for (uint32_t w = 0; w < MSAMP_CFG_LIVE_WAYS; w++) {
            uintptr_t a = atomic_load_explicit(&L[msamp_live_slot_of(b, w)], memory_order_relaxed);
            uint32_t h = msamp_live_hash(a);
            if (a != 0 && (a & MSAMP_LIVE_MOVING) == 0 && msamp_live_word(h) == word)
                mask |= msamp_live_bit(h);
        }
    atomic_store_explicit(&msamp_live_mask[word], mask, memory_order_relaxed);
}
#endif

void msamp_live_publish(uint32_t slot, uintptr_t p)
{
    atomic_store_explicit(&L[slot], p, memory_order_release);
    uint32_t b = msamp_live_bucket_of(slot);
    /* A realloc's detached slot (p | MSAMP_LIVE_MOVING) has no bit: no probe is to find it. */
    if (!MSAMP_CFG_SMALL_CODE && p != 0 && (p & MSAMP_LIVE_MOVING) == 0) {
        /* one more block: its bit joins the mask */
        uint32_t h = msamp_live_hash(p), word = msamp_live_word(h);
        uint32_t mask = atomic_load_explicit(&msamp_live_mask[word], memory_order_relaxed);
        atomic_store_explicit(&msamp_live_mask[word], mask | msamp_live_bit(h),
                              memory_order_relaxed);
        return;
    }
    /* One block fewer (or a block detached, or, for smaller code, any change): the bits of the
     * blocks the word covers, since two may share one. */
#if MSAMP_CFG_RUNTIME_TABLES
    /* The words of bucket b's hash range (the removed block's among them): two at the default
     * sizes, each rebuilt from the one or few buckets it covers. */
    uint32_t first = msamp_live_word((uint32_t)(((uint64_t)b << 32) / MSAMP_LIVE_BUCKETS));
    uint32_t last = msamp_live_word((uint32_t)((((uint64_t)b + 1u) << 32) / MSAMP_LIVE_BUCKETS - 1u));
    for (uint32_t w = first; w <= last; w++)
        rebuild_word(w);
#else
    uint32_t mask = 0;
    for (uint32_t w = 0; w < MSAMP_CFG_LIVE_WAYS; w++) {
        uintptr_t a = atomic_load_explicit(&L[msamp_live_slot_of(b, w)], memory_order_relaxed);
        if (a != 0 && (a & MSAMP_LIVE_MOVING) == 0)
            mask |= msamp_live_bit(msamp_live_hash(a));
    }
    atomic_store_explicit(&msamp_live_mask[b], mask, memory_order_relaxed);
#endif
}
