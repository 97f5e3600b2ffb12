/*
 * A simulated device for drain's tests: a Poisson sampler over bytes (each allocation of s bytes
 * sampled with probability 1 - exp(-s/R)), a live table of slots, interned stacks, periodic
 * snapshot passes, and an optional lossy link (FREE records dropped on purpose), all writing the
 * wire format through streamgen.h. Header-only.
 */
#ifndef DRAIN_TEST_SIMDEV_H
#define DRAIN_TEST_SIMDEV_H

#include <math.h>

#include "streamgen.h"

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
    } live[SIM_LIVE];
    struct {
        uint64_t fr[SIM_DEPTH];
        uint32_t depth;
    } stacks[SIM_STACKS];
    uint32_t nstacks;
    uint32_t stack_hash[2 * SIM_STACKS]; /* frames hash -> stack index + 1 */
    /* Free slots (a stack) and an address -> slot + 1 hash (open addressing, 2 * SIM_LIVE). */
    uint32_t freelist[SIM_LIVE], nfree;
    uint64_t hkey[2 * SIM_LIVE];
    uint32_t hval[2 * SIM_LIVE];
    uint64_t drops_live_full;
    unsigned lose_free_every, frees_sent;
    /* Mappings re-sent with each SESSION (hosted); nmaps 0 for bare metal. */
    struct {
        uint64_t start, limit, off;
        char path[256];
    } maps[8];
    int nmaps;
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

static void sim_header(struct simdev *d)
{
    sg_session(&d->g, d->session_id, d->resend++, d->arch, d->ptr, d->interval, SIM_LIVE, d->bid,
               d->bidlen);
    for (int i = 0; i < d->nmaps; i++)
        sg_mapping(&d->g, d->maps[i].start, d->maps[i].limit, d->maps[i].off, d->bid, d->bidlen,
                   d->maps[i].path);
    SG(&d->g, MSAMP_REC_DROPS, 0, 0, d->drops_live_full, 0, 0, 0);
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
    d->interval = interval;
    d->session_id = session_id;
    d->resend = 0;
    d->nstacks = 0;
    memset(d->stack_hash, 0, sizeof(d->stack_hash));
    d->ts = d->last_ts = 0;
    memset(d->live, 0, sizeof(d->live));
    memset(d->hval, 0, sizeof(d->hval));
    d->nfree = SIM_LIVE;
    for (uint32_t i = 0; i < SIM_LIVE; i++)
        d->freelist[i] = SIM_LIVE - 1 - i;
    d->countdown = interval > 1 ? sim_gap(d) : 0;
    sim_header(d);
}

static uint32_t sim_stack(struct simdev *d, const uint64_t *fr, uint32_t depth)
{
    uint64_t h = depth;
    for (uint32_t i = 0; i < depth; i++)
        h = (h ^ fr[i]) * 0x100000001b3ull;
    uint32_t j = (uint32_t)(h ^ h >> 31) & (2 * SIM_STACKS - 1);
    for (; d->stack_hash[j]; j = (j + 1) & (2 * SIM_STACKS - 1)) {
        uint32_t i = d->stack_hash[j] - 1;
        if (d->stacks[i].depth == depth && memcmp(d->stacks[i].fr, fr, depth * 8) == 0)
            return i + 1;
    }
    if (d->nstacks == SIM_STACKS)
        return 0;
    d->stack_hash[j] = d->nstacks + 1;
    memcpy(d->stacks[d->nstacks].fr, fr, depth * 8);
    d->stacks[d->nstacks].depth = depth;
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
    if (d->nfree) {
        uint32_t i = d->freelist[--d->nfree];
        d->live[i].used = 1;
        d->live[i].addr = addr;
        d->live[i].size = size;
        d->live[i].stack = id;
        d->live[i].birth = d->ts + 1;
        slot1 = i + 1;
        sim_hput(d, addr, i + 1);
    }
    if (!slot1)
        d->drops_live_full++;
    uint64_t dt;
    sim_dt(d, &dt);
    SG(&d->g, MSAMP_REC_ALLOC, slot1, size, id, dt);
    return 1;
}

static void sim_free(struct simdev *d, uint64_t addr)
{
    uint32_t slot1 = sim_htake(d, addr);
    if (!slot1)
        return;
    uint32_t i = slot1 - 1;
    d->live[i].used = 0;
    d->freelist[d->nfree++] = i;
    uint64_t dt;
    sim_dt(d, &dt);
    d->frees_sent++;
    if (d->lose_free_every && d->frees_sent % d->lose_free_every == 0)
        return; /* lost on the link */
    SG(&d->g, MSAMP_REC_FREE, i, dt);
}

static void sim_snapshot(struct simdev *d)
{
    sim_header(d);
    uint64_t pass = ++d->pass, count = 0;
    SG(&d->g, MSAMP_REC_SNAP_BEGIN, pass, d->ts);
    static uint8_t sent[SIM_STACKS];
    memset(sent, 0, sizeof(sent));
    for (uint32_t i = 0; i < SIM_LIVE; i++) {
        if (!d->live[i].used)
            continue;
        uint64_t s = d->live[i].stack;
        if (s && !sent[s - 1]) {
            sent[s - 1] = 1;
            sg_stack(&d->g, s, d->stacks[s - 1].fr, d->stacks[s - 1].depth);
        }
        SG(&d->g, MSAMP_REC_LIVE, i, d->live[i].size, s, d->live[i].birth);
        count++;
    }
    SG(&d->g, MSAMP_REC_SNAP_END, pass, count);
}

#endif
