/* The tables in the RAM-dump block (MSAMP_CFG_HEAPDUMP; layout in include/msamp_heapdump.h).
 * Live slots (msamp_live.c) with each block's size, stack and birth beside its address. Stack table: open addressing by hash over the entries, frames in one shared pool; nothing is
 * ever evicted: a stack that finds the table or the pool full gets id 0 ("unknown"). */
#include "msamp_internal.h"

#if MSAMP_CFG_HEAPDUMP

_Static_assert(MSAMP_CFG_FRAME_POOL >= MSAMP_CFG_MAX_DEPTH, "frame pool below one stack");

#define D msamp_heapdump
#define STACK_MASK (MSAMP_CFG_STACK_CAPACITY - 1u)

struct msamp_heapdump_v2 msamp_heapdump __attribute__((section(".bss.msamp")));

void msamp_table_reset(void)
{
    msamp_live_reset();
    for (uint32_t i = 0; i < MSAMP_CFG_STACK_CAPACITY; i++) {
        D.stacks[i].depth = 0;
        D.stacks[i].pass = 0;
    }
    D.live_used = 0;
    D.stacks_used = 0;
    D.frames_used = 0;
}

void msamp_table_describe(uint32_t session_id, uint32_t interval, uint32_t tick_hz)
{
    D.version = MSAMP_HEAPDUMP_VERSION;
    D.ptr_size = (uint16_t)sizeof(uintptr_t);
    D.live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    D.live_ways = MSAMP_CFG_LIVE_WAYS;
    D.stack_capacity = MSAMP_CFG_STACK_CAPACITY;
    D.frame_capacity = MSAMP_CFG_FRAME_POOL;
    D.max_depth = MSAMP_CFG_MAX_DEPTH;
    D.session_id = session_id;
    D.interval = interval;
    D.tick_hz = tick_hz;
    atomic_store_explicit(&D.magic, MSAMP_HEAPDUMP_MAGIC, memory_order_release);
}

void msamp_live_set(uint32_t slot, uintptr_t p, uintptr_t size, uint32_t stack, uint32_t birth)
{
    D.live_size[slot] = size;
    D.live_stack[slot] = stack;
    D.live_birth[slot] = birth;
    D.live_used++;
    msamp_live_publish(slot, p);
}

void msamp_live_clear(uint32_t slot)
{
    msamp_live_publish(slot, 0);
    D.live_used--;
}

uint32_t msamp_live_used(void)
{
    return D.live_used;
}

void msamp_live_get(uint32_t slot, struct msamp_live_entry *e)
{
    e->addr = atomic_load_explicit(&D.live_addr[slot], memory_order_relaxed);
    e->size = D.live_size[slot];
    e->stack = D.live_stack[slot];
    e->birth = D.live_birth[slot];
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

static int same_frames(const struct msamp_stack_entry_v2 *e, const uintptr_t *pcs, uint32_t n)
{
    if (e->depth != n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (D.frames[e->first + i] != pcs[i])
            return 0;
    return 1;
}

uint32_t msamp_stack_intern(const uintptr_t *pcs, uint32_t n)
{
    if (n == 0)
        return 0;
    uint32_t h = hash_frames(pcs, n);
    uint32_t i = h & STACK_MASK;
    for (uint32_t probe = 0; probe < MSAMP_CFG_STACK_CAPACITY; probe++, i = (i + 1) & STACK_MASK) {
        if (i == 0)
            continue; /* id 0 is "unknown" */
        struct msamp_stack_entry_v2 *e = &D.stacks[i];
        if (e->depth == 0) {
            if (D.stacks_used + 2u > MSAMP_CFG_STACK_CAPACITY ||
                D.frames_used + n > MSAMP_CFG_FRAME_POOL)
                return 0;
            for (uint32_t k = 0; k < n; k++)
                D.frames[D.frames_used + k] = pcs[k];
            e->hash = h;
            e->first = D.frames_used;
            e->pass = 0;
            D.frames_used += n;
            D.stacks_used++;
            /* Depth last: a dump reader sees the entry only once it is complete. */
            atomic_signal_fence(memory_order_release);
            e->depth = (uint16_t)n;
            return i;
        }
        if (e->hash == h && same_frames(e, pcs, n))
            return i;
    }
    return 0;
}

int msamp_stack_unsent(uint32_t id, uint32_t pass)
{
    return id != 0 && D.stacks[id].pass != (uint16_t)pass;
}

void msamp_stack_sent(uint32_t id, uint32_t pass)
{
    D.stacks[id].pass = (uint16_t)pass;
}

uint32_t msamp_stacks_used(void)
{
    return D.stacks_used;
}

uint32_t msamp_frames_used(void)
{
    return D.frames_used;
}

uint32_t msamp_stack_frames(uint32_t id, const uintptr_t **pcs)
{
    if (id == 0 || id >= MSAMP_CFG_STACK_CAPACITY || D.stacks[id].depth == 0)
        return 0;
    *pcs = &D.frames[D.stacks[id].first];
    return D.stacks[id].depth;
}

#endif
