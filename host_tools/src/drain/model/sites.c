/*
 * Where samples are counted (session.h): stack definitions (STACK records: an id redefined to
 * other frames names a new site from then on), the sites they name and their caps (the overflow
 * site), RTOS tasks (TASK records' names, each task's own site of a stack), and the sites' side
 * tables: rare totals (culled allocations, FAIL records), refused samples, task chains.
 */
#include "model/sites.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "model/session.h"
#include "util.h"

/* Values of the id maps that are not indexes: stack_index for an id whose latest definition was
 * not stored (a cap), site_index for an id whose site must be looked up again (redefined). Never
 * UINT32_MAX, which the maps use for "absent". */
#define DEF_UNSTORED (UINT32_MAX - 2u)
#define SITE_STALE (UINT32_MAX - 2u)

const uint64_t *session_stack(const struct session *s, uint64_t id, uint32_t *depth)
{
    uint32_t i = id ? umap_get(&s->stack_index, id) : UINT32_MAX;
    if (i >= s->nstacks)
        return NULL;
    *depth = s->stacks[i].depth;
    return &s->frames[s->stacks[i].off];
}

const uint64_t *session_site_stack(const struct session *s, const struct site *st,
                                   uint32_t *depth)
{
    if (st->def >= s->nstacks)
        return NULL;
    *depth = s->stacks[st->def].depth;
    return &s->frames[s->stacks[st->def].off];
}

const char *session_site_kind(const struct site *st)
{
    return st->def == SITE_DEF_FULL   ? "[stack table full]"
           : st->def == SITE_DEF_OVER ? DRAIN_SITE_LIMIT_NAME
                                      : "[unknown stack]";
}

/* Frames a site of definition def references (its pprof sample's locations): at least 1. */
static uint64_t site_cost(const struct session *s, uint32_t def)
{
    return def < s->nstacks && s->stacks[def].depth ? s->stacks[def].depth : 1;
}

/* Whether a new site of definition def fits the caps (and then charges it). */
static int site_fits(struct session *s, uint32_t def)
{
    uint64_t c = site_cost(s, def);
    if (s->nsites >= DRAIN_MAX_STACKS || s->site_frames + c > DRAIN_MAX_SITE_FRAMES)
        return 0;
    s->site_frames += c;
    return 1;
}

static uint32_t new_site(struct session *s, uint64_t stack_id, uint32_t def);

const struct site_rare *session_site_rare(const struct session *s, uint32_t site)
{
    static const struct site_rare none;
    uint32_t i = umap_get(&s->rare_index, site);
    return i < s->nrare ? &s->rare[i] : &none;
}


const struct site_refused *session_site_refused(const struct session *s, uint32_t site)
{
    static const struct site_refused none;
    return s->refused ? &s->refused[site] : &none;
}

struct site_rare *sites_rare(struct session *s, uint32_t site)
{
    int fresh;
    return UMAP_ELEM(&s->rare_index, site, s->rare, s->nrare, s->caprare, &fresh);
}

/* A site's task chain (link_of), made at the first use. */
static struct site_link *site_link(struct session *s, uint32_t site)
{
    int fresh;
    struct site_link *l = UMAP_ELEM(&s->link_index, site, s->link, s->nlink, s->caplink, &fresh);
    if (fresh)
        *l = (struct site_link){UINT32_MAX, UINT32_MAX};
    return l;
}

/* The overflow site, where samples of sites beyond the caps go (made at the first). */
static uint32_t over_site(struct session *s)
{
    s->n.site_limit++;
    if (s->over_site == UINT32_MAX)
        s->over_site = new_site(s, 0, SITE_DEF_OVER);
    return s->over_site;
}

static uint32_t new_site(struct session *s, uint64_t stack_id, uint32_t def)
{
    size_t cap = s->capsites;
    GROW(s->sites, s->capsites, s->nsites + 1);
    if (s->capsites != cap) {
        s->site_var = xrealloc(s->site_var, s->capsites * sizeof(*s->site_var));
        if (s->keep_site_peaks)
            s->site_peak = xrealloc(s->site_peak, s->capsites * sizeof(*s->site_peak));
        if (s->refused)
            s->refused = xrealloc(s->refused, s->capsites * sizeof(*s->refused));
    }
    memset(&s->sites[s->nsites], 0, sizeof(s->sites[0]));
    memset(&s->site_var[s->nsites], 0, sizeof(s->site_var[0]));
    if (s->site_peak)
        memset(&s->site_peak[s->nsites], 0, sizeof(s->site_peak[0]));
    if (s->refused)
        memset(&s->refused[s->nsites], 0, sizeof(s->refused[0]));
    s->sites[s->nsites].stack_id = stack_id;
    s->sites[s->nsites].def = def;
    if (def < s->nstacks)
        s->stacks[def].site = (uint32_t)s->nsites;
    return (uint32_t)s->nsites++;
}

/* The site of a stack id now: its current definition's (samples before any definition of the id
 * get a site of their own, which the first definition then names). Beyond the cap, samples go to
 * the site of id 0 ("unknown stack"). */
uint32_t sites_stack_new(struct session *s, uint64_t stack_id)
{
    uint32_t i, def = SITE_DEF_NONE;
    if (stack_id == MSAMP_WIRE_STACK_FULL) {
        def = SITE_DEF_FULL;
    } else if (stack_id != 0) {
        uint32_t d = umap_get(&s->stack_index, stack_id);
        if (d < s->nstacks)
            def = d;
    }
    if (def < s->nstacks && s->stacks[def].site != UINT32_MAX) {
        i = s->stacks[def].site;
    } else if (stack_id != 0 && stack_id != MSAMP_WIRE_STACK_FULL && !site_fits(s, def)) {
        return over_site(s); /* not cached: each sample is counted */
    } else {
        i = new_site(s, stack_id, def);
    }
    umap_put(&s->site_index, stack_id, i);
    return i;
}

/* A task's own site of base's stack (site_of), made at its first sample and chained after base. */
uint32_t sites_task_site(struct session *s, uint32_t base, uint32_t task)
{
    s->task_samples++;
    uint64_t key = (uint64_t)base << 16 | task;
    uint32_t i = umap_get(&s->task_site_index, key);
    if (i < s->nsites)
        return i;
    if (base == s->over_site)
        return base; /* counted */
    if (!site_fits(s, s->sites[base].def))
        return over_site(s);
    i = new_site(s, s->sites[base].stack_id, SITE_DEF_NONE);
    s->sites[i].def = s->sites[base].def; /* not the definition's own site: the base keeps it */
    s->sites[i].task = task;
    uint32_t next = link_of(s, base)->next_task;
    *site_link(s, i) = (struct site_link){base, next};
    site_link(s, base)->next_task = i;
    umap_put(&s->task_site_index, key, i);
    return i;
}

/* The position of task id in s->tasks (sorted by id), or where it would go. */
_Static_assert(offsetof(struct task_name, id) == 0, "id_pos: the id leads");
static size_t task_pos(const struct session *s, uint32_t id)
{
    return id_pos(s->tasks, s->ntasks, sizeof(s->tasks[0]), id);
}

/* A TASK record: id's name, replacing an earlier one (an RTOS that reused the id). */
void sites_on_task(struct session *s, const struct msamp_record *r)
{
    uint32_t id = (uint32_t)r->u.task.task;
    size_t lo = task_pos(s, id);
    if (lo == s->ntasks || s->tasks[lo].id != id) {
        if (s->ntasks >= DRAIN_MAX_TASKS)
            return;
        GROW(s->tasks, s->captasks, s->ntasks + 1);
        memmove(&s->tasks[lo + 1], &s->tasks[lo], (s->ntasks - lo) * sizeof(s->tasks[0]));
        s->ntasks++;
        s->tasks[lo].id = id;
    }
    size_t n = r->u.task.len < MSAMP_WIRE_MAX_TASK_NAME ? r->u.task.len : MSAMP_WIRE_MAX_TASK_NAME;
    for (size_t k = 0; k < n; k++) {
        uint8_t c = r->u.task.name[k];
        s->tasks[lo].name[k] = c >= 0x20 && c < 0x7f ? (char)c : '?'; /* printable in reports */
    }
    s->tasks[lo].name[n] = '\0';
}

const char *session_task_name(const struct session *s, uint32_t id)
{
    size_t lo = task_pos(s, id);
    return lo < s->ntasks && s->tasks[lo].id == id ? s->tasks[lo].name : NULL;
}

const char *session_site_task(const struct session *s, const struct site *st, char *buf,
                              size_t n)
{
    if (st->task == 0)
        return NULL;
    const char *name = session_task_name(s, st->task);
    if (name)
        return name;
    snprintf(buf, n, "task %u", (unsigned)st->task);
    return buf;
}


static uint64_t stack_hash(const uint64_t *frames, uint32_t depth)
{
    return hash_bytes(frames, depth * sizeof(uint64_t), 0x57ac);
}

struct frames_key {
    const struct session *s;
    const uint64_t *frames;
    uint32_t depth;
};

static int def_eq(const void *ctx, uint32_t i)
{
    const struct frames_key *k = ctx;
    const struct stackdef *d = &k->s->stacks[i];
    return d->depth == k->depth &&
           memcmp(&k->s->frames[d->off], k->frames, k->depth * sizeof(uint64_t)) == 0;
}

/* A pending site's definition arrives: it now references d's frames, unless that passes the cap
 * (its samples stay its own, shown under the overflow site's frame). */
static void resolve_def(struct session *s, uint32_t site, uint32_t d)
{
    uint64_t more = site_cost(s, d) - 1;
    if (s->site_frames + more <= DRAIN_MAX_SITE_FRAMES) {
        s->site_frames += more;
        s->sites[site].def = d;
    } else {
        s->sites[site].def = SITE_DEF_OVER;
        s->n.sites_folded++;
    }
}

/* A STACK record: the id now means these frames. The same frames again change nothing; other
 * frames (the device evicted the stack and reused its id) are a new definition, and the id's later
 * samples a new site, while what was counted under the old frames stays there. */
void sites_on_stack(struct session *s, const struct msamp_record *r)
{
    uint64_t id = r->u.stack.id;
    uint32_t depth = r->u.stack.depth;
    if (id == 0 || id == MSAMP_WIRE_STACK_FULL || depth == 0)
        return;
    struct frames_key key = {s, r->u.stack.frames, depth};
    uint32_t cur = umap_get(&s->stack_index, id);
    if (cur < s->nstacks && def_eq(&key, cur))
        return; /* re-sent: the usual case */
    /* Frames an id had before (redefined since) are found again, not stored twice. */
    uint32_t d = UINT32_MAX;
    if (s->stack_set.count)
        d = iset_find(&s->stack_set, stack_hash(r->u.stack.frames, depth), def_eq, &key);
    if (d == UINT32_MAX) {
        if (s->nstacks >= DRAIN_MAX_STACKS || s->nframes + depth > DRAIN_MAX_FRAMES) {
            s->n.stack_overflow++;
            d = DEF_UNSTORED;
        } else {
            GROW(s->stacks, s->capstacks, s->nstacks + 1);
            GROW(s->frames, s->capframes, s->nframes + depth);
            memcpy(&s->frames[s->nframes], r->u.stack.frames, depth * sizeof(uint64_t));
            s->stacks[s->nstacks] = (struct stackdef){(uint32_t)s->nframes, depth, UINT32_MAX, 0, 0};
            s->nframes += depth;
            d = (uint32_t)s->nstacks++;
        }
    }
    umap_put(&s->stack_index, id, d);
    uint32_t site = umap_get(&s->site_index, id);
    if (cur < s->nstacks) {
        /* Redefined: the id's next sample looks its site up again, and its old frames go into
         * the set a later definition searches (only displaced stacks: the set stays empty, and
         * costs nothing, for a device that never redefines). */
        s->n.stack_redefined++;
        if (!s->stacks[cur].in_set) {
            s->stacks[cur].in_set = 1;
            iset_add(&s->stack_set,
                     stack_hash(&s->frames[s->stacks[cur].off], s->stacks[cur].depth), cur);
        }
        if (site != UINT32_MAX)
            umap_put(&s->site_index, id, SITE_STALE);
    } else if (site < s->nsites && s->sites[site].def == SITE_DEF_NONE && d < s->nstacks) {
        /* The id's first definition (or the first drain could store): the samples that came
         * before it (a late join) were of these frames. */
        /* Each site now references the frames: those beyond the cap show as the overflow
         * site's frame instead (their samples stay theirs). */
        resolve_def(s, site, d);
        s->n.pending_resolved += s->sites[site].alloc_samples;
        for (uint32_t t = link_of(s, site)->next_task; t < s->nsites;
             t = link_of(s, t)->next_task) {
            resolve_def(s, t, d);
            s->n.pending_resolved += s->sites[t].alloc_samples;
        }
        if (s->sites[site].def != d)
            ; /* folded: the definition's site is made at its next sample */
        else if (s->stacks[d].site == UINT32_MAX)
            s->stacks[d].site = site;
        else
            s->stacks[d].shared = 1; /* another id already has these frames: merge on output */
    }
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* An allocation failure or a refusal by the giant guard: counted at its stack's site. */
void sites_on_fail(struct session *s, const struct msamp_record *r)
{
    uint64_t k = r->u.fail.kind;
    if (k >= MSAMP_FAIL_KINDS) {
        s->n.fails_other++;
        return;
    }
    uint32_t si = site_of(s, r->u.fail.stack_id); /* may grow s->sites */
    struct site_rare *st = sites_rare(s, si);
    st->fail_n[k]++;
    st->fail_b[k] = add_sat(st->fail_b[k], r->u.fail.size);
    if (r->u.fail.size > st->fail_max[k])
        st->fail_max[k] = r->u.fail.size;
    s->n.fails[k]++;
    if (r->u.fail.count > s->fail_device[k])
        s->fail_device[k] = r->u.fail.count;
    session_observers.fail(s, r, si); /* the HEAP record of its event says the heap then */
}

uint64_t session_failures(const struct session *s, unsigned kind)
{
    if (kind >= MSAMP_FAIL_KINDS)
        return 0;
    return s->fail_device[kind] > s->n.fails[kind] ? s->fail_device[kind] : s->n.fails[kind];
}

