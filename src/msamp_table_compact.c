/* The compact tables (MSAMP_CFG_HEAPDUMP 0), for parts with a few KiB of RAM: a live slot is the
 * block's address alone (msamp_live.c); a stack is
 * a 32-bit hash of its frames, ids handed out in order and never taken back (a linear search: the
 * table is small). Snapshot passes need what these leave out, so this build has none: each stack
 * is sent once, when first seen. */
#include "msamp_internal.h"

#if !MSAMP_CFG_HEAPDUMP

#define PTR_BITS (sizeof(uintptr_t) * 8u)
#define STACK_N MSAMP_CFG_STACK_CAPACITY

_Atomic uintptr_t msamp_live_slots[MSAMP_CFG_LIVE_CAPACITY];

static struct {
    uint32_t live_used, stacks_used;
    uint32_t offered;        /* the hash of the new stack last offered id stacks_used + 1 */
    uint32_t hash[STACK_N];  /* of stack id i (1..stacks_used) */
} t;

void msamp_table_reset(void)
{
    msamp_live_reset();
    t.live_used = 0;
    t.stacks_used = 0;
}

void msamp_table_describe(uint32_t session_id, uint32_t interval, uint32_t tick_hz)
{
    (void)session_id;
    (void)interval;
    (void)tick_hz;
}

void msamp_live_set(uint32_t slot, uintptr_t p, uintptr_t size, uint32_t stack, uint32_t birth)
{
    (void)size;
    (void)stack;
    (void)birth;
    msamp_live_publish(slot, p);
    t.live_used++;
}

void msamp_live_clear(uint32_t slot)
{
    msamp_live_publish(slot, 0);
    t.live_used--;
}

uint32_t msamp_live_used(void)
{
    return t.live_used;
}

uint32_t msamp_stack_intern(const uintptr_t *pcs, uint32_t n)
{
    if (n == 0)
        return 0;
    /* FNV-1a of the frames. */
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = pcs[i];
        h = (h ^ (uint32_t)v) * 16777619u;
        if (PTR_BITS > 32u)
            h = (h ^ (uint32_t)(v >> 32)) * 16777619u;
    }
    for (uint32_t i = 1; i <= t.stacks_used; i++)
        if (t.hash[i] == h)
            return i;
    if (t.stacks_used + 1u >= STACK_N)
        return 0;
    t.offered = h;
    return t.stacks_used + 1u;
}

int msamp_stack_unsent(uint32_t id, uint32_t pass)
{
    (void)pass;
    return id > t.stacks_used;
}

void msamp_stack_sent(uint32_t id, uint32_t pass)
{
    (void)pass;
    t.hash[id] = t.offered; /* id is stacks_used + 1 */
    t.stacks_used = id;
}

uint32_t msamp_stacks_used(void)
{
    return t.stacks_used;
}

uint32_t msamp_frames_used(void)
{
    return 0;
}

#endif
