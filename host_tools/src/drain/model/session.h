/*
 * drain's model of one device session (one boot): identity, mappings, stack definitions, the live
 * sampled allocations by slot, and per-site totals of allocated and freed samples, weighted by the
 * sampling interval in force for each record. Each live entry keeps its own interval and weight:
 * when the device raises its interval because its tables fill, it thins its live table, and the
 * model replays that thinning (include/msamp_thin.h) so in-use estimates stay unbiased. A site is a
 * stack definition: a stack id the device redefines names a new site from then on. Fed one decoded
 * record at a time. Memory is bounded by the caps below whatever the stream declares; records
 * beyond a cap are counted, not stored.
 *
 * Its files in model/, by what they model: session.c a session's identity and ends; record.c a
 * record's way in (those before the first header kept and replayed); live.c the record dispatch
 * and the live table it feeds (the per-record path, one translation unit); sites.c stacks and
 * sites (sites.h); interval.c the interval's record (interval.h); losses.c what was lost and how
 * complete the stream is. Beside the session, on top of it: heap.c (HEAP records) and task_use.c
 * (per-task in-use). Calls go one way: record.c into live.c; live.c (and sites.c, a FAIL's heap)
 * into heap.c and task_use.c through session_observers (filled in observers.c: no session file
 * includes their headers); those into this header's session.c, sites.c and losses.c, never back:
 * session_free frees their state by the free they attached (session_attach).
 */
#ifndef DRAIN_SESSION_H
#define DRAIN_SESSION_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "msamp_decode.h"
#include "util.h"

#define DRAIN_MAX_SLOTS MSAMP_WIRE_MAX_SLOTS /* live-table slots tracked (the device's limit) */
#define DRAIN_MAX_STACKS (1u << 20)   /* distinct stack definitions (and sites) per session */
#define DRAIN_MAX_FRAMES (1u << 22)   /* frames of all stacks of a session */
/* Frames referenced by all sites of a session (a site costs its stack's depth, at least 1: each
 * is a pprof sample holding its whole stack). A new site beyond this or DRAIN_MAX_STACKS folds
 * into the session's one overflow site, "[msamp: site limit reached]". */
#define DRAIN_MAX_SITE_FRAMES (1u << 22)
#define DRAIN_SITE_LIMIT_NAME "[msamp: site limit reached]"
#define DRAIN_MAX_MAPPINGS 256        /* MAPPING records per session */
#define DRAIN_MAX_MARKS 64            /* MARK texts kept per session */
#define DRAIN_MAX_MARK_LEN 128        /* characters kept of a MARK text: a device's are whole */
#define DRAIN_MAX_INTERVAL_LOG 64     /* interval changes listed one by one in the comments */
/* Records kept before the first SESSION header (replayed through the model when it arrives). */
#define DRAIN_MAX_PRE_BYTES (64u << 20)
/* Thinning replays: live entries visited, at most this many per record applied plus
 * DRAIN_THIN_BUDGET0; a raise beyond the budget is not replayed (counted). A visit costs about
 * 600 instructions since the verdicts follow every weight change (the split halves, the growth
 * bins), so the initial budget is 2^20 (2^22 before): a storm stays within the work bound. */
#define DRAIN_THIN_PER_RECORD 32u
#define DRAIN_THIN_BUDGET0 (1u << 20)
_Static_assert(DRAIN_MAX_MARK_LEN >= MSAMP_WIRE_MAX_MARK, "a device's MARK text is kept whole");

/* Lifetime buckets (docs/DRAIN.md "Lifetimes"): bucket 0 is [0, 10 us), bucket k (1..11) is
 * [10^(k+3) ns, 10^(k+4) ns) (10 us ... 11.6 days), bucket 12 is 10^15 ns (11.6 days) and more.
 * A bucket's label value is its lower edge (0 for bucket 0). */
#define DRAIN_LIFE_BUCKETS 13
/* The lower edge of bucket b in nanoseconds, and the bucket of an age in nanoseconds. */
uint64_t session_life_edge_ns(unsigned b);
/* Inline: every timed FREE takes it. The last bucket whose lower edge is at or below ns (0 for
 * none, and for a NaN), by four halvings of the edges padded to 16 with NaNs (no compare with a
 * NaN holds); the compares are exact: the edges are doubles exactly. */
static inline unsigned session_life_bucket(double ns)
{
    static const double edge[16] = {0,    1e4,  1e5,  1e6,  1e7,  1e8,  1e9, 1e10,
                                    1e11, 1e12, 1e13, 1e14, 1e15, NAN,  NAN, NAN};
    _Static_assert(DRAIN_LIFE_BUCKETS == 13, "edge[] lists every bucket's lower edge");
    unsigned b = 0;
    b += ns >= edge[b + 8] ? 8 : 0;
    b += ns >= edge[b + 4] ? 4 : 0;
    b += ns >= edge[b + 2] ? 2 : 0;
    b += ns >= edge[b + 1] ? 1 : 0;
    return b;
}
/* "<10us", "10us", "100us", "1ms", ... "1e5s", ">=1e6s": a bucket's short name. */
const char *session_life_name(unsigned b);

/* site.def for sites without frames: id 0, an id never defined (or not stored), and the device's
 * "stack table full" id. Real definitions are indexes below DRAIN_MAX_STACKS. */
#define SITE_DEF_NONE UINT32_MAX
#define SITE_DEF_FULL (UINT32_MAX - 1u)
#define SITE_DEF_OVER (UINT32_MAX - 3u) /* the overflow site: sites beyond the caps fold here */

/* One live sampled allocation, by live-table slot. It stands for 1/P allocations, P its inclusion
 * probability: w = 1 / (1 - exp(-size / R)) for the interval R it was sampled at, times 65536/q16
 * for each thinning it survived (its interval then is the raised one). */
struct slot {
    uint64_t size, birth;
    uint64_t interval; /* the interval the entry stands for (R_e); 0 while unknown */
    double w;          /* its weight now (in-use estimates, and a free's) */
    double aw;         /* the weight lsite's allocated totals hold for its block (of its size) */
    uint32_t site;     /* index in session.sites: a realloc chain's first site (in use, freed) */
    uint32_t lsite;    /* the site of the device's latest record of it: where its block's
                        * allocation is counted (a chain's: its latest realloc's), and the one
                        * LIVE records match */
    uint32_t links;    /* reallocs it went through (0: a plain allocation) */
    uint32_t index;    /* the device's slot index */
    uint32_t livepos;  /* position in session.live while live */
    uint32_t seen;     /* session.snap_gen when last allocated or re-sent */
    uint32_t touch;    /* session.settle_epoch then (compared modulo 2^32) */
    uint8_t live, unweighted;
    uint8_t born; /* birth is a known time (the chain's first allocation's) */
};

/* Freed sampled allocations of one site in one lifetime bucket (session.life_index). */
struct lifebin {
    uint32_t site, bucket;
    double an, ab, fn, fb; /* allocated (their aw) and freed (their w) estimates */
    uint64_t samples;
};

/* Records received before the session's first header, kept (deep copies) to be replayed once it
 * arrives; pointers of a kept record (frames, texts) are offsets into arena. */
struct pre_rec {
    struct msamp_record r;
    size_t off; /* of the record's bytes in arena */
};
struct pre_buf {
    struct pre_rec *v;
    size_t n, cap;
    struct buf arena;
    uint64_t bytes;   /* memory they hold (bounded by DRAIN_MAX_PRE_BYTES) */
    uint64_t samples; /* ALLOC, REALLOC and LIVE records among them */
    uint64_t stacks;  /* STACK records among them */
};

/* Where samples are counted: one stack definition (frames), or one of the frameless kinds. A stack
 * id names its current definition, so a redefined id's later samples go to another site. What
 * every sample touches is here (128 bytes: a session may hold 10^6 sites); what few sites have is
 * in side tables (struct site_rare, struct site_link). */
struct site {
    uint64_t stack_id; /* the id of the first samples (for the record; 0 for unknown) */
    uint32_t def;      /* index in session.stacks, or SITE_DEF_NONE / SITE_DEF_FULL */
    /* RTOS devices (SAMPLE_TASK records): the task id of its samples (0: none). */
    uint32_t task;
    double alloc_n, alloc_b, free_n, free_b;
    uint64_t alloc_samples, free_samples;
    double inuse_n, inuse_b; /* the running in-use estimate of its live entries */
};
_Static_assert(sizeof(struct site) <= 80, "the hot site record: rare fields go to side tables");

/* A site's half-B in-use (session_half_weights) and its value at the session's peak, the peak
 * profile's (session.site_peak, parallel to sites; kept only when asked for:
 * session_keep_site_peaks). */
struct site_peak {
    double half_n, half_b; /* the running in-use estimate from half B of the samples */
    double peak_n, peak_b; /* its half-B in-use at the session's peak, when peak_gen is the
                            * session's */
    uint64_t peak_gen;
};

/* A site's rare totals (session.rare, by site; session_site_rare): only sites with a culled
 * allocation or a FAIL record have one. */
struct site_rare {
    /* Allocations freed younger than the session's min_life_s: taken out of the allocated (and
     * freed) totals, counted here. */
    double cull_n, cull_b;
    uint64_t cull_samples;
    /* FAIL records at this stack, by kind (enum msamp_wire_fail): how many, the bytes asked
     * (saturating) and the largest request. Not samples: every failure is reported. */
    uint64_t fail_n[MSAMP_FAIL_KINDS], fail_b[MSAMP_FAIL_KINDS], fail_max[MSAMP_FAIL_KINDS];
    /* Of a site without a stack (def SITE_DEF_NONE, which it never returns to once defined),
     * its samples of ALLOC/REALLOC records (not snapshots): the profile's samples_unknown_stack. */
    uint64_t events;
};

/* Samples received without a live slot (slot 0: the device's live table was full, or an index
 * beyond drain's cap): allocated, but never in use nor freed for the reader. Per site whose in-use
 * they would count in (a realloc chain's first site): how many, and their weights w and w * size:
 * its in-use estimate is a lower bound, at most this much low (docs/VERDICTS.md "Marks").
 * session.refused, parallel to sites from the first refusal on (24 bytes a site: a stream whose
 * every sample is refused at 10^6 sites keeps them in 24 MB, not a rare record each). */
struct site_refused {
    double n, b;
    uint64_t samples;
};

/* RTOS devices: the chain of the sites of the same stack for other tasks (session.link, by site;
 * only sites in such a chain have one): base, the task-less site of its stack id, whose
 * definition they follow; next_task, the next of them; UINT32_MAX where none. */
struct site_link {
    uint32_t base, next_task;
};

/* A task's name (TASK records): tasks are sorted by id. */
struct task_name {
    uint32_t id;
    char name[MSAMP_WIRE_MAX_TASK_NAME + 1];
};
#define DRAIN_MAX_TASKS 4096u /* task names kept per session (ids are 1..65535) */
#define DRAIN_SESSION_PARTS 4 /* models beside a session that attach their state to it */

/* A stack definition: distinct frames (an id redefined back to earlier frames finds them again). */
struct stackdef {
    uint32_t off, depth; /* in session.frames */
    uint32_t site;       /* its site, UINT32_MAX until something is counted under it */
    uint8_t shared;      /* another site has these frames too (late definition): merged on output */
    uint8_t in_set;      /* in stack_set: an id that had these frames was redefined */
};

/* One change of the sampling interval, as the comments list it. */
#define DRAIN_REASON_HEADER (-1) /* seen in a SESSION header: its INTERVAL record was lost */
struct interval_change {
    uint64_t ts, from, to;
    int ts_valid;
    int reason;        /* enum msamp_wire_interval_reason, or DRAIN_REASON_HEADER */
    int by_command;    /* a SET whose command's CMD_ACK (ok) came before the next ack */
    int thinned_live;  /* a raise that thinned the live table (replayed) */
    int unreplayed;    /* a thinning raise drain could not replay (no session id yet) */
    uint64_t live, thinned; /* live entries before it; entries it thinned out */
};

struct mapping_rec {
    uint64_t start, limit, offset;
    uint8_t build_id[MSAMP_DEC_MAX_BUILD_ID];
    uint8_t build_id_len;
    char *path;
};

/* What the reader noticed: losses and repairs, for the profile's comments and the status line. */
struct session_counts {
    uint64_t samples, frees, reallocs, lives;
    uint64_t lost_frees;          /* a slot reused or a snapshot showed a FREE was lost */
    uint64_t unknown_frees;       /* FREE of a slot not known live (normal after a late join) */
    uint64_t late_live;           /* live allocations first seen in a snapshot (late join) */
    uint64_t settled_frees;       /* of lost_frees, those a part of a pass showed */
    uint64_t bad_slots;           /* slot index beyond the live capacity or drain's cap */
    uint64_t stack_overflow;      /* stacks or frames beyond drain's caps */
    uint64_t stack_redefined;     /* a stack id defined again with other frames (evicted, reused) */
    uint64_t stack_full;          /* samples with the device's "stack table full" id */
    uint64_t unweighted;          /* samples seen before the interval was known */
    uint64_t samples_unweighted;  /* of samples (ALLOC/REALLOC), those counted unweighted */
    uint64_t snapshots_ok, snapshots_skipped;
    uint64_t interval_changes;
    /* Interval changes by INTERVAL reason (index MSAMP_INTERVAL_REASONS: a reason this reader
     * does not know); changes seen only in a SESSION header. */
    uint64_t interval_by_reason[MSAMP_INTERVAL_REASONS + 1], interval_by_header;
    uint64_t interval_by_command; /* of the SETs, those a host's command made (by_command) */
    uint64_t thinned;             /* live entries the replayed thinnings took out */
    uint64_t thin_unreplayed;     /* thinning raises before the session id was known */
    uint64_t thin_over_budget;    /* thinning raises not replayed: beyond the work bound */
    uint64_t pre_replayed;        /* records received before the header, replayed at it */
    uint64_t pre_defaults;        /* ... replayed with defaults: no header came (or buffer full) */
    uint64_t pre_guessed;         /* samples before an INTERVAL SET: weighted at the header's */
    uint64_t pending_resolved;    /* samples whose stack was defined only after them */
    uint64_t reweighted_up;       /* unweighted entries' allocated totals corrected by a LIVE */
    uint64_t fails[MSAMP_FAIL_KINDS]; /* FAIL records received, by kind */
    uint64_t fails_other;         /* FAIL records of a kind this reader does not know */
    uint64_t chain_links;         /* REALLOCs that continued a live sampled allocation */
    uint64_t chains_moved;        /* FREE moved=1: a chain realloc'd to an unsampled block */
    uint64_t culled;              /* sampled allocations left out by --min-lifetime */
    uint64_t untimed_frees;       /* FREEs of entries without a known birth (no lifetime) */
    /* FREEs of a slot not known live once the device reported dropped records (DROPS
     * ring_records): the ALLOC was among the drops (at most as many as it reported). */
    uint64_t drop_frees;
    uint64_t refused;             /* samples received without a live slot (session_site_refused) */
    uint64_t dec_losses;          /* the decoder's loss marks (bytes discarded, a gap) */
    uint64_t site_limit;          /* samples folded into the overflow site (site caps) */
    uint64_t sites_folded;        /* pending sites whose definition came beyond the cap */
};

struct growth; /* model/growth_track.h */

struct session {
    int index; /* 1, 2, ... in this drain run */
    int have_header;
    uint32_t session_id;
    uint8_t version, flags, arch, ptr_size;
    uint64_t resend_seq, tick_hz, interval, first_interval, live_capacity, stack_capacity,
        max_depth;
    /* The largest interval any entry could have been sampled at: the interval's maximum over the
     * session (its raises, a LIVE record's own interval), the bound of what no live sample may
     * hide (docs/VERDICTS.md "No live sample"); 0 while unknown. */
    uint64_t interval_max;
    /* Read from a post-mortem dump (--ram, --core: docs/POSTMORTEM.md): the live table at one
     * moment, no history (session_set_dump). */
    int dump;
    uint8_t build_id[MSAMP_DEC_MAX_BUILD_ID];
    uint8_t build_id_len;
    uint8_t device_id[MSAMP_DEC_MAX_DEVICE_ID]; /* SESSION's optional device id */
    uint8_t device_id_len;

    struct mapping_rec *maps;
    size_t nmaps, capmaps;

    struct umap stack_index; /* stack id -> its current stackdef (or one not stored) */
    struct iset stack_set;   /* frames -> stackdef of the stacks ids were redefined away from */
    struct stackdef *stacks;
    size_t nstacks, capstacks;
    uint64_t *frames;
    size_t nframes, capframes;

    struct umap site_index; /* stack id -> the site of its current definition (a cache) */
    struct umap task_site_index; /* (site << 16 | task) -> that task's site of the same stack */
    uint32_t sample_task;   /* the SAMPLE_TASK before the next sample record (0: none) */
    uint64_t task_samples;  /* samples that came with a task: the session has tasks */
    struct task_name *tasks;
    size_t ntasks, captasks;
    struct site *sites;
    size_t nsites, capsites;
    /* The variance of each site's allocated estimates (parallel to sites, capsites entries):
     * objects sum(aw^2 - aw), bytes sum(size^2 (aw^2 - aw)) over the blocks they count
     * (docs/VERDICTS.md). In-use variances come from the live set when a profile is built. */
    struct site_var {
        double n, b;
    } *site_var;
    /* The sites' side tables (site index -> entry): rare totals, task chains. */
    struct umap rare_index, link_index;
    struct site_rare *rare;
    size_t nrare, caprare;
    struct site_refused *refused; /* by site from the first refusal on, NULL before it
                                   * (session_site_refused) */
    struct site_link *link;
    size_t nlink, caplink;
    struct site_peak *site_peak; /* NULL unless keep_site_peaks (capsites entries) */
    int keep_site_peaks;
    uint64_t site_frames; /* frames referenced by the sites (DRAIN_MAX_SITE_FRAMES) */
    uint32_t over_site;   /* the overflow site, UINT32_MAX until one is needed */

    /* Live-table entries by the device's slot index (slot_index: index -> position in slots,
     * which holds only indexes the stream used), and the positions of the live ones. */
    struct umap slot_index;
    struct slot *slots;
    size_t nslots, capslots;
    uint32_t *live;
    size_t nlive, caplive;
    uint32_t snap_gen;      /* counts SNAP_BEGINs: entries not seen since are not re-sent */
    /* Live-entry visits thinning replays may still make: thin_budget (and settle_budget below)
     * as of record budget_at; each record applied since (applied counts them) adds
     * DRAIN_THIN_PER_RECORD to both (budgets_now). */
    uint64_t thin_budget;
    uint64_t applied, budget_at;
    uint64_t slot_cap;      /* slot indexes tracked: below it (DRAIN_MAX_SLOTS, the header's) */
    /* Settling by pass (docs/DRAIN.md "A noisy line"): a pass re-sends the live entries in slot
     * order, so two of its LIVE records heard one after the other, nothing lost between them,
     * show that the slots between them held no entry allocated before the first was sent. The
     * epoch counts SNAP_BEGINs and LIVE records; settle_from is the slot the heard part of the
     * pass has covered up to (settle_on: it is; 0 after a loss, until the pass's next LIVE),
     * settle_mark the epoch of its latest record; settle_budget the slot visits it may make. */
    uint32_t settle_epoch, settle_mark;
    int settle_on;
    uint64_t settle_from, settle_budget;
    /* The running in-use estimate (objects, bytes) of all live entries: sum of w and w * size,
     * kept as entries come and go and as their weights change (thinning, LIVE). Per site in
     * site.inuse_n/_b. Profiles recompute it exactly from the live set; views over time read
     * these. */
    double inuse_n, inuse_b;
    /* The peak (docs/DRAIN.md "Peak"): the moment half A's in-use estimate (session_half_weights) was
     * highest, its time (last_ts then) and half B's estimate then (peak_n/_b: not biased by the
     * maximum, which half A took); half_a_b is half A's running estimate, half_n/_b half B's,
     * peak_a_b half A's maximum; peak_gen counts new peaks. A site's in-use at the peak is its
     * peak_n/_b when its peak_gen equals this one, else its half_n/_b (unchanged since): saved
     * at the first change after a peak, O(1) per change. */
    double half_a_b, half_n, half_b, peak_a_b;
    double peak_n, peak_b;
    uint64_t peak_ts;
    int peak_ts_valid;
    uint64_t peak_gen;

    /* Lifetimes of freed sampled allocations by (site, bucket): key site * 16 + bucket. */
    struct umap life_index;
    struct lifebin *life;
    size_t nlife, caplife;
    double min_life_s; /* --min-lifetime: 0 keeps everything */
    double cull_n, cull_b;

    struct pre_buf *pre;    /* records before the first header (NULL once replayed) */
    int pre_off;            /* no buffering: the buffer overflowed, records apply directly */

    int ts_known;
    uint64_t first_ts, last_ts;
    struct timespec host_start;
    /* The pace the stream arrived at (session_arrived; verdict/clock.h): the host's seconds when
     * the first and the latest piece of input with the session's timed records (session_events)
     * was read, and whether the input is live (a pipe, a tty, a socket, a debugger: not a file,
     * which has no pace). */
    int arrive_live, arrive_known;
    double arrive_first, arrive_last;

    int snap_active, snap_dirty;
    uint64_t snap_pass, snap_lives;

    int have_drops, have_no_frame; /* have_no_frame: the DROPS records carry no_frame */
    int have_out_of_bounds;        /* ... and out_of_bounds (devices since issue 29) */
    uint64_t drops[MSAMP_DROP_COUNT]; /* the latest DROPS record, by enum msamp_wire_drop */
    /* The device's count of failures by kind: the largest FAIL.count seen (lost records too). */
    uint64_t fail_device[MSAMP_FAIL_KINDS];
    /* END: the device's session totals (have_end 0: none came; the stream was cut short). */
    int have_end;
    uint64_t end_samples, end_frees, end_dropped;
    /* RESET: the session ended by a reset, sent by the next boot from the block it kept
     * (docs/POSTMORTEM.md): its cause (enum msamp_wire_reset_cause), its time (ticks, valid when
     * reset_ts_valid), the device's totals then. */
    int have_reset, reset_ts_valid;
    uint64_t reset_cause, reset_ts, reset_samples, reset_frees;

    struct msamp_dec_stats dec_start; /* decoder counters when the session began */
    /* Bad frames the decoder counted since dec_start before the session's first record (a cut
     * frame of an earlier boot before its first frame: not its loss), once first_seen. */
    uint64_t bad_before;
    uint8_t first_seen;
    /* The line's losses in this session (session_line_loss): frames received with a valid CRC, and
     * frames missed by the seq gaps before them. */
    uint64_t line_frames, line_frames_lost;

    char *marks[DRAIN_MAX_MARKS];
    size_t nmarks;

    struct interval_change interval_log[DRAIN_MAX_INTERVAL_LOG]; /* the first changes */
    size_t ninterval_log;
    /* A SET since the latest CMD_ACK (set_pending), its place in interval_log (SIZE_MAX: beyond
     * it): an ok ack of an interval or bounds command next says a host's command made it. */
    int set_pending;
    size_t set_log;

    struct session_counts n;

    struct heap_model *heap; /* HEAP records (model/heap.c), NULL until one came */
    struct task_use_model *task_use; /* per-task in-use and budgets (model/task_use.c), NULL
                                      * until a task's entry or TASK_BUDGET came */
    /* What the models beside the session (heap, task_use) made, freed with it by the free they
     * attached (session_attach): the session calls none of them to end. */
    struct session_part {
        void (*free)(void *p);
        void *p;
    } parts[DRAIN_SESSION_PARTS];
    size_t nparts;
    /* The growth tracker (model/growth_track.h; NULL: none attached, a dump), fed at every
     * change of a live entry's weight (growth_change, from the in-use update in model/live.c):
     * the growth verdicts' (verdict/growth.h); freed with s. */
    struct growth *growth;
};

/* For the files of the session's model only (model/): the records of identity and ends that
 * the dispatch (model/live.c) hands to session.c (SESSION: the header's identity, after live.c
 * replayed an interval change it shows), the free of the records kept before the first header,
 * and an interval some entry was (or may have been) sampled at: the session's largest so far. */
void session_on_header(struct session *s, const struct msamp_record *r);
void session_on_end(struct session *s, const struct msamp_record *r);
void session_on_reset(struct session *s, const struct msamp_record *r);
void session_on_mapping(struct session *s, const struct msamp_record *r);
void session_on_mark(struct session *s, const struct msamp_record *r);
void session_pre_free(struct pre_buf *p);
static inline void session_note_interval(struct session *s, uint64_t interval)
{
    if (interval > s->interval_max)
        s->interval_max = interval;
}

/* The session's timed records so far: its samples, frees, reallocs and snapshot entries (each
 * carries the device's time), from the counts the model keeps anyway. */
static inline uint64_t session_events(const struct session *s)
{
    return s->n.samples + s->n.frees + s->n.reallocs + s->n.lives;
}

struct session *session_new(int index, const struct msamp_dec_stats *dec_now);
/* --min-lifetime: allocations freed younger than seconds leave the allocated and freed totals. */
void session_set_min_lifetime(struct session *s, double seconds);
/* The session is a post-mortem dump's (docs/POSTMORTEM.md): its reports say so (in use when the
 * dump was taken; no allocations, frees, peak or growth). Before the first record. */
void session_set_dump(struct session *s);
/* Keep each site's in-use at the peak (session_site_peak: the peak profile's values; 40 bytes a
 * site and work at every weight change). Before the first record. */
void session_keep_site_peaks(struct session *s);
/* The age in nanoseconds of an entry born at tick birth at tick now (-1 when unknown). */
double session_age_ns(const struct session *s, uint64_t birth, uint64_t now);
/* The one clock of drain's text (docs/DRAIN.md "Times"): device tick ts (valid: it has one) in
 * seconds since the session's first record; -1 when unknown (no time, no tick_hz, or before the
 * first record). */
double session_time_s(const struct session *s, uint64_t ts, int valid);
/* Timed records of the session (session_events grew) were read at the host's time t (seconds,
 * monotonic): once per piece of input, not per record. */
void session_arrived(struct session *s, double t);
/* An entry's weights in half A (c[0]) and half B (c[1]) of the samples when its weight is w:
 * half A and half B are independent samples of the heap, each an unbiased estimate on its own
 * (docs/VERDICTS.md "The peak"); an entry of weight 1 (sampled surely) is in both at weight 1;
 * 0 in a half it is not in. */
void session_half_weights(const struct session *s, const struct slot *sl, double w, double c[2]);
/* A site's in-use estimate at the session's peak (objects, bytes): half B's, at the moment half
 * A's total was highest (0 unless session_keep_site_peaks, or the device's low watermark). */
void session_site_peak(const struct session *s, const struct site *st, double *n, double *b);
/* A model beside the session (heap.c, task_use.c) made its state p: free_part(p) frees it with
 * the session (at most DRAIN_SESSION_PARTS). */
void session_attach(struct session *s, void (*free_part)(void *p), void *p);
/* What the session's record dispatch tells the models beside it (heap.c, task_use.c): their
 * functions, wired in model/observers.c, above both, so the session's files include none of their
 * headers (no circle: docs/ARCHITECTURE.md "drain's stages"). */
struct session_observers {
    void (*heap_record)(struct session *s, const struct msamp_record *r);     /* HEAP */
    void (*budget_record)(struct session *s, const struct msamp_record *r);   /* TASK_BUDGET */
    void (*fail)(struct session *s, const struct msamp_record *r, uint32_t site); /* FAIL */
    void (*snap_end)(struct session *s); /* a snapshot pass ended */
    /* A site's in-use at the device's low watermark: 1 and (*n, *b), or 0 (none known). */
    int (*site_low)(const struct session *s, uint32_t site, double *n, double *b);
    /* A live slot's weight changed (w_old -> w_new; c_*: its halves' weights). */
    void (*weight)(struct session *s, const struct slot *sl, double w_old, double w_new,
                   const double *c_old, const double *c_new);
};
extern const struct session_observers session_observers;
void session_free(struct session *s);
/* Feeds the session's growth tracker (model/growth_track.h) from now on; freed with the session
 * (growth_free). */
void growth_attach(struct session *s);
void growth_free(struct growth *g);

/* 1 when rec (a SESSION record) starts a new session rather than repeating this one's header. */
int session_is_new(const struct session *s, const struct msamp_record *rec);
/* 1 when the session holds anything worth a profile. */
int session_has_data(const struct session *s);

/* One record applied to the model, the session's header (or defaults) known (model/live.c). */
void live_apply(struct session *s, const struct msamp_record *r);
/* A record before the session's first header (model/record.c): kept, the header that replays what
 * was kept, or applied (the buffer is full). */
void session_record_pre(struct session *s, const struct msamp_record *r);

/* One record of the session's stream. Inline: drain applies every record through it, and a call
 * less a record is 1.5 % of the model's instructions (docs/PERFORMANCE.md, issue 41). */
static inline void session_record(struct session *s, const struct msamp_record *r)
{
    if (r->type >= 0)
        s->first_seen = 1;
    else if (r->type == MSAMP_DEC_LOSS && !s->first_seen)
        return; /* bytes lost before the session's first record: none of its own (a cut frame of
                 * an earlier boot, a reader's first partial frame) */
    if (!s->have_header && !s->pre_off)
        session_record_pre(s, r);
    else
        live_apply(s, r);
}

/* The entry of the device's live-table slot index, or NULL when the stream never used it. */
const struct slot *session_slot(const struct session *s, uint64_t index);

/* A session with no header (the stream ended, or a reset came, before any SESSION) whose
 * records were kept: a new session holding them replayed with defaults (the interval inferred from
 * INTERVAL records when there are any, else unknown: unweighted). NULL when s needs no replay. The
 * caller frees it. */
struct session *session_replayed_defaults(const struct session *s);

/* The weight of a sample of size bytes under a mean interval (1 when interval <= 1). */
double session_weight(uint64_t size, uint64_t interval);

/* A stack id's current frames, or NULL when undefined (id 0 or never received). */
const uint64_t *session_stack(const struct session *s, uint64_t id, uint32_t *depth);
/* A site's rare totals (culled allocations, FAIL records): all 0 when it has none. */
const struct site_rare *session_site_rare(const struct session *s, uint32_t site);
/* The session's first record arrives (dec_now: the decoder's counters then): what the decoder
 * lost before it belongs to no record of this session, and marks none of its estimates. */
void session_first_record(struct session *s, const struct msamp_dec_stats *dec_now);
/* A site's refused samples (zero when it had none). */
const struct site_refused *session_site_refused(const struct session *s, uint32_t site);
/* The name of a site without frames: "[stack table full]", "[msamp: site limit reached]" or
 * "[unknown stack]". */
const char *session_site_kind(const struct site *st);
/* A site's frames, or NULL when it has none (unknown stack, stack table full). */
const uint64_t *session_site_stack(const struct session *s, const struct site *st,
                                   uint32_t *depth);

/* The name of task id (NULL when no TASK record named it). */
const char *session_task_name(const struct session *s, uint32_t id);
/* The label of a site's task ("name", "task N" when unnamed), or NULL for a site without one. */
const char *session_site_task(const struct session *s, const struct site *st, char *buf,
                              size_t n);

/* The name of an interval change's reason ("live table high water", ...). */
const char *session_reason_name(int reason);
/* One interval change as text, its time since the session's first record: "interval 4096 ->
 * 8192 at 1.234 s: raised by the device: live table high water, 517 of 3071 live entries
 * thinned"; prev: the change before it (NULL for the first), whose SET a device change after it
 * names. */
void session_interval_change_text(const struct session *s, const struct interval_change *c,
                                  const struct interval_change *prev, char *out, size_t n);
/* The interval's story in one phrase: "interval 4096 bytes, fixed" or "interval 8192 bytes now,
 * adapted from 4096: 2 raises (...), 1 lower; 517 live entries thinned". */
void session_interval_summary(const struct session *s, char *out, size_t n);
/* 1 when the device changed its interval on its own (a raise or a lower). */
int session_interval_adapted(const struct session *s);

/* Samples the device reported lost or not tracked: ring records, live table full, stack table full
 * and reentrant allocations (not ring bytes, not truncated stacks, which are kept). */
uint64_t session_device_drops(const struct session *s);
/* Allocation failures of a kind (enum msamp_wire_fail): the device's count (FAIL.count, which
 * includes failures whose record was lost), never below the records received. */
uint64_t session_failures(const struct session *s, unsigned kind);
/* The frees received as the device counts them (its END record's): FREE records (of live sampled
 * blocks, of chains moved to unsampled blocks, of slots not known live) and REALLOC records (a
 * realloc's old block). */
uint64_t session_frees_received(const struct session *s);
/* "5300 frees (5001 FREE records of live sampled blocks + 299 reallocs that moved a sampled
 * block)": session_frees_received and its parts that are not 0, or "N frees" when all are FREEs
 * of live blocks. */
void session_frees_text(const struct session *s, char *text, size_t n);
/* Whether the session's stream is complete (docs/DRAIN.md "Completeness"): 1 when END came and
 * every sample and free it counts was received, else 0; text says so in one phrase ("stream
 * complete: ...", "stream ended without END: incomplete", or with END the events lost; a dump's:
 * "post-mortem dump: ...", 0). final: the session is over (0 for a partial profile: "no END yet"). */
int session_completeness(const struct session *s, int final, char *text, size_t n);
/* How the session ended, as --json's "ended" says it: "reset" (a RESET record), "end" (END),
 * "cut" (neither: the stream was cut short, or goes on), NULL for a dump. */
const char *session_ended(const struct session *s);
/* A reset's cause by name ("software", "fault", ...; "unknown" when not noted). */
const char *session_reset_cause(const struct session *s);
/* What biases the session's estimates (docs/VERDICTS.md "Marks"), 0 each when nothing: samples
 * refused a live slot (their sites known: session_site_refused; the device's live_full count when
 * more), samples under [stack table full] (their sites unknown; the device's count when more), and
 * what was lost with sites unknown: records the ring dropped, reentrant allocations not sampled,
 * frames the line lost (seq gaps, and the decoder's losses when dec_now is given) and the events
 * END counts that never arrived. */
struct session_marks {
    uint64_t refused, unattributed;
    uint64_t ring_records, reentrant, frames_lost, events_lost;
};
void session_marks_of(const struct session *s, const struct msamp_dec_stats *dec_now,
                      struct session_marks *m);
/* 1 when the estimates of the session's sites may be low (any mark); lost: 1 when its totals may
 * be too (records lost, not only refused or unattributed). */
int session_marks_any(const struct session_marks *m);
int session_marks_lost(const struct session_marks *m);
/* The marks in one phrase: "1745 samples refused by the live table (their sites' in-use a lower
 * bound)", "...; records lost (12 dropped by the ring): every estimate may be low"; "" when
 * none. */
void session_marks_text(const struct session_marks *m, char *text, size_t n);
/* The share of the session's frames the line lost, missed / (missed + received) by the seq gaps
 * (0 on a clean line, at most 0.9): the allocations and frees of blocks no longer live are counted
 * at 1 / (1 - it) of what arrived (docs/DRAIN.md "A noisy line"). */
double session_line_loss(const struct session *s);
/* The decoder's counters since the session began, given its counters now. */
struct msamp_dec_stats session_stream_losses(const struct session *s,
                                             const struct msamp_dec_stats *now);

#endif
