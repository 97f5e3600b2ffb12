/*
 * drain push's rows: a profile file read into what push stores of it (push_row.c), and a batch's
 * rollup rows summed by push (struct roll). push.c runs the statements.
 */
#ifndef DRAIN_FLEET_PUSH_ROW_H
#define DRAIN_FLEET_PUSH_ROW_H

#include <stddef.h>
#include <stdint.h>

#include "pprof/prof_model.h"
#include "util.h"

/* What push stores of a profile: its msamp_profile row's columns as text (the INSERT's
 * parameters), its sites' rows as JSON batches (rollup_json) and its leaks' as a JSON array. */
struct push_row {
    const char *device, *build, *session, *kind;
    char anon[96];                /* device when the profile names none */
    char t0[32], t1[32], fl[32];  /* its time range (ns since the epoch), its failures */
    const char *heap[4];          /* free, min_free, largest_free, total (NULL unknown) */
    char heapv[4][24];
    const char **cm, **vtn;       /* its comments, its sample types */
    char **lv;                    /* its labels K=V */
    size_t nlv;
    struct buf lab, vts, cms, tot, leaks; /* text arrays, the totals, the leaks */
    size_t nsites;
    struct buf bkeys;             /* the sites' stack and task as COPY binary's two fields */
    size_t *bkoff;
    int64_t *vals;                /* nvt a site */
    uint32_t *site_of;            /* each sample's site */
    struct buf raw;               /* the file */
    struct prof p;
    const char *path;
    char id[32], te[64], bucket[32]; /* once stored: its id, t_end, rollup bucket */
    int64_t te_us;                /* its t_end in COPY binary's timestamptz (us since 2000) */
    int stored;                   /* 1 stored, 0 there already */
};

/* Byte strings, each numbered in the order first added (keys_add). */
struct keys {
    struct buf b;
    size_t *off, n, cap;          /* key j at b.p + off[j] */
    struct umap idx;
};

/* A batch's rollup rows, summed by push (schema version 8): each row's key (rows: device, bucket
 * and its stack's h, as COPY binary's fields) and its sum of each of the batch's sample types
 * (types: their names, a 0 after each; stride sums a row, has says which it holds); the batch's
 * stacks (stacks: stack and task as COPY binary's fields, sid their number; h: each one's h, as
 * the server computed it) and sets of sample types (tsets: a text[] field, tid its number), sent
 * once a batch, not once a row. */
struct roll {
    struct keys rows, stacks, tsets;
    int64_t *h;
    struct buf types;
    size_t *toff, ntype, tcap, stride, cap;
    int64_t *sum;
    uint8_t *has;
};

/* Key (len bytes)'s number in k, added when new. */
size_t keys_add(struct keys *k, const uint8_t *key, size_t len);
void keys_free(struct keys *k);
/* Reads path into w (its bytes, its profile, its row's columns, its sites): 0, or -1 with err. */
int row_read(struct push_row *w, const char *path, char *err, size_t errlen);
void row_free(struct push_row *w);
/* A stored profile's sites' stacks into roll->stacks. */
void row_stacks(const struct push_row *w, struct roll *roll);
/* A stored profile's site rows (COPY binary of msamp_site, without the header: each site's stack
 * by its h, roll->h) into out; their values added to the batch's rollup rows (roll), or (direct
 * not NULL: the profile alone in its bucket in the batch, its types' names distinct) its sites'
 * rollup rows onto direct as roll_copy writes them. */
void row_copy(const struct push_row *w, struct buf *out, struct roll *roll, struct buf *direct);
void roll_free(struct roll *r);
/* The batch's summed rollup rows as COPY binary rows of msamp_rollup_in (device, bucket, h,
 * tid, vals: the sums of the types tid names, in its order; their sets into roll->tsets) onto
 * out (no header, no trailer): how many. */
size_t roll_copy(struct roll *r, struct buf *out);
/* Each key of k as a COPY binary row onto out: its number (int4), then the key (fields COPY
 * fields): the batch's stacks (msamp_stack_in: sid, stack, task), its sets of types
 * (msamp_types_in: tid, types). */
void keys_copy(const struct keys *k, int fields, struct buf *out);
/* How many types set tid names. */
size_t roll_tset_n(const struct roll *r, size_t tid);
/* x in decimal onto b. */
void push_put_i64(struct buf *b, int64_t x);
/* x's low bytes big-endian onto b (COPY's binary format). */
void push_put_be(struct buf *b, uint64_t x, int bytes);

#endif
