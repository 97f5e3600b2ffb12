/*
 * A simulated device for drain's tests: a Poisson sampler over bytes (each allocation of s bytes
 * sampled with probability 1 - exp(-s/R)), a live table of slots, interned stacks, periodic
 * snapshot passes, and an optional lossy link (FREE records dropped on purpose), all writing the
 * wire format through streamgen.h. Header-only.
 *
 * Optionally it adapts as a device with a small table does (docs/ADAPTIVE.md): with adapt set, it
 * raises its interval (x2) when more than live_high slots are in use, or more than stack_high stacks
 * (reasons LIVE_HIGH, STACK_HIGH; BUCKET_FULL when no slot is free), thinning its live table with
 * include/msamp_thin.h's rule (coded: with 8-bit codes of sizes and intervals, as a compact
 * table does), and lowers it (x1/2, down to the boot interval) when fewer than live_low slots are in
 * use. Its LIVE records carry an entry's own interval when it differs. With stack_cap, its stack
 * table holds that many stacks: a new one evicts a stack no live entry uses and reuses its id, or,
 * when every stack is in use, the sample's stack id is MSAMP_WIRE_STACK_FULL. Each live entry keeps
 * the weight a reader must give it (w), and each sample reports its allocation-time weight
 * (last_w), so a test knows the exact estimates a correct reader computes.
 */
#ifndef DRAIN_TEST_SIMDEV_H
#define DRAIN_TEST_SIMDEV_H

#include <math.h>

#include "streamgen.h"

#define MSAMP_THIN_WORD uint64_t
#include "msamp_thin.h"

#define SIM_LIVE 32768
#define SIM_STACKS 1024
#define SIM_DEPTH 32

struct simdev {
    struct sg g;
    uint64_t rng, interval, ts, last_ts, pass;
    double countdown;
    uint32_t session_id;
    uint64_t resend;
    uint8_t arch, ptr, bid[20], bidlen;
    struct {
        uint64_t addr, size, stack, birth;
        int used;
        uint64_t interval, leaf; /* the interval it stands for; its stack's first frame */
        double w;                /* the weight a reader must give it now */
    } live[SIM_LIVE];
    struct {
        uint64_t fr[SIM_DEPTH];
        uint32_t depth;
        uint32_t refs;      /* live entries using it */
        uint64_t sent_pass; /* the snapshot pass it was last sent in (or before) */
    } stacks[SIM_STACKS];
    uint32_t nstacks;
    uint32_t stack_hash[2 * SIM_STACKS]; /* frames hash -> stack index + 1 */
    /* Free slots (a stack) and an address -> slot + 1 hash (open addressing, 2 * SIM_LIVE). */
    uint32_t freelist[SIM_LIVE], nfree;
    uint64_t hkey[2 * SIM_LIVE];
    uint32_t hval[2 * SIM_LIVE];
    uint64_t drops_live_full;
    unsigned lose_free_every, frees_sent;
    /* A new sample takes a free slot at random, not the latest freed (a table indexed by address,
     * whose freed slots are not soon reused: a reader's stale entry lingers). */
    int scatter;
    /* Mappings re-sent with each SESSION (hosted); nmaps 0 for bare metal. */
    struct {
        uint64_t start, limit, off;
        char path[256];
    } maps[8];
    int nmaps;
    /* Adaptive interval and a small stack table (see the top of this file). */
    uint8_t flags;
    int adapt, coded;
    uint32_t live_cap, live_high, live_low, stack_cap, stack_high, nlive, epoch;
    uint64_t boot_interval, max_interval, interval_peak;
    uint64_t drops_stack_full, evictions, raises[MSAMP_INTERVAL_REASONS], thinned;
    double last_w;  /* the allocation-time weight of the latest sample */
    int last_full;  /* the latest sample's stack id was MSAMP_WIRE_STACK_FULL */
    /* Called when a raise's thinning changes a live entry's weight by dw (a kept one: w (f - 1);
     * a thinned one: -w): a reader's allocated follows it (docs/ADAPTIVE.md). NULL: none. */
    void (*thin_hook)(void *ctx, uint64_t leaf, uint64_t size, double dw);
    void *thin_ctx;
};

static uint64_t sim_rand(struct simdev *d)
{
    d->rng ^= d->rng << 13;
    d->rng ^= d->rng >> 7;
    d->rng ^= d->rng << 17;
    return d->rng;
}

static double sim_gap(struct simdev *d)
{
    double u = ((double)(sim_rand(d) >> 11) + 0.5) / 9007199254740992.0;
    return -log(u) * (double)d->interval;
}

static void sim_dt(struct simdev *d, uint64_t *dt)
{
    d->ts++;
    if (d->ts - d->last_ts >= 65536)
        SG(&d->g, MSAMP_REC_TIME, d->ts);
    *dt = d->ts - d->last_ts;
    d->last_ts = d->ts;
}

/* A reader's weight of a sample: 1 / (1 - exp(-size / interval)), size 0 as 1. */
static double sim_weight(uint64_t size, uint64_t interval)
{
    if (interval <= 1)
        return 1.0;
    return 1.0 / -expm1(-(double)(size ? size : 1) / (double)interval);
}

static uint32_t sim_cap(const struct simdev *d)
{
    return d->live_cap && d->live_cap < SIM_LIVE ? d->live_cap : SIM_LIVE;
}

static void sim_header(struct simdev *d)
{
    sg_session_flags(&d->g, d->flags, d->session_id, d->resend++, d->arch, d->ptr, d->interval,
                     sim_cap(d), d->bid, d->bidlen);
    for (int i = 0; i < d->nmaps; i++)
        sg_mapping(&d->g, d->maps[i].start, d->maps[i].limit, d->maps[i].off, d->bid, d->bidlen,
                   d->maps[i].path);
    SG(&d->g, MSAMP_REC_DROPS, 0, 0, d->drops_live_full, d->drops_stack_full, 0, 0);
    SG(&d->g, MSAMP_REC_TIME, d->ts);
    d->last_ts = d->ts;
}

static uint32_t sim_hslot(uint64_t addr)
{
    addr ^= addr >> 29;
    addr *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(addr >> 40) & (2 * SIM_LIVE - 1);
}

static void sim_hput(struct simdev *d, uint64_t addr, uint32_t slot1)
{
    uint32_t j = sim_hslot(addr);
    while (d->hval[j] && d->hkey[j] != addr)
        j = (j + 1) & (2 * SIM_LIVE - 1);
    d->hkey[j] = addr;
    d->hval[j] = slot1;
}

/* Removes addr; returns its slot + 1, or 0 when absent. */
static uint32_t sim_htake(struct simdev *d, uint64_t addr)
{
    uint32_t j = sim_hslot(addr);
    while (d->hval[j] && d->hkey[j] != addr)
        j = (j + 1) & (2 * SIM_LIVE - 1);
    uint32_t v = d->hval[j];
    if (!v)
        return 0;
    /* Backward-shift deletion keeps probe chains intact. */
    d->hval[j] = 0;
    for (uint32_t k = (j + 1) & (2 * SIM_LIVE - 1); d->hval[k]; k = (k + 1) & (2 * SIM_LIVE - 1)) {
        uint32_t home = sim_hslot(d->hkey[k]);
        if (((k - home) & (2 * SIM_LIVE - 1)) >= ((k - j) & (2 * SIM_LIVE - 1))) {
            d->hkey[j] = d->hkey[k];
            d->hval[j] = d->hval[k];
            d->hval[k] = 0;
            j = k;
        }
    }
    return v;
}

static void sim_boot(struct simdev *d, uint32_t session_id, uint64_t seed, uint64_t interval)
{
    d->rng = seed ? seed : 1;
    d->interval = d->boot_interval = d->interval_peak = interval;
    d->session_id = session_id;
    d->resend = 0;
    d->nstacks = 0;
    memset(d->stack_hash, 0, sizeof(d->stack_hash));
    memset(d->stacks, 0, sizeof(d->stacks));
    d->ts = d->last_ts = 0;
    memset(d->live, 0, sizeof(d->live));
    memset(d->hval, 0, sizeof(d->hval));
    d->nfree = sim_cap(d);
    for (uint32_t i = 0; i < d->nfree; i++)
        d->freelist[i] = d->nfree - 1 - i;
    d->nlive = d->epoch = 0;
    d->drops_stack_full = d->evictions = d->thinned = 0;
    memset(d->raises, 0, sizeof(d->raises));
    d->countdown = interval > 1 ? sim_gap(d) : 0;
    sim_header(d);
}

/* Empties live slot i: by a free, or by thinning (then no FREE is sent). */
static void sim_release(struct simdev *d, uint32_t i)
{
    d->live[i].used = 0;
    d->freelist[d->nfree++] = i;
    d->nlive--;
    uint64_t st = d->live[i].stack;
    if (st && st != MSAMP_WIRE_STACK_FULL)
        d->stacks[st - 1].refs--;
}

static uint32_t sim_stacks_in_use(const struct simdev *d)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->nstacks; i++)
        n += d->stacks[i].refs != 0;
    return n;
}

/* The interval changes to `to` for `reason` (enum msamp_wire_interval_reason); a raise thins the
 * live table first, as the device does, with the coin of (slot, epoch, session id). */
static void sim_set_interval(struct simdev *d, uint64_t to, unsigned reason)
{
    if (reason == MSAMP_INTERVAL_LIVE_HIGH || reason == MSAMP_INTERVAL_STACK_HIGH ||
        reason == MSAMP_INTERVAL_BUCKET_FULL) {
        d->epoch++;
        d->raises[reason]++;
        for (uint32_t i = 0; i < sim_cap(d); i++) {
            if (!d->live[i].used)
                continue;
            uint64_t size = d->live[i].size, r = d->live[i].interval;
            if (d->coded) {
                size = msamp_thin_decode(msamp_thin_code(size));
                r = msamp_thin_decode(msamp_thin_code(r));
            }
            if (r >= to)
                continue;
            uint32_t q = msamp_thin_q16(size, (uint32_t)r, (uint32_t)to);
            if (msamp_thin_keep(i, d->epoch, d->session_id, q)) {
                double w = d->live[i].w * (65536.0 / q);
                if (d->thin_hook)
                    d->thin_hook(d->thin_ctx, d->live[i].leaf, d->live[i].size, w - d->live[i].w);
                d->live[i].w = w;
                d->live[i].interval = to;
            } else {
                if (d->thin_hook)
                    d->thin_hook(d->thin_ctx, d->live[i].leaf, d->live[i].size, -d->live[i].w);
                sim_htake(d, d->live[i].addr);
                sim_release(d, i);
                d->thinned++;
            }
        }
    } else {
        d->raises[reason < MSAMP_INTERVAL_REASONS ? reason : 0]++;
    }
    d->interval = to;
    if (to > d->interval_peak)
        d->interval_peak = to;
    d->countdown = to > 1 ? sim_gap(d) : 0;
    uint64_t dt;
    sim_dt(d, &dt);
    SG(&d->g, MSAMP_REC_INTERVAL, to, dt, reason, d->epoch);
}

/* After a sample or a free: raise when a table is past its high-water mark, lower when the live
 * table is below its low-water mark. */
static void sim_adapt(struct simdev *d)
{
    if (!d->adapt)
        return;
    uint64_t up = d->interval * 2;
    if (d->live_high && d->nlive > d->live_high && up <= d->max_interval)
        sim_set_interval(d, up, MSAMP_INTERVAL_LIVE_HIGH);
    else if (d->stack_high && sim_stacks_in_use(d) > d->stack_high && up <= d->max_interval)
        sim_set_interval(d, up, MSAMP_INTERVAL_STACK_HIGH);
    else if (d->nfree == 0 && up <= d->max_interval)
        sim_set_interval(d, up, MSAMP_INTERVAL_BUCKET_FULL);
    else if (d->nlive < d->live_low && d->interval / 2 >= d->boot_interval)
        sim_set_interval(d, d->interval / 2, MSAMP_INTERVAL_LOWER);
}

/* A known stack used by a sample: as the device does, its definition is sent again at its first use
 * after each snapshot pass (a reader that lost it, or joined late, gets it back). */
static uint32_t sim_stack_use(struct simdev *d, uint32_t i)
{
    if (d->stacks[i].sent_pass != d->pass) {
        d->stacks[i].sent_pass = d->pass;
        sg_stack(&d->g, i + 1, d->stacks[i].fr, d->stacks[i].depth);
    }
    return i + 1;
}

/* A small stack table: look up by frames; a new stack takes a free entry, or evicts one no live
 * entry uses (its id is defined again), or gets MSAMP_WIRE_STACK_FULL. */
static uint32_t sim_stack_small(struct simdev *d, const uint64_t *fr, uint32_t depth)
{
    for (uint32_t i = 0; i < d->nstacks; i++)
        if (d->stacks[i].depth == depth && memcmp(d->stacks[i].fr, fr, depth * 8) == 0)
            return sim_stack_use(d, i);
    uint32_t k = d->nstacks;
    if (k >= d->stack_cap) {
        for (k = 0; k < d->nstacks && d->stacks[k].refs; k++)
            ;
        if (k == d->nstacks) {
            d->drops_stack_full++;
            return MSAMP_WIRE_STACK_FULL;
        }
        d->evictions++;
    } else {
        d->nstacks++;
    }
    memcpy(d->stacks[k].fr, fr, depth * 8);
    d->stacks[k].depth = depth;
    d->stacks[k].refs = 0;
    d->stacks[k].sent_pass = d->pass;
    sg_stack(&d->g, k + 1, fr, depth);
    return k + 1;
}

static uint32_t sim_stack(struct simdev *d, const uint64_t *fr, uint32_t depth)
{
    if (d->stack_cap)
        return sim_stack_small(d, fr, depth);
    uint64_t h = depth;
    for (uint32_t i = 0; i < depth; i++)
        h = (h ^ fr[i]) * 0x100000001b3ull;
    uint32_t j = (uint32_t)(h ^ h >> 31) & (2 * SIM_STACKS - 1);
    for (; d->stack_hash[j]; j = (j + 1) & (2 * SIM_STACKS - 1)) {
        uint32_t i = d->stack_hash[j] - 1;
        if (d->stacks[i].depth == depth && memcmp(d->stacks[i].fr, fr, depth * 8) == 0)
            return sim_stack_use(d, i);
    }
    if (d->nstacks == SIM_STACKS)
        return 0;
    d->stack_hash[j] = d->nstacks + 1;
    memcpy(d->stacks[d->nstacks].fr, fr, depth * 8);
    d->stacks[d->nstacks].depth = depth;
    d->stacks[d->nstacks].sent_pass = d->pass;
    d->nstacks++;
    sg_stack(&d->g, d->nstacks, fr, depth);
    return d->nstacks;
}

/* Returns 1 when the allocation was sampled. */
static int sim_alloc(struct simdev *d, uint64_t addr, uint64_t size, const uint64_t *fr,
                     uint32_t depth)
{
    if (d->interval > 1) {
        d->countdown -= (double)size;
        if (d->countdown > 0)
            return 0;
        d->countdown = sim_gap(d);
    }
    uint32_t id = sim_stack(d, fr, depth);
    uint64_t slot1 = 0;
    d->last_w = sim_weight(size, d->interval);
    d->last_full = id == MSAMP_WIRE_STACK_FULL;
    if (d->nfree) {
        if (d->scatter) { /* a random free slot to the top of the stack */
            uint32_t k = (uint32_t)(sim_rand(d) % d->nfree), t = d->freelist[k];
            d->freelist[k] = d->freelist[d->nfree - 1];
            d->freelist[d->nfree - 1] = t;
        }
        uint32_t i = d->freelist[--d->nfree];
        d->live[i].used = 1;
        d->live[i].addr = addr;
        d->live[i].size = size;
        d->live[i].stack = id;
        d->live[i].birth = d->ts + 1;
        d->live[i].interval = d->interval;
        d->live[i].w = d->last_w;
        d->live[i].leaf = id == MSAMP_WIRE_STACK_FULL || depth == 0 ? 0 : fr[0];
        d->nlive++;
        if (id && id != MSAMP_WIRE_STACK_FULL)
            d->stacks[id - 1].refs++;
        slot1 = i + 1;
        sim_hput(d, addr, i + 1);
    }
    if (!slot1)
        d->drops_live_full++;
    uint64_t dt;
    sim_dt(d, &dt);
    SG(&d->g, MSAMP_REC_ALLOC, slot1, size, id, dt);
    sim_adapt(d);
    return 1;
}

static void sim_free(struct simdev *d, uint64_t addr)
{
    uint32_t slot1 = sim_htake(d, addr);
    if (!slot1)
        return;
    uint32_t i = slot1 - 1;
    sim_release(d, i);
    uint64_t dt;
    sim_dt(d, &dt);
    d->frees_sent++;
    if (d->lose_free_every && d->frees_sent % d->lose_free_every == 0)
        return; /* lost on the link */
    SG(&d->g, MSAMP_REC_FREE, i, dt);
    sim_adapt(d);
}

static void sim_snapshot(struct simdev *d)
{
    sim_header(d);
    uint64_t pass = ++d->pass, count = 0;
    SG(&d->g, MSAMP_REC_SNAP_BEGIN, pass, d->ts);
    for (uint32_t i = 0; i < SIM_LIVE; i++) {
        if (!d->live[i].used)
            continue;
        uint64_t s = d->live[i].stack;
        if (s && s != MSAMP_WIRE_STACK_FULL && d->stacks[s - 1].sent_pass != pass) {
            d->stacks[s - 1].sent_pass = pass;
            sg_stack(&d->g, s, d->stacks[s - 1].fr, d->stacks[s - 1].depth);
        }
        if (d->live[i].interval != d->interval) /* its own interval, when not the one in force */
            SG(&d->g, MSAMP_REC_LIVE, i, d->live[i].size, s, d->live[i].birth,
               d->live[i].interval);
        else
            SG(&d->g, MSAMP_REC_LIVE, i, d->live[i].size, s, d->live[i].birth);
        count++;
    }
    SG(&d->g, MSAMP_REC_SNAP_END, pass, count);
}

#endif
