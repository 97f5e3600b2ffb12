/* The compact tables (MSAMP_CFG_COMPACT_TABLES), for parts with a few KiB of RAM: a live slot is the
 * block's address (msamp_live.c) and two bytes: its size and interval as 8-bit codes (what
 * thinning needs, msamp_thin_code). A stack is a 32-bit hash of its frames, found by a linear
 * search (the table is small). Without snapshot passes (which need what these leave out) nothing
 * reads a stack id again once its ALLOC went out, so when the table is full any stack may be
 * evicted, in turn, and its id defined again for the new one: the host has already attributed the
 * live blocks of the old one. So this build never reports MSAMP_WIRE_STACK_FULL.
 * With MSAMP_CFG_HEAPDUMP (the default) a RAM-dump block's header points at these arrays
 * (include/msamp_heapdump.h, MSAMP_HEAPDUMP_FLAG_CODED): a dump gives the in-use blocks, their
 * sizes and intervals, without stacks. */
#include "msamp_internal.h"

#if MSAMP_CFG_COMPACT_TABLES

#define PTR_BITS (sizeof(uintptr_t) * 8u)
#define STACK_N MSAMP_CFG_STACK_CAPACITY

_Static_assert(STACK_N <= 65536, "compact tables: at most 65536 stacks");

/* The slots' size and interval codes: read by thinning, the per-task budgets and a RAM dump only.
 * Without all three (the minimal configuration) a slot is its address alone. */
#define CODES (MSAMP_CFG_ADAPTIVE || MSAMP_CFG_HEAPDUMP || MSAMP_CFG_TASK_BUDGETS)

_Atomic uintptr_t msamp_live_slots[MSAMP_CFG_LIVE_CAPACITY];

#if MSAMP_CFG_HEAPDUMP
/* In .bss.msamp: the tiny profile's RAM is at its bound (1 KiB + this header), and .noinit's own
 * alignment would pass it; so its session id does not seed the next boot's (the port's entropy,
 * a board's boot counter, tells boots apart). */
struct msamp_heapdump_v3 msamp_heapdump __attribute__((section(".bss.msamp")));
#define LIVE_USED msamp_heapdump.live_used
#else
#define LIVE_USED t.live_used
#endif

static struct {
#if !MSAMP_CFG_HEAPDUMP
    uint32_t live_used;
#endif
    uint32_t evicted;
    uint16_t stacks_used, victim;
    uint32_t hash[STACK_N]; /* of stack id i; 0: id free */
    uint32_t sent[(STACK_N + 31u) / 32u]; /* bit i: id i's definition went out */
#if CODES
    uint8_t size_code[MSAMP_CFG_LIVE_CAPACITY], interval_code[MSAMP_CFG_LIVE_CAPACITY];
#endif
} t;

int msamp_table_reset(void)
{
    msamp_live_reset();
    for (uint32_t i = 0; i < STACK_N; i++)
        t.hash[i] = 0;
    for (uint32_t i = 0; i < (STACK_N + 31u) / 32u; i++)
        t.sent[i] = 0;
    LIVE_USED = 0;
    t.stacks_used = 0;
    t.evicted = 0;
    t.victim = 0;
    return MSAMP_OK;
}

#if MSAMP_CFG_HEAPDUMP
void msamp_table_describe(uint32_t session_id, uint32_t interval, uint32_t tick_hz)
{
    struct msamp_heapdump_v3 *d = &msamp_heapdump;
    d->version = MSAMP_HEAPDUMP_VERSION;
    d->ptr_size = (uint16_t)sizeof(uintptr_t);
    d->flags = MSAMP_HEAPDUMP_FLAG_CODED;
    d->live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    d->live_ways = MSAMP_CFG_LIVE_WAYS;
    d->stack_capacity = STACK_N;
    d->max_depth = MSAMP_CFG_MAX_DEPTH;
    d->session_id = session_id;
    d->interval = interval;
    d->tick_hz = tick_hz;
    d->live_addr = msamp_live_slots;
    /* One byte per slot behind these two: the codes (MSAMP_HEAPDUMP_FLAG_CODED). */
    d->live_size = (uintptr_t *)(void *)t.size_code;
    d->live_interval = (uint32_t *)(void *)t.interval_code;
    atomic_store_explicit(&d->magic, MSAMP_HEAPDUMP_MAGIC, memory_order_release);
}
#endif

#if CODES
/* msamp_thin_code once in the code: three callers. */
static MSAMP_NOINLINE uint8_t code_of(uintptr_t v)
{
    return (uint8_t)msamp_thin_code(v);
}
#endif

void msamp_live_set(uint32_t slot, uintptr_t p, uintptr_t size, uint32_t stack, uint32_t birth,
                    uint32_t interval)
{
    (void)stack;
    (void)birth;
#if CODES
    t.size_code[slot] = code_of(size);
    t.interval_code[slot] = code_of(interval);
#else
    (void)size;
    (void)interval;
#endif
    msamp_live_publish(slot, p);
    LIVE_USED++;
}

void msamp_live_clear(uint32_t slot)
{
    msamp_live_publish(slot, 0);
    LIVE_USED--;
}

uint32_t msamp_live_used(void)
{
    return LIVE_USED;
}

#if CODES
uintptr_t msamp_live_thin_size(uint32_t slot)
{
    return msamp_thin_decode(t.size_code[slot]);
}

uint32_t msamp_live_interval(uint32_t slot)
{
    return (uint32_t)msamp_thin_decode(t.interval_code[slot]);
}

void msamp_live_set_interval(uint32_t slot, uint32_t interval)
{
    t.interval_code[slot] = code_of(interval);
}
#endif

uintptr_t msamp_live_addr(uint32_t slot)
{
    return atomic_load_explicit(&msamp_live_slots[slot], memory_order_relaxed);
}

uint32_t msamp_stack_intern(const uintptr_t *pcs, uint32_t n)
{
    if (n == 0)
        return 0;
    /* FNV-1a of the frames; 0 marks a free id, so a hash of 0 becomes 1. */
    uint32_t h = 2166136261u;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = pcs[i];
        h = (h ^ (uint32_t)v) * 16777619u;
        if (PTR_BITS > 32u)
            h = (h ^ (uint32_t)(v >> 32)) * 16777619u;
    }
    h += h == 0;
    uint32_t id = 0;
    for (uint32_t i = 1; i < STACK_N; i++) {
        if (t.hash[i] == h)
            return i;
        if (t.hash[i] == 0 && id == 0)
            id = i;
    }
    if (id == 0) { /* full: the next victim in turn, defined again */
        t.victim = (uint16_t)(t.victim + 1u < STACK_N ? t.victim + 1u : 1u);
        id = t.victim;
        t.evicted++;
    } else {
        t.stacks_used++;
    }
    t.hash[id] = h;
    id &= STACK_N - 1u; /* as it is: says so to the compiler (one word of sent bits up to 32) */
    t.sent[id / 32u] &= ~(1u << (id % 32u));
    return id;
}

int msamp_stack_unsent(uint32_t id, uint32_t pass)
{
    (void)pass;
    return id != 0 && id < STACK_N && !(t.sent[id / 32u] & (1u << (id % 32u)));
}

void msamp_stack_sent(uint32_t id, uint32_t pass)
{
    (void)pass;
    if (id != 0 && id < STACK_N)
        t.sent[id / 32u] |= 1u << (id % 32u);
}

void msamp_stacks_resend(void)
{
    for (uint32_t i = 0; i < (STACK_N + 31u) / 32u; i++)
        t.sent[i] = 0;
}

uint32_t msamp_stacks_used(void)
{
    return t.stacks_used;
}

uint32_t msamp_stacks_referenced(void)
{
    return 0; /* not tracked: any stack may be evicted */
}

uint32_t msamp_stacks_evicted(void)
{
    return t.evicted;
}

uint32_t msamp_frames_used(void)
{
    return 0;
}

#endif
