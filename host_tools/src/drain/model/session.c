#include "model/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/heap.h"
#include "model/task_use.h"

/* The device's thinning rule, at the host's width (the same numbers as the device's). */
#define MSAMP_THIN_WORD uint64_t
#include "msamp_thin.h"

/* The per-record path (ALLOC, FREE, LIVE; docs/PERFORMANCE.md "drain's cost after the verdicts"):
 * its small steps inline whatever the compiler guesses (callgrind: a call's saved registers cost
 * more than the step), the first use of a slot or site and the rare cases out of line. */
#define HOT_INLINE static inline __attribute__((always_inline))
#define COLD static __attribute__((noinline))

/* Values of the id maps that are not indexes: stack_index for an id whose latest definition was
 * not stored (a cap), site_index for an id whose site must be looked up again (redefined). Never
 * UINT32_MAX, which the maps use for "absent". */
#define DEF_UNSTORED (UINT32_MAX - 2u)
#define SITE_STALE (UINT32_MAX - 2u)

static void pre_free(struct pre_buf *p)
{
    if (!p)
        return;
    free(p->v);
    buf_free(&p->arena);
    free(p);
}

struct session *session_new(int index, const struct msamp_dec_stats *dec_now)
{
    struct session *s = xcalloc(1, sizeof(*s));
    s->index = index;
    s->thin_budget = DRAIN_THIN_BUDGET0;
    s->slot_cap = DRAIN_MAX_SLOTS;
    s->over_site = UINT32_MAX;
    clock_gettime(CLOCK_REALTIME, &s->host_start);
    if (dec_now)
        s->dec_start = *dec_now;
    return s;
}

void session_free(struct session *s)
{
    if (!s)
        return;
    if (s->hook.free)
        s->hook.free(s->hook.ctx);
    for (size_t i = 0; i < s->nmaps; i++)
        free(s->maps[i].path);
    free(s->maps);
    umap_free(&s->stack_index);
    iset_free(&s->stack_set);
    free(s->stacks);
    free(s->frames);
    umap_free(&s->site_index);
    umap_free(&s->task_site_index);
    free(s->tasks);
    free(s->sites);
    free(s->site_var);
    free(s->site_peak);
    umap_free(&s->rare_index);
    free(s->rare);
    free(s->refused);
    umap_free(&s->link_index);
    free(s->link);
    umap_free(&s->slot_index);
    free(s->slots);
    free(s->live);
    pre_free(s->pre);
    umap_free(&s->life_index);
    free(s->life);
    for (size_t i = 0; i < s->nmarks; i++)
        free(s->marks[i]);
    heap_model_free(s->heap);
    task_use_free(s->task_use);
    free(s);
}

/* A session is worth a profile once it has a sample or a stack (a header alone is not: a stream
 * of empty boots writes no file per boot). */
int session_has_data(const struct session *s)
{
    return s->nsites > 0 || s->nstacks > 0 || (s->pre && (s->pre->samples || s->pre->stacks));
}

int session_is_new(const struct session *s, const struct msamp_record *rec)
{
    if (!s->have_header)
        return rec->u.session.resend_seq == 0 && session_has_data(s);
    /* The next boot's account of this session's end (MSAMP_SESSION_FLAG_PREVIOUS) continues it. */
    if ((rec->u.session.flags & MSAMP_SESSION_FLAG_PREVIOUS) &&
        rec->u.session.session_id == s->session_id && !s->have_end && !s->have_reset)
        return 0;
    return rec->u.session.session_id != s->session_id || rec->u.session.resend_seq == 0;
}

void session_set_min_lifetime(struct session *s, double seconds)
{
    s->min_life_s = seconds > 0 ? seconds : 0;
}

void session_set_dump(struct session *s)
{
    s->dump = 1;
}

/* An interval some entry was (or may have been) sampled at: the session's largest so far. */
static void note_interval(struct session *s, uint64_t interval)
{
    if (interval > s->interval_max)
        s->interval_max = interval;
}

void session_keep_site_peaks(struct session *s)
{
    if (s->keep_site_peaks)
        return;
    s->keep_site_peaks = 1;
    if (s->capsites) /* sites before it (too late a call): their values start at 0 */
        s->site_peak = xcalloc(s->capsites, sizeof(*s->site_peak));
}

uint64_t session_life_edge_ns(unsigned b)
{
    uint64_t e = 0;
    if (b > 0 && b < DRAIN_LIFE_BUCKETS)
        for (e = 10000; b > 1; b--)
            e *= 10;
    return e;
}

unsigned session_life_bucket(double ns)
{
    /* session_life_edge_ns(1 .. 12) as doubles (exact): a FREE's bucket without recomputing them */
    static const double edge[DRAIN_LIFE_BUCKETS] = {0,    1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                                     1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    _Static_assert(DRAIN_LIFE_BUCKETS == 13, "edge[] lists every bucket's lower edge");
    unsigned lo = 0, hi = DRAIN_LIFE_BUCKETS - 1; /* the last edge at or below ns (0: none) */
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (ns >= edge[mid])
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

const char *session_life_name(unsigned b)
{
    static const char *const names[DRAIN_LIFE_BUCKETS] = {
        "<10us", "10us", "100us", "1ms", "10ms", "100ms", "1s",
        "10s",   "100s", "1e3s",  "1e4s", "1e5s",  ">=1e6s"};
    return b < DRAIN_LIFE_BUCKETS ? names[b] : "?";
}

double session_age_ns(const struct session *s, uint64_t birth, uint64_t now)
{
    if (!s->tick_hz)
        return -1;
    return now > birth ? (double)(now - birth) * 1e9 / (double)s->tick_hz : 0.0;
}

void session_arrived(struct session *s, double t)
{
    if (!s->arrive_known) {
        s->arrive_known = 1;
        s->arrive_first = t;
    }
    s->arrive_last = t;
}

double session_time_s(const struct session *s, uint64_t ts, int valid)
{
    if (!valid || !s->ts_known || !s->tick_hz || ts < s->first_ts)
        return -1;
    return (double)(ts - s->first_ts) / (double)s->tick_hz;
}

void session_site_peak(const struct session *s, const struct site *st, double *n, double *b)
{
    /* The device's own low-watermark moment first (model/heap.c, docs/HEALTH.md). */
    if (heap_site_low(s, (uint32_t)(st - s->sites), n, b))
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

uint64_t session_device_drops(const struct session *s)
{
    return s->drops[MSAMP_DROP_RING_RECORDS] + s->drops[MSAMP_DROP_LIVE_FULL] +
           s->drops[MSAMP_DROP_STACK_FULL] + s->drops[MSAMP_DROP_REENTRANT];
}

double session_line_loss(const struct session *s)
{
    uint64_t all = s->line_frames + s->line_frames_lost;
    double q = all ? (double)s->line_frames_lost / (double)all : 0.0;
    return q < 0.9 ? q : 0.9;
}

struct msamp_dec_stats session_stream_losses(const struct session *s,
                                             const struct msamp_dec_stats *now)
{
    const struct msamp_dec_stats *b = &s->dec_start;
    return (struct msamp_dec_stats){
        .bytes_in = now->bytes_in - b->bytes_in,
        .frames_ok = now->frames_ok - b->frames_ok,
        .frames_bad = now->frames_bad - b->frames_bad,
        .frames_lost = now->frames_lost - b->frames_lost,
        .frames_repeated = now->frames_repeated - b->frames_repeated,
        .bytes_discarded = now->bytes_discarded - b->bytes_discarded,
        .records = now->records - b->records,
        .records_malformed = now->records_malformed - b->records_malformed,
        .records_unknown = now->records_unknown - b->records_unknown,
    };
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

void session_first_record(struct session *s, const struct msamp_dec_stats *dec_now)
{
    s->first_seen = 1;
    s->bad_before = dec_now->frames_bad - s->dec_start.frames_bad;
}

const struct site_refused *session_site_refused(const struct session *s, uint32_t site)
{
    static const struct site_refused none;
    return s->refused ? &s->refused[site] : &none;
}

/* A site's rare totals, made (zeroed) at the first use. */
static struct site_rare *site_rare(struct session *s, uint32_t site)
{
    int fresh;
    return UMAP_ELEM(&s->rare_index, site, s->rare, s->nrare, s->caprare, &fresh);
}

/* A sample of an ALLOC/REALLOC record at a site: counted only while the site has no stack. */
static void count_event(struct session *s, uint32_t site)
{
    if (s->sites[site].def == SITE_DEF_NONE)
        site_rare(s, site)->events++;
}

static const struct site_link no_link = {UINT32_MAX, UINT32_MAX};

/* A site's task chain (no_link when it is in none), and the same made at the first use. */
static const struct site_link *link_of(const struct session *s, uint32_t site)
{
    uint32_t i = umap_get(&s->link_index, site);
    return i < s->nlink ? &s->link[i] : &no_link;
}

static struct site_link *site_link(struct session *s, uint32_t site)
{
    int fresh;
    struct site_link *l = UMAP_ELEM(&s->link_index, site, s->link, s->nlink, s->caplink, &fresh);
    if (fresh)
        *l = no_link;
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
COLD uint32_t stack_site_new(struct session *s, uint64_t stack_id)
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

static inline uint32_t stack_site_of(struct session *s, uint64_t stack_id)
{
    uint32_t i = umap_get(&s->site_index, stack_id);
    return i < s->nsites ? i : stack_site_new(s, stack_id);
}

/* The site of a sample: its stack id's, and on an RTOS device (a SAMPLE_TASK before it) the
 * task's own site of that stack, chained to the stack's task-less one (which follows the id's
 * definitions): the same stack in two tasks makes two sites, and every total splits by task. */
COLD uint32_t task_site_of(struct session *s, uint32_t base, uint32_t task)
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

static inline uint32_t site_of(struct session *s, uint64_t stack_id)
{
    uint32_t task = s->sample_task;
    s->sample_task = 0;
    uint32_t base = stack_site_of(s, stack_id);
    return task == 0 ? base : task_site_of(s, base, task);
}

/* The position of task id in s->tasks (sorted by id), or where it would go. */
_Static_assert(offsetof(struct task_name, id) == 0, "id_pos: the id leads");
static size_t task_pos(const struct session *s, uint32_t id)
{
    return id_pos(s->tasks, s->ntasks, sizeof(s->tasks[0]), id);
}

/* END: the device's totals; its ring-drop count is the latest DROPS.ring_records too. */
static void on_end(struct session *s, const struct msamp_record *r)
{
    s->have_end = 1;
    s->end_samples = r->u.end.samples;
    s->end_frees = r->u.end.frees;
    s->end_dropped = r->u.end.dropped;
    if (r->u.end.dropped > s->drops[MSAMP_DROP_RING_RECORDS]) {
        s->have_drops = 1;
        s->drops[MSAMP_DROP_RING_RECORDS] = r->u.end.dropped;
    }
}

/* RESET: the session ended by a reset (the next boot's account, from the block it kept). */
static void on_reset(struct session *s, const struct msamp_record *r)
{
    s->have_reset = 1;
    s->reset_cause = r->u.reset.cause;
    s->reset_ts = r->ts;
    s->reset_ts_valid = r->ts_valid;
    s->reset_samples = r->u.reset.samples;
    s->reset_frees = r->u.reset.frees;
    if (r->u.reset.dropped > s->drops[MSAMP_DROP_RING_RECORDS]) {
        s->have_drops = 1;
        s->drops[MSAMP_DROP_RING_RECORDS] = r->u.reset.dropped;
    }
}

const char *session_reset_cause(const struct session *s)
{
    static const char *const names[MSAMP_WIRE_RESET_CAUSES] = {"unknown", "software", "fault",
                                                               "watchdog", "assert"};
    return s->reset_cause < MSAMP_WIRE_RESET_CAUSES ? names[s->reset_cause] : "other";
}

const char *session_ended(const struct session *s)
{
    return s->dump ? NULL : s->have_end ? "end" : s->have_reset ? "reset" : "cut";
}

/* A TASK record: id's name, replacing an earlier one (an RTOS that reused the id). */
static void on_task(struct session *s, const struct msamp_record *r)
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
        task_use_change(s, sl, w_old, w_new, c_old, c_new);
    if (s->hook.change)
        s->hook.change(s->hook.ctx, s, sl, w_old, w_new, c_old, c_new);
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
    double ns = timed && sl->born && s->ts_known ? session_age_ns(s, sl->birth, s->last_ts) : -1;
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
        struct site_rare *rr = site_rare(s, sl->lsite);
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
static void count_refused(struct session *s, uint32_t site, uint64_t size, double w)
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

/* The budgets with every record applied so far counted in (apply counts records, O(1)). */
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
    note_interval(s, interval);
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
    heap_on_snap_end(s); /* a pass a low watermark started: the device's live set */
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
static void on_stack(struct session *s, const struct msamp_record *r)
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
    if (s->interval && (s->interval != to || thin)) {
        if (reason == MSAMP_INTERVAL_SET) { /* its command's ack, if any, comes next */
            s->set_pending = 1;
            s->set_log = s->ninterval_log < DRAIN_MAX_INTERVAL_LOG ? s->ninterval_log : SIZE_MAX;
        }
        if (s->ninterval_log < DRAIN_MAX_INTERVAL_LOG)
            s->interval_log[s->ninterval_log++] = c;
        s->n.interval_changes++;
        if (reason == DRAIN_REASON_HEADER)
            s->n.interval_by_header++;
        else
            s->n.interval_by_reason[reason < MSAMP_INTERVAL_REASONS ? reason
                                                                    : MSAMP_INTERVAL_REASONS]++;
    }
    s->interval = to;
    note_interval(s, to);
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

/* A command's ack (docs/CONTROL.md): the device carried out an interval or bounds command right
 * before it, so an interval SET since the previous ack was the host's. */
static void on_cmd_ack(struct session *s, const struct msamp_record *r)
{
    unsigned cmd = (unsigned)r->u.cmd_ack.cmd;
    if (s->set_pending && r->u.cmd_ack.status == 0 &&
        (cmd == MSAMP_CMD_SET_INTERVAL || cmd == MSAMP_CMD_SET_BOUNDS)) {
        if (s->set_log < s->ninterval_log)
            s->interval_log[s->set_log].by_command = 1;
        s->n.interval_by_command++;
    }
    s->set_pending = 0;
}

static void on_session(struct session *s, const struct msamp_record *r)
{
    if (s->have_header && s->interval != r->u.session.interval && r->u.session.interval)
        change_interval(s, r, r->u.session.interval, DRAIN_REASON_HEADER, 0);
    s->have_header = 1;
    s->session_id = r->u.session.session_id;
    s->resend_seq = r->u.session.resend_seq;
    s->version = r->u.session.version;
    s->flags = r->u.session.flags & ~MSAMP_SESSION_FLAG_PREVIOUS;
    s->arch = r->u.session.arch;
    s->ptr_size = r->u.session.ptr_size;
    s->tick_hz = r->u.session.tick_hz;
    if (r->u.session.interval && !s->interval) {
        s->interval = r->u.session.interval;
        note_interval(s, s->interval);
        if (!s->first_interval)
            s->first_interval = s->interval;
    }
    s->live_capacity = r->u.session.live_capacity;
    s->slot_cap = s->live_capacity > 0 && s->live_capacity < DRAIN_MAX_SLOTS ? s->live_capacity
                                                                              : DRAIN_MAX_SLOTS;
    s->stack_capacity = r->u.session.stack_capacity;
    s->max_depth = r->u.session.max_depth;
    s->build_id_len = r->u.session.build_id_len;
    memcpy(s->build_id, r->u.session.build_id, s->build_id_len);
    s->device_id_len = r->u.session.device_id_len;
    memcpy(s->device_id, r->u.session.device_id, s->device_id_len);
}

static void on_mapping(struct session *s, const struct msamp_record *r)
{
    const __typeof__(r->u.mapping) *m = &r->u.mapping;
    for (size_t i = 0; i < s->nmaps; i++) {
        const struct mapping_rec *o = &s->maps[i];
        if (o->start == m->start && o->limit == m->limit && o->offset == m->offset)
            return;
    }
    if (s->nmaps >= DRAIN_MAX_MAPPINGS || m->limit <= m->start)
        return;
    GROW(s->maps, s->capmaps, s->nmaps + 1);
    struct mapping_rec *o = &s->maps[s->nmaps++];
    o->start = m->start;
    o->limit = m->limit;
    o->offset = m->offset;
    o->build_id_len = m->build_id_len;
    memcpy(o->build_id, m->build_id, m->build_id_len);
    o->path = xstrndup((const char *)m->path, m->path_len);
}

static void on_mark(struct session *s, const struct msamp_record *r)
{
    if (s->nmarks >= DRAIN_MAX_MARKS)
        return;
    size_t n = r->u.mark.len < DRAIN_MAX_MARK_LEN ? r->u.mark.len : DRAIN_MAX_MARK_LEN;
    char *t = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = r->u.mark.text[i];
        t[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    t[n] = 0;
    s->marks[s->nmarks++] = t;
}

static void apply(struct session *s, const struct msamp_record *r);

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* An allocation failure or a refusal by the giant guard: counted at its stack's site. */
static void on_fail(struct session *s, const struct msamp_record *r)
{
    uint64_t k = r->u.fail.kind;
    if (k >= MSAMP_FAIL_KINDS) {
        s->n.fails_other++;
        return;
    }
    uint32_t si = site_of(s, r->u.fail.stack_id); /* may grow s->sites */
    struct site_rare *st = site_rare(s, si);
    st->fail_n[k]++;
    st->fail_b[k] = add_sat(st->fail_b[k], r->u.fail.size);
    if (r->u.fail.size > st->fail_max[k])
        st->fail_max[k] = r->u.fail.size;
    s->n.fails[k]++;
    if (r->u.fail.count > s->fail_device[k])
        s->fail_device[k] = r->u.fail.count;
    heap_on_fail(s, r, si); /* the HEAP record of its event says the heap then */
}

uint64_t session_failures(const struct session *s, unsigned kind)
{
    if (kind >= MSAMP_FAIL_KINDS)
        return 0;
    return s->fail_device[kind] > s->n.fails[kind] ? s->fail_device[kind] : s->n.fails[kind];
}

/* --- Records before the first header ---------------------------------------------------------
 * A reader that joins late, or lost the SESSION frames, gets records it cannot weight (no
 * interval), whose thinning it cannot replay (no session id), whose [addr]/[interval] fields it
 * cannot tell apart (no flags). They are kept and replayed once the header comes. */

static int pre_kind(int type)
{
    return type == MSAMP_REC_ALLOC || type == MSAMP_REC_REALLOC || type == MSAMP_REC_LIVE;
}

/* Keeps r (a deep copy). 0 when the buffer is full: the caller applies it directly. */
static int pre_keep(struct session *s, const struct msamp_record *r)
{
    if (r->type == MSAMP_DEC_FRAME && !r->u.frame.lost)
        s->line_frames++; /* a good frame, all the model reads of it (a gap is kept) */
    if (r->type == MSAMP_DEC_UNKNOWN || (r->type == MSAMP_DEC_FRAME && !r->u.frame.lost))
        return 1; /* nothing else the model reads */
    const void *extra = NULL;
    size_t len = 0;
    if (r->type == MSAMP_REC_STACK) {
        extra = r->u.stack.frames;
        len = r->u.stack.depth * sizeof(uint64_t);
    } else if (r->type == MSAMP_REC_MARK) {
        extra = r->u.mark.text;
        len = r->u.mark.len < DRAIN_MAX_MARK_LEN ? r->u.mark.len : DRAIN_MAX_MARK_LEN;
    } else if (r->type == MSAMP_REC_MAPPING) {
        extra = r->u.mapping.path;
        len = r->u.mapping.path_len;
    } else if (r->type == MSAMP_REC_TASK) {
        extra = r->u.task.name;
        len = r->u.task.len;
    }
    if (!s->pre)
        s->pre = xcalloc(1, sizeof(*s->pre));
    struct pre_buf *p = s->pre;
    uint64_t cost = sizeof(struct pre_rec) + len;
    if (p->bytes + cost > DRAIN_MAX_PRE_BYTES)
        return 0;
    p->bytes += cost;
    GROW(p->v, p->cap, p->n + 1);
    struct pre_rec *k = &p->v[p->n++];
    k->r = *r;
    k->off = p->arena.len;
    if (len)
        buf_put(&p->arena, extra, len);
    if (pre_kind(r->type)) {
        p->samples++;
        if (r->type != MSAMP_REC_LIVE)
            s->n.samples++; /* the status line's count; recounted at the replay */
    } else if (r->type == MSAMP_REC_STACK) {
        p->stacks++;
    }
    return 1;
}

/* The interval in force before the first kept record: the one before the first INTERVAL record
 * kept (a raise doubled it: half; a lower halved it: double; a SET says nothing: the header's),
 * or the header's (hdr_interval, 0 when there is none). *guess: 1 when it is the header's although
 * an INTERVAL SET came before the header. */
static uint64_t pre_first_interval(const struct pre_buf *p, uint64_t hdr_interval, int *guess)
{
    *guess = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct msamp_record *r = &p->v[i].r;
        if (r->type != MSAMP_REC_INTERVAL || r->u.interval.interval == 0)
            continue;
        uint64_t to = r->u.interval.interval, reason = r->u.interval.reason;
        if (MSAMP_INTERVAL_THINS(reason))
            return to / 2 ? to / 2 : 1;
        if (reason == MSAMP_INTERVAL_LOWER)
            return to <= UINT64_MAX / 2 ? to * 2 : to;
        *guess = 1;
        return hdr_interval;
    }
    return hdr_interval;
}

/* Replays the kept records into s (its header fields set, or none) from interval `first`. */
static void pre_replay_into(struct session *s, const struct pre_buf *p, uint64_t first, int guess,
                            uint64_t *replayed)
{
    s->interval = first;
    note_interval(s, first);
    if (first && !s->first_interval)
        s->first_interval = first;
    uint64_t mask = s->have_header && s->ptr_size && s->ptr_size < 8
                        ? (((uint64_t)1 << (8 * s->ptr_size)) - 1)
                        : UINT64_MAX;
    int guessing = guess;
    uint64_t fr[MSAMP_DEC_MAX_DEPTH];
    for (size_t i = 0; i < p->n; i++) {
        struct msamp_record r = p->v[i].r;
        /* No bytes kept at all: the arena is NULL, and no offset may be added to it. */
        const uint8_t *extra = p->arena.p ? p->arena.p + p->v[i].off : (const uint8_t *)"";
        switch (r.type) {
        case MSAMP_REC_STACK:
            /* Frames were summed modulo 2^64 before the header gave the pointer size. */
            memcpy(fr, extra, r.u.stack.depth * sizeof(uint64_t));
            for (uint32_t k = 0; k < r.u.stack.depth; k++)
                fr[k] &= mask;
            r.u.stack.frames = fr;
            break;
        case MSAMP_REC_MARK:
            r.u.mark.text = extra;
            if (r.u.mark.len > DRAIN_MAX_MARK_LEN)
                r.u.mark.len = DRAIN_MAX_MARK_LEN;
            break;
        case MSAMP_REC_MAPPING:
            r.u.mapping.path = extra;
            break;
        case MSAMP_REC_TASK:
            r.u.task.name = extra;
            break;
        case MSAMP_REC_LIVE:
            /* Before any header the decoder reads the first trailing field as [addr]: for a
             * device that sends no addresses it was the entry's [interval]. */
            if (s->have_header && !(s->flags & MSAMP_SESSION_FLAG_ADDRESSES) &&
                r.u.live.has_addr && !r.u.live.has_interval) {
                r.u.live.interval = r.u.live.addr;
                r.u.live.has_interval = 1;
                r.u.live.has_addr = 0;
                r.u.live.addr = 0;
            }
            break;
        case MSAMP_REC_INTERVAL:
            guessing = 0;
            break;
        default:
            break;
        }
        if (guessing && pre_kind(r.type))
            s->n.pre_guessed++;
        apply(s, &r);
        (*replayed)++;
    }
}

/* The first header arrived (r): take its identity, replay what came before it from the interval
 * in force then, and then the header itself (which notes an interval change whose INTERVAL record
 * was lost). */
static void pre_replay(struct session *s, const struct msamp_record *r)
{
    struct pre_buf *p = s->pre;
    s->pre = NULL;
    s->n.samples = 0;
    int guess = 0;
    uint64_t first = p ? pre_first_interval(p, r->u.session.interval, &guess) : 0;
    /* The identity, without the interval (the replay starts from `first`). */
    struct msamp_record h = *r;
    h.u.session.interval = 0;
    apply(s, &h);
    if (p) {
        pre_replay_into(s, p, first, guess, &s->n.pre_replayed);
        pre_free(p);
    } else {
        s->interval = 0;
    }
    apply(s, r);
}

/* Kept records applied without a header (defaults): the interval as far as INTERVAL records tell,
 * else unknown (unweighted), no thinning, stacks as sent. */
static void pre_flush_defaults(struct session *s, const struct pre_buf *p)
{
    int guess = 0;
    uint64_t first = pre_first_interval(p, 0, &guess);
    s->n.samples = 0; /* recounted by the replay */
    pre_replay_into(s, p, first, 0, &s->n.pre_defaults);
}

struct session *session_replayed_defaults(const struct session *s)
{
    if (s->have_header || !s->pre)
        return NULL;
    struct session *t = session_new(s->index, &s->dec_start);
    t->host_start = s->host_start;
    t->arrive_live = s->arrive_live;
    t->arrive_known = s->arrive_known;
    t->arrive_first = s->arrive_first;
    t->arrive_last = s->arrive_last;
    t->first_seen = s->first_seen;
    t->bad_before = s->bad_before;
    t->pre_off = 1;
    t->min_life_s = s->min_life_s;
    t->keep_site_peaks = s->keep_site_peaks;
    /* What was applied directly (after a buffer overflow) cannot coexist with a kept buffer:
     * the buffer is flushed when it overflows. */
    pre_flush_defaults(t, s->pre);
    return t;
}

/* A record before the session's first header: kept, or the header that replays what was kept;
 * 1 when it is done with, 0 when it is to be applied (the buffer is full). */
COLD int pre_record(struct session *s, const struct msamp_record *r)
{
    if (r->type == MSAMP_REC_SESSION) {
        pre_replay(s, r);
        return 1;
    }
    if (pre_keep(s, r)) {
        if (r->ts_valid && r->type >= 0 && !s->ts_known) {
            s->ts_known = 1;
            s->first_ts = r->ts;
        }
        if (r->ts_valid && r->type >= 0)
            s->last_ts = r->ts;
        return 1;
    }
    /* The buffer is full: what it holds, and all that follows until a header, is applied with
     * defaults (weights unknown, thinning not replayed), as a reader without the buffer would. */
    struct pre_buf *p = s->pre;
    s->pre = NULL;
    s->pre_off = 1;
    pre_flush_defaults(s, p);
    pre_free(p);
    return 0;
}

void session_record(struct session *s, const struct msamp_record *r)
{
    if (r->type >= 0)
        s->first_seen = 1;
    else if (r->type == MSAMP_DEC_LOSS && !s->first_seen)
        return; /* bytes lost before the session's first record: none of its own (a cut frame of
                 * an earlier boot, a reader's first partial frame) */
    if (!s->have_header && !s->pre_off && pre_record(s, r))
        return;
    apply(s, r);
}

/* The records whose handler takes the record as it is, by type; apply() does the others and the
 * frequent ones (STACK, ALLOC, FREE, LIVE, SNAP_BEGIN: in its switch, before this table). */
static void (*const on_type[])(struct session *s, const struct msamp_record *r) = {
    [MSAMP_REC_SESSION] = on_session,   [MSAMP_REC_SNAP_END] = on_snap_end,
    [MSAMP_REC_FAIL] = on_fail,         [MSAMP_REC_INTERVAL] = on_interval,
    [MSAMP_REC_MARK] = on_mark,         [MSAMP_REC_MAPPING] = on_mapping,
    [MSAMP_REC_TASK] = on_task,         [MSAMP_REC_END] = on_end,
    [MSAMP_REC_HEAP] = heap_on_record,  [MSAMP_REC_TASK_BUDGET] = task_use_on_record,
    [MSAMP_REC_CMD_ACK] = on_cmd_ack,  [MSAMP_REC_RESET] = on_reset,
};

static void apply(struct session *s, const struct msamp_record *r)
{
    s->applied++; /* the budgets' DRAIN_THIN_PER_RECORD each (budgets_now) */
    if (r->ts_valid && r->type >= 0) {
        if (!s->ts_known) {
            s->ts_known = 1;
            s->first_ts = r->ts;
        }
        s->last_ts = r->ts;
    }
    /* A SAMPLE_TASK holds for the sample record right after it (docs/WIRE_FORMAT.md). */
    if (r->type == MSAMP_REC_SAMPLE_TASK) {
        s->sample_task = (uint32_t)r->u.task.task;
        return;
    }
    if (r->type != MSAMP_REC_ALLOC && r->type != MSAMP_REC_REALLOC && r->type != MSAMP_REC_FAIL)
        s->sample_task = 0;
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
    case MSAMP_REC_ALLOC:
        on_alloc(s, r->u.alloc.slot1, r->u.alloc.size, r->u.alloc.stack_id, r->ts, r->ts_valid);
        break;
    case MSAMP_REC_FREE:
        on_free(s, r->u.free.slot, r->u.free.moved);
        break;
    case MSAMP_REC_STACK:
        on_stack(s, r);
        break;
    case MSAMP_REC_LIVE:
        on_live(s, r);
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

const char *session_reason_name(int reason)
{
    switch (reason) {
    case MSAMP_INTERVAL_SET: return "set by the application";
    case MSAMP_INTERVAL_LIVE_HIGH: return "live table high water";
    case MSAMP_INTERVAL_STACK_HIGH: return "stack table high water";
    case MSAMP_INTERVAL_BUCKET_FULL: return "live-table bucket full";
    case MSAMP_INTERVAL_LOWER: return "tables below low water";
    case MSAMP_INTERVAL_RING_HIGH: return "ring high water (the link is slower than the samples)";
    case DRAIN_REASON_HEADER: return "seen in a session header (its INTERVAL record was lost)";
    default: return "unknown reason";
    }
}

/* "12.345 s" since the session's first record, "tick N" without tick_hz (ticks since it), or
 * "an unknown time". */
static void when_text(const struct session *s, const struct interval_change *c, char *out,
                      size_t n)
{
    double t = session_time_s(s, c->ts, c->ts_valid);
    if (t >= 0)
        snprintf(out, n, "%.3f s", t);
    else if (c->ts_valid && s->ts_known && c->ts >= s->first_ts)
        snprintf(out, n, "tick %llu", (unsigned long long)(c->ts - s->first_ts));
    else
        snprintf(out, n, "an unknown time");
}

void session_interval_change_text(const struct session *s, const struct interval_change *c,
                                  const struct interval_change *prev, char *out, size_t n)
{
    char when[64];
    when_text(s, c, when, sizeof(when));
    int raise = MSAMP_INTERVAL_THINS(c->reason);
    const char *who = c->reason == MSAMP_INTERVAL_SET && c->by_command
                          ? "set by a command from the host (acknowledged)"
                      : raise                              ? "raised by the device: "
                      : c->reason == MSAMP_INTERVAL_LOWER ? "lowered by the device: "
                                                           : "";
    int len = snprintf(out, n, "interval %llu -> %llu at %s: %s%s", (unsigned long long)c->from,
                       (unsigned long long)c->to, when, who,
                       c->reason == MSAMP_INTERVAL_SET && c->by_command
                           ? ""
                           : session_reason_name(c->reason));
    if (c->reason > MSAMP_INTERVAL_RING_HIGH && len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, " %d", c->reason);
    if (len < 0 || (size_t)len >= n)
        return;
    if (c->thinned_live)
        len += snprintf(out + len, n - (size_t)len, ", %llu of %llu live entries thinned",
                        (unsigned long long)c->thinned, (unsigned long long)c->live);
    else if (c->unreplayed == 2)
        len += snprintf(out + len, n - (size_t)len,
                        ", thinning not replayed (beyond drain's work bound)");
    else if (c->unreplayed)
        len += snprintf(out + len, n - (size_t)len,
                        ", thinning not replayed (session id not yet known)");
    /* The device's own change right after a set one: a set interval goes on adapting. */
    if (prev && prev->reason == MSAMP_INTERVAL_SET &&
        (raise || c->reason == MSAMP_INTERVAL_LOWER) && len >= 0 && (size_t)len < n) {
        when_text(s, prev, when, sizeof(when));
        snprintf(out + len, n - (size_t)len,
                 " (after the interval %s at %s: the device adapts a set interval within its "
                 "bounds; bounds=N:N, or msamp_set_interval_bounds(N, N), pins it)",
                 prev->by_command ? "a command set" : "the application set", when);
    }
}

int session_interval_adapted(const struct session *s)
{
    const uint64_t *by = s->n.interval_by_reason;
    return by[MSAMP_INTERVAL_LIVE_HIGH] + by[MSAMP_INTERVAL_STACK_HIGH] +
               by[MSAMP_INTERVAL_BUCKET_FULL] + by[MSAMP_INTERVAL_LOWER] +
               by[MSAMP_INTERVAL_RING_HIGH] != 0;
}

void session_interval_summary(const struct session *s, char *out, size_t n)
{
    const struct session_counts *c = &s->n;
    const uint64_t *by = c->interval_by_reason;
    if (s->dump) { /* one moment: no history of its changes */
        snprintf(out, n, "interval %llu bytes when the dump was taken",
                 (unsigned long long)s->interval);
        return;
    }
    if (c->interval_changes == 0) {
        snprintf(out, n, "interval %llu bytes, fixed", (unsigned long long)s->interval);
        return;
    }
    uint64_t raises = by[MSAMP_INTERVAL_LIVE_HIGH] + by[MSAMP_INTERVAL_STACK_HIGH] +
                      by[MSAMP_INTERVAL_BUCKET_FULL] + by[MSAMP_INTERVAL_RING_HIGH];
    size_t len = (size_t)snprintf(out, n, "interval %llu bytes now (first %llu), %s:",
                                  (unsigned long long)s->interval,
                                  (unsigned long long)s->first_interval,
                                  session_interval_adapted(s) ? "adapted" : "not adapted");
    const char *sep = " ";
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (len < n)                                                                               \
            len += (size_t)snprintf(out + len, n - len, __VA_ARGS__);                              \
    } while (0)
    if (raises) {
        APPEND("%s%llu raise%s (", sep, (unsigned long long)raises, raises == 1 ? "" : "s");
        const char *in = "";
        for (int r = MSAMP_INTERVAL_LIVE_HIGH; r < MSAMP_INTERVAL_REASONS; r++) {
            if (by[r] && MSAMP_INTERVAL_THINS(r)) {
                APPEND("%s%llu %s", in, (unsigned long long)by[r], session_reason_name(r));
                in = ", ";
            }
        }
        APPEND(")");
        sep = ", ";
    }
    if (by[MSAMP_INTERVAL_LOWER]) {
        APPEND("%s%llu lower%s", sep, (unsigned long long)by[MSAMP_INTERVAL_LOWER],
               by[MSAMP_INTERVAL_LOWER] == 1 ? "" : "s");
        sep = ", ";
    }
    uint64_t by_app = by[MSAMP_INTERVAL_SET] - c->interval_by_command;
    if (by_app) {
        APPEND("%s%llu set by the application", sep, (unsigned long long)by_app);
        sep = ", ";
    }
    if (c->interval_by_command) {
        APPEND("%s%llu set by a command from the host", sep,
               (unsigned long long)c->interval_by_command);
        sep = ", ";
    }
    if (by[MSAMP_INTERVAL_REASONS]) {
        APPEND("%s%llu for reasons this drain does not know", sep,
               (unsigned long long)by[MSAMP_INTERVAL_REASONS]);
        sep = ", ";
    }
    if (c->interval_by_header)
        APPEND("%s%llu seen only in a session header", sep,
               (unsigned long long)c->interval_by_header);
    if (raises)
        APPEND("; %llu live entries thinned", (unsigned long long)c->thinned);
    if (c->thin_unreplayed)
        APPEND(" (%llu thinnings not replayed)", (unsigned long long)c->thin_unreplayed);
#undef APPEND
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void session_marks_of(const struct session *s, const struct msamp_dec_stats *dec_now,
                      struct session_marks *m)
{
    memset(m, 0, sizeof(*m));
    m->refused = max_u64(s->n.refused, s->drops[MSAMP_DROP_LIVE_FULL]);
    m->unattributed = max_u64(s->n.stack_full, s->drops[MSAMP_DROP_STACK_FULL]);
    m->ring_records = s->drops[MSAMP_DROP_RING_RECORDS];
    m->reentrant = s->drops[MSAMP_DROP_REENTRANT];
    m->frames_lost = s->line_frames_lost;
    if (dec_now) {
        struct msamp_dec_stats l = session_stream_losses(s, dec_now);
        uint64_t bad = l.frames_bad > s->bad_before ? l.frames_bad - s->bad_before : 0;
        m->frames_lost = max_u64(m->frames_lost, l.frames_lost + (s->first_seen ? bad : 0));
    } else if (s->n.dec_losses > m->frames_lost) {
        m->frames_lost = s->n.dec_losses;
    }
    if (s->have_end) {
        uint64_t frees = session_frees_received(s);
        m->events_lost = (s->end_samples > s->n.samples ? s->end_samples - s->n.samples : 0) +
                         (s->end_frees > frees ? s->end_frees - frees : 0);
    }
}

int session_marks_lost(const struct session_marks *m)
{
    return m->ring_records || m->reentrant || m->frames_lost || m->events_lost;
}

int session_marks_any(const struct session_marks *m)
{
    return m->refused || m->unattributed || session_marks_lost(m);
}

void session_marks_text(const struct session_marks *m, char *text, size_t n)
{
    int len = 0;
    text[0] = 0;
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (len >= 0 && (size_t)len < n)                                                           \
            len += snprintf(text + len, n - (size_t)len, __VA_ARGS__);                             \
    } while (0)
    if (m->refused)
        APPEND("%llu samples refused by the live table (their sites' in-use a lower bound)",
               (unsigned long long)m->refused);
    if (m->unattributed)
        APPEND("%s%llu samples under [stack table full] (every site's estimates a lower bound)",
               len ? "; " : "", (unsigned long long)m->unattributed);
    if (session_marks_lost(m)) {
        APPEND("%srecords lost (", len ? "; " : "");
        const char *sep = "";
        if (m->ring_records) {
            APPEND("%llu dropped by the ring", (unsigned long long)m->ring_records);
            sep = ", ";
        }
        if (m->reentrant) {
            APPEND("%s%llu reentrant allocations not sampled", sep,
                   (unsigned long long)m->reentrant);
            sep = ", ";
        }
        if (m->frames_lost) {
            APPEND("%s%llu frames lost on the line", sep, (unsigned long long)m->frames_lost);
            sep = ", ";
        }
        if (m->events_lost)
            APPEND("%s%llu events of END's totals not received", sep,
                   (unsigned long long)m->events_lost);
        APPEND("): every estimate may be low");
    }
#undef APPEND
}

uint64_t session_frees_received(const struct session *s)
{
    /* The device counts a FREE record (of a live block, moved, or of a slot the reader does not
     * know live) and a REALLOC's old block as frees. */
    return s->n.frees + s->n.chains_moved + s->n.unknown_frees + s->n.drop_frees + s->n.reallocs;
}

void session_frees_text(const struct session *s, char *text, size_t n)
{
    const uint64_t part[4] = {s->n.frees, s->n.reallocs, s->n.chains_moved,
                              s->n.unknown_frees + s->n.drop_frees};
    static const char *const what[4] = {"FREE records of live sampled blocks",
                                        "reallocs that moved a sampled block",
                                        "FREE records of chains moved to unsampled blocks",
                                        "FREE records of slots not known live"};
    int len = snprintf(text, n, "%llu frees", (unsigned long long)session_frees_received(s));
    if (part[0] == session_frees_received(s))
        return;
    const char *sep = " (";
    for (int k = 0; k < 4 && len >= 0 && (size_t)len < n; k++) {
        if (part[k] == 0)
            continue;
        len += snprintf(text + len, n - (size_t)len, "%s%llu %s", sep, (unsigned long long)part[k],
                        what[k]);
        sep = " + ";
    }
    if (len >= 0 && (size_t)len < n)
        snprintf(text + len, n - (size_t)len, ")");
}

int session_completeness(const struct session *s, int final, char *text, size_t n)
{
    if (s->dump) {
        snprintf(text, n, "post-mortem dump: what was in use when it was taken; no stream, so no "
                          "history (no allocations, frees, peak or growth)");
        return 0;
    }
    if (!s->have_end && s->have_reset) {
        snprintf(text, n, "ended by a reset at %.3f s (cause: %s): in use is the device's own "
                          "live set then, kept across the reset and sent by its next boot; the "
                          "device's totals then: %llu samples, %llu frees",
                 session_time_s(s, s->reset_ts, s->reset_ts_valid), session_reset_cause(s),
                 (unsigned long long)s->reset_samples, (unsigned long long)s->reset_frees);
        return 0;
    }
    if (!s->have_end) {
        snprintf(text, n, final ? "stream ended without END: incomplete (the device's totals "
                                  "never came: the stream was cut short or the device reset)"
                                : "no END yet (the stream goes on)");
        return 0;
    }
    uint64_t samples = s->n.samples, frees = session_frees_received(s);
    struct session_marks m;
    session_marks_of(s, NULL, &m);
    uint64_t lost = m.events_lost; /* produced by the device (END) - received */
    if (lost == 0 && session_marks_any(&m)) {
        /* Every record arrived, but the device did not sample or track all it should have. */
        char why[384];
        session_marks_text(&m, why, sizeof(why));
        snprintf(text, n, "stream incomplete: END received, all %llu samples and %llu frees of "
                          "the device arrived, but %s",
                 (unsigned long long)s->end_samples, (unsigned long long)s->end_frees, why);
        return 0;
    }
    if (lost == 0) {
        snprintf(text, n, "stream complete: END received, all %llu samples and %llu frees of the "
                          "device",
                 (unsigned long long)s->end_samples, (unsigned long long)s->end_frees);
        return 1;
    }
    snprintf(text, n, "stream incomplete: END received; %llu events lost (produced - received): "
                      "%llu of %llu samples and %llu of %llu frees received; the device's ring "
                      "dropped %llu records",
             (unsigned long long)lost, (unsigned long long)(samples < s->end_samples ? samples : s->end_samples),
             (unsigned long long)s->end_samples, (unsigned long long)(frees < s->end_frees ? frees : s->end_frees),
             (unsigned long long)s->end_frees, (unsigned long long)s->end_dropped);
    return 0;
}
