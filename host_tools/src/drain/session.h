/*
 * drain's model of one device session (one boot): identity, mappings, stack definitions, the live
 * sampled allocations by slot, and per-stack totals of allocated and freed samples, weighted by the
 * sampling interval in force for each record. Fed one decoded record at a time. Memory is bounded
 * by the caps below whatever the stream declares; records beyond a cap are counted, not stored.
 */
#ifndef DRAIN_SESSION_H
#define DRAIN_SESSION_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "msamp_decode.h"
#include "util.h"

#define DRAIN_MAX_SLOTS (1u << 20)    /* live-table slots tracked (index must be below) */
#define DRAIN_MAX_STACKS (1u << 20)   /* distinct stack ids per session */
#define DRAIN_MAX_FRAMES (1u << 24)   /* frames of all stacks of a session */
#define DRAIN_MAX_MAPPINGS 256        /* MAPPING records per session */
#define DRAIN_MAX_MARKS 64            /* MARK texts kept per session */
#define DRAIN_MAX_MARK_LEN 128        /* characters kept of a MARK text: a device's are whole */
_Static_assert(DRAIN_MAX_MARK_LEN >= MSAMP_WIRE_MAX_MARK, "a device's MARK text is kept whole");

struct slot {
    uint64_t size, birth;
    double w;      /* weight of this sample: 1 / (1 - exp(-size / interval)) */
    uint32_t site; /* index in session.sites */
    uint8_t live, in_snap, unweighted;
};

struct site {
    uint64_t stack_id;
    double alloc_n, alloc_b, free_n, free_b;
    uint64_t alloc_samples, free_samples;
};

struct stackdef {
    uint32_t off, depth; /* in session.frames */
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
    uint64_t bad_slots;           /* slot index beyond the live capacity or drain's cap */
    uint64_t stack_overflow;      /* stacks or frames beyond drain's caps */
    uint64_t stack_conflicts;     /* a stack id redefined differently */
    uint64_t unweighted;          /* samples seen before the interval was known */
    uint64_t snapshots_ok, snapshots_skipped;
    uint64_t interval_changes;
};

struct session {
    int index; /* 1, 2, ... in this drain run */
    int have_header;
    uint32_t session_id;
    uint8_t version, flags, arch, ptr_size;
    uint64_t resend_seq, tick_hz, interval, first_interval, live_capacity, stack_capacity,
        max_depth;
    uint8_t build_id[MSAMP_DEC_MAX_BUILD_ID];
    uint8_t build_id_len;

    struct mapping_rec *maps;
    size_t nmaps, capmaps;

    struct umap stack_index; /* stack id -> stackdef index */
    struct stackdef *stacks;
    size_t nstacks, capstacks;
    uint64_t *frames;
    size_t nframes, capframes;

    struct umap site_index; /* stack id -> site index */
    struct site *sites;
    size_t nsites, capsites;

    struct slot *slots;
    size_t nslots;

    int ts_known;
    uint64_t first_ts, last_ts;
    struct timespec host_start;

    int snap_active, snap_dirty;
    uint64_t snap_pass, snap_lives;

    int have_drops;
    uint64_t drops[MSAMP_DROP_COUNT]; /* the latest DROPS record, by enum msamp_wire_drop */

    struct msamp_dec_stats dec_start; /* decoder counters when the session began */

    char *marks[DRAIN_MAX_MARKS];
    size_t nmarks;

    struct session_counts n;
};

struct session *session_new(int index, const struct msamp_dec_stats *dec_now);
void session_free(struct session *s);

/* 1 when rec (a SESSION record) starts a new session rather than repeating this one's header. */
int session_is_new(const struct session *s, const struct msamp_record *rec);
/* 1 when the session holds anything worth a profile. */
int session_has_data(const struct session *s);

void session_record(struct session *s, const struct msamp_record *rec);

/* The weight of a sample of size bytes under a mean interval (1 when interval <= 1). */
double session_weight(uint64_t size, uint64_t interval);

/* A stack's frames, or NULL when undefined (id 0 or never received). */
const uint64_t *session_stack(const struct session *s, uint64_t id, uint32_t *depth);

/* Samples the device reported lost or not tracked: ring records, live table full, stack table full
 * and reentrant allocations (not ring bytes, not truncated stacks, which are kept). */
uint64_t session_device_drops(const struct session *s);
/* The decoder's counters since the session began, given its counters now. */
struct msamp_dec_stats session_stream_losses(const struct session *s,
                                             const struct msamp_dec_stats *now);

#endif
