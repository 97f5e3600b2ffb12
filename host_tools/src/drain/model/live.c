/*
 * The record dispatch and the live table it feeds (session.h): every record is applied here
 * (live_apply: the frequent ones in its switch, the others by type to session.c, sites.c,
 * interval.c, heap.c, task_use.c). The live table: the sampled allocations live by the device's
 * slot (ALLOC, REALLOC chains, FREE, LIVE re-sends, snapshot passes and the settling of what they
 * show freed), their weights and the running in-use estimate with its two halves (the peak), the
 * allocated and freed totals and the lifetimes of frees, and the thinning a raise of the interval
 * makes (INTERVAL records). One translation unit: the per-record path inlines its small steps
 * (docs/PERFORMANCE.md "drain's cost after the verdicts").
 */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/growth_track.h"
#include "model/interval.h"
#include "model/session.h"
#include "model/sites.h"
#include "util.h"

/* The per-record path (ALLOC, FREE, LIVE; docs/PERFORMANCE.md "drain's cost after the verdicts"):
 * its small steps inline whatever the compiler guesses (callgrind: a call's saved registers cost
 * more than the step), the first use of a slot or site and the rare cases out of line. */
#define HOT_INLINE static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline))

/* The device's thinning rule, at the host's width (the same numbers as the device's). */
#define MSAMP_THIN_WORD uint64_t
#include "msamp_thin.h"

HOT_INLINE double age_ns(const struct session *s, uint64_t birth, uint64_t now)
{
    if (!s->tick_hz)
        return -1;
    return now > birth ? (double)(now - birth) * 1e9 / (double)s->tick_hz : 0.0;
}

double session_age_ns(const struct session *s, uint64_t birth, uint64_t now)
{
    return age_ns(s, birth, now);
}

void session_site_peak(const struct session *s, const struct site *st, double *n, double *b)
{
    /* The device's own low-watermark moment first (model/heap.c, docs/HEALTH.md). */
    if (session_observers.site_low(s, (uint32_t)(st - s->sites), n, b))
        return;
    if (!s->site_peak) {
        *n = *b = 0;
        return;
    }
    const struct site_peak *sp = &s->site_peak[st - s->sites];
    int saved = s->peak_gen && sp->peak_gen == s->peak_gen;
    *n = saved ? sp->peak_n : sp->half_n;
    *b = saved ? sp->peak_b : sp->half_b;
}

/* An entry sampled with probability p = 1/w is in half A only, B only or both, with
 * probabilities a, a and 1 - 2a, a = q (1 - q) / p, q = 1 - sqrt(1 - p): then A and B are
 * independent samples, each with inclusion probability q (1 - (1 - q)^2 = p), so weight 1/q in
 * its half. The choice is a hash of its slot, birth and session (fixed while it is live,
 * independent of its sampling). */
/* The entry's draw u in [0, 1): fixed while it is live. */
static double half_draw(const struct session *s, const struct slot *sl)
{
    uint64_t x = hash_u64(hash_u64((uint64_t)sl->index << 32 ^ s->session_id) ^ sl->birth);
    return (double)(x >> 11) * 0x1p-53;
}

/* session_half_weights with the entry's draw u (half_draw; unused when w <= 1). */
HOT_INLINE void half_weights_at(double w, double u, double c[2])
{
    if (w <= 1) { /* sampled surely (or not live: 0): in both */
        c[0] = c[1] = w;
        return;
    }
    double p = 1 / w, q = p / (1 + sqrt(1 - p)), a = q * (1 - q) / p;
    c[0] = u < a || u >= 2 * a ? 1 / q : 0;
    c[1] = u >= a ? 1 / q : 0;
}

void session_half_weights(const struct session *s, const struct slot *sl, double w, double c[2])
{
    half_weights_at(w, w > 1 ? half_draw(s, sl) : 0, c);
}

double session_weight(uint64_t size, uint64_t interval)
{
    if (interval <= 1)
        return 1.0;
    double x = (double)(size ? size : 1) / (double)interval;
    return 1.0 / -expm1(-x);
}

/* A sample of an ALLOC/REALLOC record at a site: counted only while the site has no stack. */
static void count_event(struct session *s, uint32_t site)
{
    if (s->sites[site].def == SITE_DEF_NONE)
        sites_rare(s, site)->events++;
}

/* The weight of a new entry sampled at interval (0: not known yet, counted unweighted). */
static double weight_at(struct session *s, uint64_t size, uint64_t interval)
{
    if (interval == 0)
        s->n.unweighted++;
    return session_weight(size, interval);
}

const struct slot *session_slot(const struct session *s, uint64_t index)
{
    uint32_t i = index < DRAIN_MAX_SLOTS ? umap_get(&s->slot_index, index) : UINT32_MAX;
    return i < s->nslots ? &s->slots[i] : NULL;
}

/* The entry for a slot index from the stream, or NULL when it is out of range. Entries exist only
 * for indexes the stream used: memory follows the records, not the declared capacity. */
COLD struct slot *slot_new(struct session *s, uint64_t index)
{
    if (index >= s->slot_cap) {
        s->n.bad_slots++;
        return NULL;
    }
    int fresh;
    struct slot *sl = UMAP_ELEM(&s->slot_index, index, s->slots, s->nslots, s->capslots, &fresh);
    if (fresh)
        sl->index = (uint32_t)index;
    return sl;
}

static inline struct slot *slot_at(struct session *s, uint64_t index)
{
    if (index < s->slot_cap) { /* an entry the stream used: straight from the index */
        uint32_t i = umap_get(&s->slot_index, index);
        if (i < s->nslots)
            return &s->slots[i];
    }
    return slot_new(s, index);
}

/* The running in-use estimate, total and per site: the entry sl's weight goes from w_old to
 * w_new. Half A's and half B's estimates (session_half_weights) follow; a site changed for the first time
 * since the latest peak keeps its half-B value at the peak first; half A's total above its maximum
 * is a new peak (O(1): sites are saved lazily, docs/DRAIN.md "Peak"). */
HOT_INLINE void inuse_add(struct session *s, const struct slot *sl, double w_old, double w_new)
{
    struct site *st = &s->sites[sl->site];
    double dw = w_new - w_old, db = dw * (double)sl->size;
    double c_old[2], c_new[2];
    double u = w_old > 1 || w_new > 1 ? half_draw(s, sl) : 0; /* one hash a change, at most */
    half_weights_at(w_old, u, c_old);
    half_weights_at(w_new, u, c_new);
    double da = c_new[0] - c_old[0], dh = c_new[1] - c_old[1];
    if (s->site_peak) {
        struct site_peak *sp = &s->site_peak[sl->site];
        if (s->peak_gen && sp->peak_gen != s->peak_gen) {
            sp->peak_n = sp->half_n;
            sp->peak_b = sp->half_b;
            sp->peak_gen = s->peak_gen;
        }
        sp->half_n += dh;
        sp->half_b += dh * (double)sl->size;
    }
    st->inuse_n += dw;
    st->inuse_b += db;
    s->inuse_n += dw;
    s->inuse_b += db;
    s->half_a_b += da * (double)sl->size;
    s->half_n += dh;
    s->half_b += dh * (double)sl->size;
    if (s->nlive == 0) /* no drift left over once nothing is live */
        s->inuse_n = s->inuse_b = s->half_a_b = s->half_n = s->half_b = 0;
    if (da > 0 && s->half_a_b > s->peak_a_b) {
        s->peak_a_b = s->half_a_b;
        s->peak_b = s->half_b;
        s->peak_n = s->half_n;
        s->peak_ts = s->last_ts;
        s->peak_ts_valid = s->ts_known;
        s->peak_gen++;
    }
    if (st->task != 0)
        session_observers.weight(s, sl, w_old, w_new, c_old, c_new);
    if (s->growth)
        growth_change(s->growth, s, sl, w_old, w_new, c_old, c_new);
}

/* The entry becomes live (the caller fills it) or leaves the live set. */
static void set_live(struct session *s, struct slot *sl)
{
    if (sl->live)
        return;
    GROW(s->live, s->caplive, s->nlive + 1);
    sl->livepos = (uint32_t)s->nlive;
    s->live[s->nlive++] = (uint32_t)(sl - s->slots);
    sl->live = 1;
    inuse_add(s, sl, 0, sl->w);
}

static void unset_live(struct session *s, struct slot *sl)
{
    if (!sl->live)
        return;
    uint32_t last = s->live[--s->nlive];
    s->live[sl->livepos] = last;
    s->slots[last].livepos = sl->livepos;
    sl->live = 0;
    inuse_add(s, sl, sl->w, 0);
}

/* The lifetime bin of (site, bucket), created on first use: memory O(bins used). */
static struct lifebin *life_bin(struct session *s, uint32_t site, unsigned bucket)
{
    uint64_t key = (uint64_t)site * 16u + bucket;
    int fresh;
    struct lifebin *lb = UMAP_ELEM(&s->life_index, key, s->life, s->nlife, s->caplife, &fresh);
    if (fresh) {
        lb->site = site;
        lb->bucket = bucket;
    }
    return lb;
}

/* A block of size counted at allocated weight w enters (sign 1) or leaves (-1) a site's
 * allocated variance. */
HOT_INLINE void alloc_var(struct session *s, uint32_t site, uint64_t size, double w, double sign)
{
    double v = sign * (w * w - w), sz = (double)size;
    if (v == 0) /* weight 1 (interval 1) or 0: adds +-0, which leaves sums (never -0) as they are */
        return;
    s->site_var[site].n += v;
    s->site_var[site].b += v * sz * sz;
}

/* The entry leaves the live set freed. timed: by a FREE record now (s->last_ts), so its lifetime
 * is known when its birth is; a free inferred later (a reused slot, a snapshot) has none. An
 * allocation freed younger than min_life_s leaves its site's allocated totals (culled) and is not
 * counted as freed either. */
static void count_free(struct session *s, struct slot *sl, int timed)
{
    struct site *st = &s->sites[sl->site];
    struct site *ast = &s->sites[sl->lsite]; /* where its block's allocation is counted */
    double ns = timed && sl->born && s->ts_known ? age_ns(s, sl->birth, s->last_ts) : -1;
    if (timed && ns < 0)
        s->n.untimed_frees++;
    if (ns >= 0 && s->min_life_s > 0 && ns < s->min_life_s * 1e9) {
        /* A chain's culled allocation is its latest block's, at the realloc's site (its earlier
         * blocks were freed by the reallocs that moved it, unheard of as such). */
        double ab = sl->aw * (double)sl->size;
        alloc_var(s, sl->lsite, sl->size, sl->aw, -1);
        ast->alloc_n -= sl->aw;
        ast->alloc_b -= ab;
        if (ast->alloc_samples)
            ast->alloc_samples--;
        struct site_rare *rr = sites_rare(s, sl->lsite);
        rr->cull_n += sl->aw;
        rr->cull_b += ab;
        rr->cull_samples++;
        s->cull_n += sl->aw;
        s->cull_b += ab;
        s->n.culled++;
        unset_live(s, sl);
        return;
    }
    st->free_n += sl->w;
    st->free_b += sl->w * (double)sl->size;
    st->free_samples++;
    if (ns >= 0) {
        /* The allocated share of a chain's latest block stays in its realloc site's untimed
         * rest: the bin at the first site holds the chain's free alone. */
        struct lifebin *lb = life_bin(s, sl->site, session_life_bucket(ns));
        if (sl->lsite == sl->site) {
            lb->an += sl->aw;
            lb->ab += sl->aw * (double)sl->size;
        }
        lb->fn += sl->w;
        lb->fb += sl->w * (double)sl->size;
        lb->samples++;
    }
    unset_live(s, sl);
}

HOT_INLINE void count_alloc(struct session *s, uint32_t site, uint64_t size, double w)
{
    struct site *st = &s->sites[site];
    st->alloc_n += w;
    st->alloc_b += w * (double)size;
    st->alloc_samples++;
    alloc_var(s, site, size, w, 1);
}

/* A counted block's allocated weight goes from aw to aw + dw. */
static void count_alloc_delta(struct session *s, uint32_t site, uint64_t size, double aw,
                              double dw)
{
    struct site *st = &s->sites[site];
    alloc_var(s, site, size, aw, -1);
    alloc_var(s, site, size, aw + dw, 1);
    st->alloc_n += dw;
    st->alloc_b += dw * (double)size;
}

static void fill_slot(struct session *s, struct slot *sl, uint64_t size, uint64_t birth,
                      int born, uint64_t interval, double w, uint32_t site)
{
    sl->size = size;
    sl->birth = birth;
    sl->born = (uint8_t)(born != 0);
    sl->interval = interval;
    sl->w = w;
    sl->aw = w;
    sl->site = site;
    sl->lsite = site;
    sl->links = 0;
    sl->seen = s->snap_gen;
    sl->touch = s->settle_epoch;
    sl->unweighted = interval == 0;
    set_live(s, sl);
}

/* A sample without a live slot (the device's live table was full, or an index beyond the cap):
 * in use at site for all the reader knows, but not counted there (docs/VERDICTS.md "Marks"). */
HOT_INLINE void count_refused(struct session *s, uint32_t site, uint64_t size, double w)
{
    if (!s->refused) /* from here on grown with the sites (new_site), as site_peak is */
        s->refused = xcalloc(s->capsites, sizeof(*s->refused));
    struct site_refused *r = &s->refused[site];
    r->samples++;
    r->n += w;
    r->b += w * (double)size;
    s->n.refused++;
}

/* A sampled allocation now lives in slot (slot1 = index + 1; 0: untracked). */
HOT_INLINE void on_alloc(struct session *s, uint64_t slot1, uint64_t size, uint64_t stack_id,
                         uint64_t ts, int ts_valid)
{
    uint32_t site = site_of(s, stack_id);
    double w = weight_at(s, size, s->interval);
    s->n.samples++;
    count_event(s, site);
    if (s->interval == 0)
        s->n.samples_unweighted++;
    if (stack_id == MSAMP_WIRE_STACK_FULL)
        s->n.stack_full++;
    count_alloc(s, site, size, w);
    struct slot *sl = slot1 ? slot_at(s, slot1 - 1) : NULL;
    if (!sl) {
        count_refused(s, site, size, w);
        return;
    }
    if (sl->live) {
        s->n.lost_frees++;
        count_free(s, sl, 0);
    }
    fill_slot(s, sl, size, ts, ts_valid, s->interval, w, site);
}

/* A REALLOC of a live sampled allocation (docs/DRAIN.md "Realloc chains"): in use, the chain is one
 * allocation that moves. It keeps its first site and birth and takes the new size and weight, and
 * nothing is freed. Allocated counts every block the allocator returned, as peers do: the new
 * block, sampled by its own size at the interval in force, adds its weight w and w * size at the
 * realloc's own site (the record's stack), and what the earlier blocks added stays where it was.
 * The entry remembers that site (lsite): its allocated share is there, and LIVE records re-send
 * it with that stack. */
static void on_realloc_chain(struct session *s, struct slot *old, const struct msamp_record *r)
{
    uint64_t size = r->u.realloc.size;
    uint32_t lsite = site_of(s, r->u.realloc.stack_id);
    double w = weight_at(s, size, s->interval);
    struct slot c = *old; /* the chain so far */
    s->n.samples++;
    s->n.chain_links++;
    if (s->interval == 0)
        s->n.samples_unweighted++;
    if (r->u.realloc.stack_id == MSAMP_WIRE_STACK_FULL)
        s->n.stack_full++;
    count_event(s, lsite);
    count_alloc(s, lsite, size, w);
    unset_live(s, old); /* not a free: the block lives on */
    struct slot *sl = r->u.realloc.new_slot1 ? slot_at(s, r->u.realloc.new_slot1 - 1) : NULL;
    if (!sl) {
        /* untracked from here on: allocated, never freed for the reader; in use at the chain's
         * first site */
        count_refused(s, c.site, size, w);
        return;
    }
    if (sl->live) {
        s->n.lost_frees++;
        count_free(s, sl, 0);
    }
    sl->size = size;
    sl->birth = c.birth;
    sl->born = c.born;
    sl->interval = s->interval;
    sl->w = sl->aw = w;
    sl->site = c.site;
    sl->lsite = lsite;
    sl->links = c.links + 1;
    sl->seen = s->snap_gen;
    sl->touch = s->settle_epoch;
    sl->unweighted = s->interval == 0;
    set_live(s, sl);
}

static void on_free(struct session *s, uint64_t slot, int moved)
{
    struct slot *sl = slot_at(s, slot);
    if (!sl || !sl->live) {
        if (sl && s->n.drop_frees < s->drops[MSAMP_DROP_RING_RECORDS])
            s->n.drop_frees++; /* its ALLOC was among the records the device dropped */
        else if (sl)
            s->n.unknown_frees++;
        return;
    }
    if (moved) {
        /* realloc'd to a block the device did not sample: the chain goes on unseen, neither
         * freed nor in use. Its sampled blocks stay allocated where they were counted: each
         * block the allocator returned counts by its own sampling (docs/DRAIN.md "Realloc
         * chains"); the unsampled new one is among those its weight stands for. */
        s->n.chains_moved++;
        unset_live(s, sl);
        return;
    }
    s->n.frees++;
    count_free(s, sl, 1);
}

/* b after n records' additions of DRAIN_THIN_PER_RECORD, each made while b is below
 * UINT64_MAX - DRAIN_THIN_PER_RECORD. */
static uint64_t budget_add(uint64_t b, uint64_t n)
{
    const uint64_t step = DRAIN_THIN_PER_RECORD, lim = UINT64_MAX - step;
    if (b >= lim)
        return b;
    uint64_t steps = (lim - b + step - 1) / step; /* additions until b reaches lim */
    return b + (n < steps ? n : steps) * step;
}

/* The budgets with every record applied so far counted in (live_apply counts records, O(1)). */
static void budgets_now(struct session *s)
{
    uint64_t n = s->applied - s->budget_at;
    s->budget_at = s->applied;
    s->thin_budget = budget_add(s->thin_budget, n);
    s->settle_budget = budget_add(s->settle_budget, n);
}

/* Each slot in [from, to) holding an entry last allocated or re-sent before the epoch mark was
 * freed unheard: the pass's heard part covered it and did not list it. Visits min(to - from,
 * live entries) slots, within the budget (what is left is not settled). */
static void settle_range(struct session *s, uint64_t from, uint64_t to, uint32_t mark)
{
    if (to <= from || s->nlive == 0)
        return;
    budgets_now(s);
    if (to - from <= s->nlive) {
        for (uint64_t i = from; i < to && s->settle_budget > 0; i++, s->settle_budget--) {
            uint32_t k = umap_get(&s->slot_index, i);
            struct slot *sl = k == UINT32_MAX ? NULL : &s->slots[k];
            if (sl && sl->live && (int32_t)(sl->touch - mark) < 0) {
                s->n.lost_frees++;
                s->n.settled_frees++;
                count_free(s, sl, 0);
            }
        }
        return;
    }
    for (size_t k = 0; k < s->nlive && s->settle_budget > 0; s->settle_budget--) {
        struct slot *sl = &s->slots[s->live[k]];
        if (sl->index >= from && sl->index < to && (int32_t)(sl->touch - mark) < 0) {
            s->n.lost_frees++;
            s->n.settled_frees++;
            count_free(s, sl, 0); /* moves the last live entry to k */
        } else {
            k++;
        }
    }
}

/* A record of a pass in the stream: SNAP_BEGIN (slot: 0) or a LIVE of that slot. The slots since
 * the pass's previous record, when it was heard with nothing lost since, are settled; the pass has
 * then covered up to slot + 1. */
static void settle_pass(struct session *s, int begin, uint64_t slot)
{
    if (!begin && s->settle_on && slot >= s->settle_from)
        settle_range(s, s->settle_from, slot, s->settle_mark);
    s->settle_epoch++;
    s->settle_mark = s->settle_epoch;
    s->settle_on = 1;
    s->settle_from = begin ? 0 : slot + 1;
}

static void on_live(struct session *s, const struct msamp_record *r)
{
    s->n.lives++;
    settle_pass(s, 0, r->u.live.slot);
    if (s->snap_active)
        s->snap_lives++;
    struct slot *sl = slot_at(s, r->u.live.slot);
    if (!sl)
        return;
    uint32_t site = site_of(s, r->u.live.stack_id);
    /* The interval the entry stands for: its own when the record says, else the one in force. */
    uint64_t interval = r->u.live.has_interval ? r->u.live.interval : s->interval;
    session_note_interval(s, interval);
    /* LIVE records carry no task: an entry of a task's site is the same entry again. The site a
     * LIVE names is the latest record's (a realloc chain keeps its first site in sl->site). */
    if (sl->live && sl->size == r->u.live.size &&
        (sl->lsite == site || link_of(s, sl->lsite)->base == site)) {
        sl->seen = s->snap_gen;
    sl->touch = s->settle_epoch;
        /* The device's word on the entry's interval wins: a thinning drain did not replay (or
         * an interval it never heard of) is corrected here. An entry whose interval drain
         * already has keeps its weight, the exact 65536/q16 of the thinnings it survived. */
        if (interval && interval != sl->interval) {
            double w = session_weight(sl->size, interval);
            if (sl->unweighted && w > sl->w) {
                /* Its allocation was counted at weight 1 for lack of an interval: the interval
                 * it was sampled at is this one, so its allocated weight is corrected too. */
                count_alloc_delta(s, sl->lsite, sl->size, sl->aw, w - sl->w);
                sl->aw += w - sl->w;
                s->n.reweighted_up++;
            }
            sl->interval = interval;
            inuse_add(s, sl, sl->w, w);
            sl->w = w;
            sl->unweighted = 0;
        }
        return;
    }
    if (sl->live) {
        s->n.lost_frees++;
        count_free(s, sl, 0);
    }
    /* Allocated before drain attached (or its ALLOC was lost): count it as allocated too, so
     * allocated >= in use holds for every stack. */
    double w = weight_at(s, r->u.live.size, interval);
    s->n.late_live++;
    count_alloc(s, site, r->u.live.size, w);
    /* birth holds the low 32 bits of the time: the latest time not after now with them. */
    uint64_t birth = r->u.live.birth & 0xffffffffu;
    int born = s->ts_known;
    if (born) {
        birth |= s->last_ts & ~(uint64_t)0xffffffffu;
        if (birth > s->last_ts && birth >= ((uint64_t)1 << 32))
            birth -= (uint64_t)1 << 32;
    }
    fill_slot(s, sl, r->u.live.size, birth, born, interval, w, site);
}

static void on_snap_end(struct session *s, const struct msamp_record *r)
{
    session_observers.snap_end(s); /* a pass a low watermark started: the device's live set */
    /* The slots after the pass's last LIVE are not settled: SNAP_END's count may say LIVE
     * records were lost that no gap showed (below), and those slots are few. */
    s->settle_on = 0;
    /* Only a pass heard in full proves that a missing allocation was freed. */
    if (!s->snap_active || s->snap_dirty || r->u.snap_end.pass != s->snap_pass ||
        r->u.snap_end.count != s->snap_lives) {
        s->n.snapshots_skipped++;
        s->snap_active = 0;
        return;
    }
    /* Live entries neither allocated nor re-sent since SNAP_BEGIN were freed unheard. Each entry
     * visited is either freed here (once per allocation) or was seen in this pass (a record of
     * it): the walk costs O(records). */
    for (size_t k = 0; k < s->nlive;) {
        struct slot *sl = &s->slots[s->live[k]];
        if (sl->seen != s->snap_gen) {
            s->n.lost_frees++;
            count_free(s, sl, 0); /* moves the last live entry to k */
        } else {
            k++;
        }
    }
    s->n.snapshots_ok++;
    s->snap_active = 0;
}

/* Replays a thinning raise to interval `to` (docs/WIRE_FORMAT.md, include/msamp_thin.h): every
 * live entry whose interval is below stays only on its coin, as on the device, and then stands for
 * `to` with its weight scaled by 65536/q16; one that does not leaves the live set (no free).
 * Its allocated share goes with it: a kept entry's allocated weight is scaled as its in-use weight
 * is, a thinned one's is taken out, so allocated stays the Horvitz-Thompson sum over the sampled
 * allocations not thinned out, each at the inverse of the probability it had to be kept (unbiased),
 * and a site's in-use, a sum over a subset of the same entries at the same weights, never exceeds
 * it. (Left at its weight when sampled, allocated had to be raised to in-use where a thinning's
 * survivors took in-use above it, which biased it up: +5 % on calibrate's growth workloads.) */
static void thin_live(struct session *s, struct interval_change *c, uint64_t to, uint32_t epoch)
{
    uint32_t r_to = to > UINT32_MAX ? UINT32_MAX : (uint32_t)to;
    int coded = (s->flags & MSAMP_SESSION_FLAG_CODED_SIZES) != 0;
    for (size_t k = 0; k < s->nlive;) {
        struct slot *sl = &s->slots[s->live[k]];
        c->live++;
        if (sl->interval == 0) {
            k++;
            continue; /* its interval is not known yet: the next LIVE record settles it */
        }
        uint64_t size = sl->size;
        uint32_t r_e = sl->interval > UINT32_MAX ? UINT32_MAX : (uint32_t)sl->interval;
        if (coded) { /* the device kept only the 8-bit codes of both */
            size = msamp_thin_decode(msamp_thin_code(size));
            r_e = (uint32_t)msamp_thin_decode(msamp_thin_code(r_e));
        }
        if (r_e >= r_to) {
            k++;
            continue;
        }
        uint32_t q16 = msamp_thin_q16(size, r_e, r_to);
        if (msamp_thin_keep(sl->index, epoch, s->session_id, q16)) {
            double f = (double)MSAMP_THIN_ONE / (double)q16; /* q16 > 0: it won */
            double w = sl->w * f;
            inuse_add(s, sl, sl->w, w);
            count_alloc_delta(s, sl->lsite, sl->size, sl->aw, sl->aw * (f - 1));
            sl->aw *= f;
            sl->w = w;
            sl->interval = to;
            k++;
        } else {
            struct site *ast = &s->sites[sl->lsite];
            count_alloc_delta(s, sl->lsite, sl->size, sl->aw, -sl->aw);
            if (ast->alloc_samples)
                ast->alloc_samples--;
            unset_live(s, sl); /* moves the last live entry to k */
            c->thinned++;
        }
    }
    s->n.thinned += c->thinned;
}

/* The interval becomes `to` at record r (an INTERVAL, or a SESSION header that shows a change
 * whose INTERVAL was lost: reason DRAIN_REASON_HEADER). */
static void change_interval(struct session *s, const struct msamp_record *r, uint64_t to,
                            int reason, uint64_t epoch)
{
    int thin = MSAMP_INTERVAL_THINS(reason);
    struct interval_change c = {r->ts, s->interval, to, r->ts_valid, reason, 0, 0, 0, 0, 0};
    budgets_now(s);
    if (thin && s->have_header && s->nlive > s->thin_budget) {
        /* Beyond the work bound (a hostile storm of raises): not replayed; the next snapshot
         * pass's LIVE records give the surviving entries' intervals. */
        c.unreplayed = 2;
        s->n.thin_over_budget++;
    } else if (thin && s->have_header) {
        s->thin_budget -= s->nlive;
        c.thinned_live = 1;
        thin_live(s, &c, to, (uint32_t)epoch);
    } else if (thin) {
        c.unreplayed = 1; /* no session id to replay the coins with: snapshots repair it */
        s->n.thin_unreplayed++;
    }
    if (s->interval && (s->interval != to || thin))
        interval_log(s, &c);
    s->interval = to;
    session_note_interval(s, to);
    if (!s->first_interval)
        s->first_interval = to;
}

static void on_interval(struct session *s, const struct msamp_record *r)
{
    uint64_t to = r->u.interval.interval, reason = r->u.interval.reason;
    if (to == 0)
        return;
    change_interval(s, r, to, reason > INT32_MAX ? INT32_MAX : (int)reason,
                    r->u.interval.epoch);
}

/* SESSION: a change of interval the header shows (its INTERVAL record was lost) is replayed
 * first, then the header's identity (session.c). */
static void on_header(struct session *s, const struct msamp_record *r)
{
    if (s->have_header && s->interval != r->u.session.interval && r->u.session.interval)
        change_interval(s, r, r->u.session.interval, DRAIN_REASON_HEADER, 0);
    session_on_header(s, r);
}

/* HEAP and TASK_BUDGET: the models beside the session take them (session_observers). */
static void on_heap(struct session *s, const struct msamp_record *r)
{
    session_observers.heap_record(s, r);
}

static void on_budget(struct session *s, const struct msamp_record *r)
{
    session_observers.budget_record(s, r);
}

/* The records whose handler takes the record as it is, by type; live_apply() does the others and
 * the frequent ones (STACK, ALLOC, FREE, LIVE, SNAP_BEGIN: in its switch, before this table). */
static void (*const on_type[])(struct session *s, const struct msamp_record *r) = {
    [MSAMP_REC_SESSION] = on_header,           [MSAMP_REC_SNAP_END] = on_snap_end,
    [MSAMP_REC_FAIL] = sites_on_fail,          [MSAMP_REC_INTERVAL] = on_interval,
    [MSAMP_REC_MARK] = session_on_mark,        [MSAMP_REC_MAPPING] = session_on_mapping,
    [MSAMP_REC_TASK] = sites_on_task,          [MSAMP_REC_END] = session_on_end,
    [MSAMP_REC_HEAP] = on_heap,                [MSAMP_REC_TASK_BUDGET] = on_budget,
    [MSAMP_REC_CMD_ACK] = interval_on_cmd_ack, [MSAMP_REC_RESET] = session_on_reset,
};

/* live_apply's records but ALLOC, FREE, LIVE and SAMPLE_TASK. */
static void live_apply_other(struct session *s, const struct msamp_record *r)
{
    switch (r->type) {
    case MSAMP_DEC_FRAME:
        s->line_frames++;
        s->line_frames_lost += r->u.frame.lost;
        if (r->u.frame.lost) {
            s->snap_dirty = 1;
            s->settle_on = 0;
        }
        break;
    case MSAMP_DEC_LOSS:
        s->n.dec_losses++;
        s->snap_dirty = 1;
        s->settle_on = 0;
        break;
    case MSAMP_REC_STACK:
        sites_on_stack(s, r);
        break;
    case MSAMP_REC_SNAP_BEGIN:
        settle_pass(s, 1, 0);
        s->snap_gen++; /* every live entry is now unseen in this pass: O(1) */
        s->snap_active = 1;
        s->snap_dirty = 0;
        s->snap_pass = r->u.snap_begin.pass;
        s->snap_lives = 0;
        break;
    case MSAMP_REC_DROPS:
        s->have_drops = 1;
        s->drops[MSAMP_DROP_RING_RECORDS] = r->u.drops.ring_records;
        s->drops[MSAMP_DROP_RING_BYTES] = r->u.drops.ring_bytes;
        s->drops[MSAMP_DROP_LIVE_FULL] = r->u.drops.live_full;
        s->drops[MSAMP_DROP_STACK_FULL] = r->u.drops.stack_full;
        s->drops[MSAMP_DROP_REENTRANT] = r->u.drops.reentrant;
        s->drops[MSAMP_DROP_TRUNCATED] = r->u.drops.truncated;
        if (r->u.drops.has_no_frame) {
            s->have_no_frame = 1;
            s->drops[MSAMP_DROP_NO_FRAME] = r->u.drops.no_frame;
        }
        if (r->u.drops.has_out_of_bounds) {
            s->have_out_of_bounds = 1;
            s->drops[MSAMP_DROP_OUT_OF_BOUNDS] = r->u.drops.out_of_bounds;
        }
        break;
    case MSAMP_REC_REALLOC: {
        struct slot *old = slot_at(s, r->u.realloc.old_slot);
        s->n.reallocs++;
        if (old && old->live)
            on_realloc_chain(s, old, r);
        else /* the old block is not live for the reader: the chain starts here */
            on_alloc(s, r->u.realloc.new_slot1, r->u.realloc.size, r->u.realloc.stack_id, r->ts,
                     r->ts_valid);
        break;
    }
    default:
        if (r->type >= 0 && (size_t)r->type < sizeof(on_type) / sizeof(on_type[0]) &&
            on_type[r->type])
            on_type[r->type](s, r);
        break;
    }
}

void live_apply(struct session *s, const struct msamp_record *r)
{
    s->applied++; /* the budgets' DRAIN_THIN_PER_RECORD each (budgets_now) */
    if (r->ts_valid && r->type >= 0) {
        if (!s->ts_known) {
            s->ts_known = 1;
            s->first_ts = r->ts;
        }
        s->last_ts = r->ts;
    }
    /* A SAMPLE_TASK holds for the sample record right after it (docs/WIRE_FORMAT.md): ALLOC,
     * REALLOC and FAIL take it (site_of), every other record drops it (in its case: one switch a
     * record). */
    switch (r->type) {
    case MSAMP_REC_ALLOC:
        on_alloc(s, r->u.alloc.slot1, r->u.alloc.size, r->u.alloc.stack_id, r->ts, r->ts_valid);
        break;
    case MSAMP_REC_FREE:
        s->sample_task = 0;
        on_free(s, r->u.free.slot, r->u.free.moved);
        break;
    case MSAMP_REC_LIVE:
        s->sample_task = 0;
        on_live(s, r);
        break;
    case MSAMP_REC_SAMPLE_TASK:
        s->sample_task = (uint32_t)r->u.task.task;
        break;
    default:
        if (r->type != MSAMP_REC_REALLOC && r->type != MSAMP_REC_FAIL)
            s->sample_task = 0;
        live_apply_other(s, r);
        break;
    }
}
