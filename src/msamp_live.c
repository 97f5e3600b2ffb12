/* The live table: sampled allocations not yet freed, by address. Set-associative: an address
 * hashes to one bucket of MSAMP_CFG_LIVE_WAYS slots. Each bucket keeps a 32-bit mask of its
 * blocks' fingerprint bits, so the check every free makes (is this block sampled?) is one load and
 * a bit test, and reads the bucket's addresses only when the bit is set (at most ways/32 of the
 * time for an unsampled block). A new sample whose bucket is full is not tracked (the caller
 * counts it). Slots publish with a single store of the address, so a RAM dump and the lock-free
 * probe never see a half-written slot. */
#include "msamp_internal.h"

static uint32_t bucket_of(uintptr_t p)
{
    return msamp_live_bucket(msamp_live_hash(p));
}

void msamp_live_reset(struct msamp_heapdump_v1 *d)
{
    for (uint32_t i = 0; i < MSAMP_CFG_LIVE_CAPACITY; i++)
        atomic_store_explicit(&d->live_addr[i], 0, memory_order_relaxed);
    for (uint32_t b = 0; b < MSAMP_LIVE_BUCKETS; b++)
        atomic_store_explicit(&d->live_mask[b], 0, memory_order_relaxed);
    d->live_used = 0;
}

int32_t msamp_live_find(const struct msamp_heapdump_v1 *d, uintptr_t p)
{
    if (p == 0)
        return -1; /* 0 marks an empty slot: free(NULL) must not find one */
    uint32_t base = bucket_of(p) * MSAMP_CFG_LIVE_WAYS;
    for (uint32_t w = 0; w < MSAMP_CFG_LIVE_WAYS; w++)
        if (atomic_load_explicit(&d->live_addr[base + w], memory_order_relaxed) == p)
            return (int32_t)(base + w);
    return -1;
}

int32_t msamp_live_free_slot(const struct msamp_heapdump_v1 *d, uintptr_t p)
{
    uint32_t base = bucket_of(p) * MSAMP_CFG_LIVE_WAYS;
    for (uint32_t w = 0; w < MSAMP_CFG_LIVE_WAYS; w++)
        if (atomic_load_explicit(&d->live_addr[base + w], memory_order_relaxed) == 0)
            return (int32_t)(base + w);
    return -1;
}

void msamp_live_set(struct msamp_heapdump_v1 *d, uint32_t slot, uintptr_t p, uintptr_t size,
                    uint32_t stack, uint32_t birth)
{
    d->live_size[slot] = size;
    d->live_stack[slot] = stack;
    d->live_birth[slot] = birth;
    d->live_used++;
    atomic_store_explicit(&d->live_addr[slot], p, memory_order_release);
    uint32_t b = slot / MSAMP_CFG_LIVE_WAYS;
    uint32_t mask = atomic_load_explicit(&d->live_mask[b], memory_order_relaxed);
    atomic_store_explicit(&d->live_mask[b], mask | msamp_live_bit(msamp_live_hash(p)),
                          memory_order_relaxed);
}

void msamp_live_clear(struct msamp_heapdump_v1 *d, uint32_t slot)
{
    atomic_store_explicit(&d->live_addr[slot], 0, memory_order_release);
    d->live_used--;
    /* Rebuild the bucket's mask from the blocks still in it. */
    uint32_t base = slot / MSAMP_CFG_LIVE_WAYS * MSAMP_CFG_LIVE_WAYS, mask = 0;
    for (uint32_t w = 0; w < MSAMP_CFG_LIVE_WAYS; w++) {
        uintptr_t a = atomic_load_explicit(&d->live_addr[base + w], memory_order_relaxed);
        if (a != 0)
            mask |= msamp_live_bit(msamp_live_hash(a));
    }
    atomic_store_explicit(&d->live_mask[slot / MSAMP_CFG_LIVE_WAYS], mask, memory_order_relaxed);
}
