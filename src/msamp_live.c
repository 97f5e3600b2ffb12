/* The live table: sampled allocations not yet freed, by address. Set-associative: an address
 * hashes to one bucket of MSAMP_CFG_LIVE_WAYS slots whose addresses sit side by side, so the check
 * every free makes (is this block sampled?) reads one bucket and nothing else. A new sample whose
 * bucket is full is not tracked (the caller counts it). Slots publish with a single store of the
 * address, so a RAM dump and the lock-free probe never see a half-written slot. */
#include "msamp_internal.h"

#define BUCKETS (MSAMP_CFG_LIVE_CAPACITY / MSAMP_CFG_LIVE_WAYS)

static uint32_t bucket_of(uintptr_t p)
{
    /* Fibonacci hashing: the top bits of the product depend on every address bit, so blocks at
     * page or power-of-two strides spread as well as packed ones. */
    uint32_t top = (uint32_t)(((uint64_t)p * 0x9E3779B97F4A7C15ull) >> 32);
    return (uint32_t)(((uint64_t)top * BUCKETS) >> 32);
}

void msamp_live_reset(struct msamp_heapdump_v1 *d)
{
    for (uint32_t i = 0; i < MSAMP_CFG_LIVE_CAPACITY; i++)
        atomic_store_explicit(&d->live_addr[i], 0, memory_order_relaxed);
    d->live_used = 0;
}

int32_t msamp_live_find(const struct msamp_heapdump_v1 *d, uintptr_t p)
{
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
}

void msamp_live_clear(struct msamp_heapdump_v1 *d, uint32_t slot)
{
    atomic_store_explicit(&d->live_addr[slot], 0, memory_order_release);
    d->live_used--;
}
