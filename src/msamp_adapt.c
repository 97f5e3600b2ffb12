/* The adaptive interval (docs/ADAPTIVE.md). When the live table passes three quarters full (or a
 * sample finds its reach full past that mark, or the stacks in use pass three quarters of the
 * stack table), the interval doubles, up to its maximum, and an INTERVAL record says so; from that
 * point of the stream every live entry sampled below the new interval is "pending": it stays with
 * probability p(s, R') / p(s, R), decided by a coin the host replays (include/msamp_thin.h).
 * Pending entries are settled lazily, a few slots per sampled allocation and per poll (a pass over
 * the table), and whenever one is looked up first: by a free, a realloc, a snapshot, or a full
 * reach. A new raise waits for the pass under way (finishing it at once when a reach is full). The
 * interval halves again, not below its minimum, when both tables are below a quarter full and the
 * last change is a second old (and, with MSAMP_CFG_LINK_ADAPT, no drain has left the ring over an
 * eighth full for a second). A drain that leaves the ring over a quarter full raises it too
 * (link_watch): the link is slower than the samples. All of it runs under the port lock, off the
 * allocation fast path, in integer arithmetic. */
#include "msamp_internal.h"

#define G msamp_core

#if MSAMP_CFG_ADAPTIVE
#define HIGH(cap) ((cap) - (cap) / 4u)
#define LOW(cap) ((cap) / 4u)
/* LOW(cap) as a function, for the comparisons of a count with it: a capacity below 4 (whose quarter
 * is 0, the test then always true) draws no warning (-Wtype-limits). */
static inline uint32_t low(uint32_t cap)
{
    return LOW(cap);
}

/* The rule's q, once in the code (its arithmetic is the biggest part of this file). */
static MSAMP_NOINLINE uint32_t thin_q16(uintptr_t size, uint32_t from, uint32_t to)
{
    return msamp_thin_q16(size, from, to);
}

/* Whether an occupied slot waits for the pass under way. */
static int pending(uint32_t slot)
{
    return G.thin_target != 0 && msamp_live_interval(slot) < G.thin_target;
}

/* Settles an occupied slot: 1 when its entry stays, 0 when the coin took it out. */
static int settle(uint32_t slot)
{
    if (!pending(slot))
        return 1;
    uint32_t q = thin_q16(msamp_live_thin_size(slot), msamp_live_interval(slot), G.thin_target);
    if (msamp_thin_keep(slot, G.epoch, G.session_id, q)) {
        msamp_budget_reweigh(slot, G.thin_target);
        return 1;
    }
    msamp_slot_empty(slot);
    G.thinned++;
    return 0;
}

int32_t msamp_live_find_settled(uintptr_t p)
{
    int32_t s = msamp_live_find(p);
    if (s >= 0 && !settle((uint32_t)s))
        return -1;
    return s;
}

int msamp_live_settled(uint32_t slot)
{
    return msamp_live_addr(slot) != 0 && settle(slot);
}

/* The pass goes on for `budget` slots (ends when it has seen the whole table). */
static void step(uint32_t budget)
{
    for (; G.thin_target != 0 && budget != 0; budget--) {
        uint32_t slot = G.thin_cursor;
        if (msamp_live_addr(slot) != 0)
            (void)settle(slot);
        if (++G.thin_cursor >= MSAMP_LIVE_CAP)
            G.thin_target = 0;
    }
}

/* Doubles the interval (up to the maximum) and starts the pass that thins the table to it. */
static int raise_interval(unsigned reason)
{
    uint32_t now = atomic_load_explicit(&G.interval, memory_order_relaxed);
    if (now >= G.interval_max)
        return 0;
    step(MSAMP_LIVE_CAP); /* the pass under way ends first: one pending interval at a time */
    uint32_t next = now > G.interval_max / 2u ? G.interval_max : now * 2u;
    if (!msamp_adapt_change(next, reason))
        return 0;
    G.thin_target = next;
    G.thin_cursor = 0;
    G.raises++;
    return 1;
}

#if MSAMP_LINK_ADAPT
/* The link (docs/ADAPTIVE.md "The link"): a drain that leaves the ring over a quarter full (its
 * backlog: what the transport did not take) means samples come faster than the link takes them; a
 * raise halves them before the ring overflows, and another follows each time the backlog grows by
 * a further 1/32 of the ring from its lowest since the last raise while it stays over a quarter
 * (24 raises before it is full). The backlog, not the ring's fill, so that a drainer that polls
 * when the ring is half full (the hosted port's inline drain) and takes it all raises nothing.
 * Also notes when a backlog over an eighth of the ring was last seen (a lowering waits a
 * second). */
#define RING_STEP (MSAMP_CFG_RING_SIZE / 32u)
static void link_watch(void)
{
    uint32_t left = atomic_load_explicit(&G.backlog, memory_order_relaxed);
    if (left > MSAMP_CFG_RING_SIZE / 8u)
        G.behind_at = (uint32_t)msamp_now();
    if (left < MSAMP_CFG_RING_SIZE / 4u) {
        G.ring_mark = 0;
        return;
    }
    if (G.ring_mark > left + RING_STEP)
        G.ring_mark = left + RING_STEP; /* the backlog went down: a step from its lowest */
    if (left < G.ring_mark)
        return;
    (void)raise_interval(MSAMP_INTERVAL_RING_HIGH);
    G.ring_mark = left + RING_STEP; /* raised or not (at the maximum, pinned) */
}

/* Whether the link kept up for the last second: no drain left the ring over an eighth full. */
static int link_idle(void)
{
    return (uint32_t)msamp_now() - G.behind_at >= msamp_tick_hz();
}
#else
#define link_watch() ((void)0)
#define link_idle() 1
#endif

int msamp_adapt_admit(struct msamp_context *c, uint32_t *drawn, uintptr_t size)
{
    uint32_t now = atomic_load_explicit(&G.interval, memory_order_relaxed);
    if (*drawn >= now)
        return 1;
    /* Decided at a smaller interval than the one now in force (a raise came between the decision
     * and this lock): thinned like a live entry, so it stands for the interval in force. */
    uint32_t q = thin_q16(size, *drawn, now);
    if (((uint32_t)msamp_rng_next(&c->rng) >> 16) < q) {
        *drawn = now;
        return 1;
    }
    G.thinned++;
    return 0;
}

int msamp_adapt_room(struct msamp_context *c, uint32_t *drawn, uintptr_t p, uintptr_t size)
{
    uint32_t home = msamp_live_bucket(msamp_live_hash(p));
    for (int round = 0; round < 2; round++) {
        for (uint32_t k = 0; k < MSAMP_LIVE_REACH; k++)
            (void)msamp_live_settled(msamp_live_reach_slot(home, k));
        /* A full reach in a table under its high-water mark is a local crowd, not a live set
         * that outgrew the table: no raise (it would halve the table, and the lowering would undo
         * it a second later); the sample is counted in live_full. */
        if (msamp_live_free_slot(p) >= 0 || round == 1 ||
            msamp_live_used() < HIGH(MSAMP_LIVE_CAP))
            break;
        if (!raise_interval(MSAMP_INTERVAL_BUCKET_FULL))
            break; /* pinned, at the maximum, or no room for the record: counted as live_full */
        if (!msamp_adapt_admit(c, drawn, size))
            return 0;
    }
    return 1;
}

void msamp_adapt_after_sample(void)
{
    link_watch();
    step(MSAMP_CFG_THIN_BATCH);
    if (G.thin_target != 0)
        return;
    if (msamp_live_used() >= HIGH(MSAMP_LIVE_CAP))
        (void)raise_interval(MSAMP_INTERVAL_LIVE_HIGH);
    else if (msamp_stacks_referenced() >= HIGH(MSAMP_STACK_CAP))
        (void)raise_interval(MSAMP_INTERVAL_STACK_HIGH);
}

void msamp_adapt_poll(void)
{
    msamp_adapt_after_sample();
    step(8u * MSAMP_CFG_THIN_BATCH);
    uint32_t now = atomic_load_explicit(&G.interval, memory_order_relaxed);
    if (G.thin_target != 0 || now <= G.interval_min || msamp_live_used() >= low(MSAMP_LIVE_CAP) ||
        msamp_stacks_referenced() >= low(MSAMP_STACK_CAP) ||
        (uint32_t)msamp_now() - G.changed_at < msamp_tick_hz() || !link_idle())
        return;
    uint32_t next = now / 2u > G.interval_min ? now / 2u : G.interval_min;
    if (msamp_adapt_change(next, MSAMP_INTERVAL_LOWER))
        G.lowers++;
}

void msamp_adapt_settle_all(void)
{
    step(MSAMP_LIVE_CAP);
}
#endif

/* Also the pinned build's: msamp_set_interval()'s INTERVAL record. */
int msamp_adapt_change(uint32_t next, unsigned reason)
{
    struct msamp_writer ev;
    /* A raise starts a thinning epoch: its coins differ from every earlier raise's. */
    uint32_t epoch =
        G.epoch + (reason != MSAMP_INTERVAL_LOWER && reason != MSAMP_INTERVAL_SET);
    msamp_event_begin(&ev);
    msamp_rec_interval(next, msamp_event_stamp(), reason, epoch);
    if (msamp_event_end(&ev, 0) != 0)
        return 0;
    G.epoch = epoch;
    atomic_store_explicit(&G.interval, next, memory_order_relaxed);
    G.changed_at = (uint32_t)msamp_now();
    msamp_table_describe(G.session_id, next, msamp_tick_hz());
    msamp_broadcast();
    return 1;
}
