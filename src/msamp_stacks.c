/* The stack table: call stacks interned once and named by a small id. Open addressing over the
 * entries by hash; frames in one shared pool. Nothing is ever evicted: a stack that finds the table
 * or the pool full is reported as id 0 ("unknown"), and the caller counts it. Callers hold the
 * port lock. */
#include "msamp_internal.h"

#define STACK_MASK (MSAMP_CFG_STACK_CAPACITY - 1u)

void msamp_stacks_reset(struct msamp_heapdump_v1 *d)
{
    for (uint32_t i = 0; i < MSAMP_CFG_STACK_CAPACITY; i++) {
        d->stacks[i].depth = 0;
        d->stacks[i].pass = 0;
    }
    d->stacks_used = 0;
    d->frames_used = 0;
}

static uint32_t hash_frames(const uintptr_t *pcs, uint32_t n)
{
    /* FNV-1a over the words, then a final avalanche: cheap, and spreads nearby addresses. */
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = (uint64_t)pcs[i];
        h = (h ^ (uint32_t)v) * 16777619u;
        h = (h ^ (uint32_t)(v >> 32)) * 16777619u;
    }
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static int same_frames(const struct msamp_heapdump_v1 *d, const struct msamp_stack_entry_v1 *e,
                       const uintptr_t *pcs, uint32_t n)
{
    if (e->depth != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (d->frames[e->first + i] != pcs[i])
            return 0;
    return 1;
}

uint32_t msamp_stacks_intern(struct msamp_heapdump_v1 *d, const uintptr_t *pcs, uint32_t n)
{
    if (n == 0)
        return 0;
    uint32_t h = hash_frames(pcs, n);
    uint32_t i = h & STACK_MASK;
    for (uint32_t probe = 0; probe < MSAMP_CFG_STACK_CAPACITY; probe++, i = (i + 1) & STACK_MASK) {
        if (i == 0)
            continue; /* id 0 is "unknown" */
        struct msamp_stack_entry_v1 *e = &d->stacks[i];
        if (e->depth == 0) {
            if (d->stacks_used + 2u > MSAMP_CFG_STACK_CAPACITY ||
                d->frames_used + n > MSAMP_CFG_FRAME_POOL)
                return 0;
            for (uint32_t k = 0; k < n; k++)
                d->frames[d->frames_used + k] = pcs[k];
            e->hash = h;
            e->first = d->frames_used;
            e->pass = 0;
            d->frames_used += n;
            d->stacks_used++;
            /* Depth last: a dump reader sees the entry only once it is complete. */
            atomic_signal_fence(memory_order_release);
            e->depth = (uint16_t)n;
            return i;
        }
        if (e->hash == h && same_frames(d, e, pcs, n))
            return i;
    }
    return 0;
}

uint32_t msamp_stacks_get(const struct msamp_heapdump_v1 *d, uint32_t id, const uintptr_t **pcs)
{
    if (id == 0 || id >= MSAMP_CFG_STACK_CAPACITY || d->stacks[id].depth == 0)
        return 0;
    *pcs = &d->frames[d->stacks[id].first];
    return d->stacks[id].depth;
}
