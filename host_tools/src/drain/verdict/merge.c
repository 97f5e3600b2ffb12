#include "verdict/merge.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pprof/prof_codec.h"
#include "pprof/prof_file.h"
#include "pprof/profile.h"
#include "verdict/unseen.h"

static int64_t tr_str(struct prof *dst, const struct prof *src, int64_t i)
{
    return prof_str(dst, src->str[i], src->strlen[i]);
}

static int same_str(const struct prof *a, int64_t i, const struct prof *b, int64_t j)
{
    return a->strlen[i] == b->strlen[j] && memcmp(a->str[i], b->str[j], a->strlen[i]) == 0;
}

static int same_types(const struct prof *a, const struct prof *b)
{
    if (a->nvt != b->nvt)
        return 0;
    for (size_t i = 0; i < a->nvt; i++) {
        if (!same_str(a, a->vt[i].type, b, b->vt[i].type) ||
            !same_str(a, a->vt[i].unit, b, b->vt[i].unit))
            return 0;
    }
    return 1;
}

/* "inuse_space/bytes, alloc_space/bytes" (at most n bytes) for an error message. */
static void types_text(const struct prof *p, char *out, size_t n)
{
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; i < p->nvt && len + 1 < n; i++) {
        int w = snprintf(out + len, n - len, "%s%.*s/%.*s", i ? ", " : "",
                         (int)(p->strlen[p->vt[i].type] > 64 ? 64 : p->strlen[p->vt[i].type]),
                         p->str[p->vt[i].type],
                         (int)(p->strlen[p->vt[i].unit] > 64 ? 64 : p->strlen[p->vt[i].unit]),
                         p->str[p->vt[i].unit]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

struct mapkey {
    const struct prof *p;
    const struct prof_mapping *m;
};

/* Mappings are one when they map the same bytes of the same file (size, file offset, file name
 * and build-id), wherever the process had them (ASLR), as pprof's merge keys them: the locations
 * of the later ones are moved into the first's addresses (merge_one), so one library's code in
 * several processes is one location. */
static int map_eq(const void *ctx, uint32_t i)
{
    const struct mapkey *k = ctx;
    const struct prof_mapping *o = &k->p->mapping[i], *m = k->m;
    return o->limit - o->start == m->limit - m->start && o->offset == m->offset &&
           o->filename == m->filename && o->build_id == m->build_id;
}

/* The merged mapping of src's mapping id, and *shift: what its addresses move by. */
static uint64_t merge_mapping(struct merger *mg, const struct prof *src, uint64_t id,
                              uint64_t *shift)
{
    struct prof *dst = &mg->out;
    struct prof_mapping m = src->mapping[id - 1];
    m.filename = tr_str(dst, src, m.filename);
    m.build_id = tr_str(dst, src, m.build_id);
    uint64_t h = hash_u64((m.limit - m.start) ^ hash_u64(m.offset)) ^
                 hash_u64((uint64_t)m.filename << 32 ^ (uint64_t)m.build_id);
    struct mapkey k = {dst, &m};
    uint32_t i = iset_find(&mg->mapset, h, map_eq, &k);
    *shift = 0;
    if (i != UINT32_MAX) {
        *shift = dst->mapping[i].start - m.start;
        return (uint64_t)i + 1;
    }
    uint64_t nid = prof_add_mapping(dst, &m);
    iset_add(&mg->mapset, h, (uint32_t)(nid - 1));
    return nid;
}

/* Samples a and b of p have the same stack (their labels, lifetime and age among them, aside). */
static int same_stack(const struct prof *p, uint32_t a, uint32_t b)
{
    const struct prof_sample *x = &p->sample[a], *y = &p->sample[b];
    return a == b || (x->nloc == y->nloc && memcmp(&p->locpool[x->loc_off], &p->locpool[y->loc_off],
                                                   x->nloc * sizeof(uint64_t)) == 0);
}

/* The growth verdicts of src (docs/VERDICTS.md "Leaks by growth", "The peak"): its peak adds to
 * the sum of the inputs' peaks (profiles of other devices or runs: the peak of their sum is at
 * most this); its leaks are kept at their merged sample, a site (a stack) leaking in several inputs with
 * the sum of their slopes (the fleet's rate) and the earliest since; its steps alike (their bytes
 * summed, from the earliest to the latest bin). */
static void merge_verdicts(struct merger *mg, const struct prof *src, const uint32_t *smap)
{
    struct growth_peak pk;
    if (growth_peak_from_prof(src, &pk)) {
        if (mg->npeak++ == 0) {
            mg->peak = pk;
        } else {
            mg->peak.inuse_bytes.est += pk.inuse_bytes.est;
            mg->peak.inuse_bytes.var += pk.inuse_bytes.var;
            mg->peak.known &= pk.known;
        }
    }
    size_t cap = src->ncomment + 1;
    struct growth_leak *lk = xmalloc(cap * sizeof(*lk));
    size_t n = growth_leaks_from_prof(src, lk, cap);
    for (size_t i = 0; i < n; i++) {
        uint32_t d = smap[lk[i].sample];
        size_t j = 0;
        while (j < mg->nleaks && !same_stack(&mg->out, mg->leaks[j].sample, d))
            j++;
        if (j == mg->nleaks) {
            GROW(mg->leaks, mg->capleaks, mg->nleaks + 1);
            mg->leaks[mg->nleaks++] = (struct growth_leak){d, {0, 0}, lk[i].since_s};
        }
        growth_leak_fold(&mg->leaks[j], &lk[i]);
    }
    free(lk);
    double r;
    unseen_from_prof(src, &r); /* NAN: none */
    if (mg->nmarks == 0 || isnan(r) || r > mg->unseen_interval)
        mg->unseen_interval = mg->nmarks && isnan(mg->unseen_interval) ? NAN : r;
    struct growth_step *st = xmalloc(cap * sizeof(*st));
    n = growth_steps_from_prof(src, st, cap);
    for (size_t i = 0; i < n; i++) {
        uint32_t d = smap[st[i].sample];
        size_t j = 0;
        while (j < mg->nsteps && !same_stack(&mg->out, mg->steps[j].sample, d))
            j++;
        if (j == mg->nsteps) {
            GROW(mg->steps, mg->capsteps, mg->nsteps + 1);
            mg->steps[mg->nsteps++] = (struct growth_step){d, {0, 0}, st[i].from_s, st[i].to_s};
        }
        growth_step_fold(&mg->steps[j], &st[i]);
    }
    free(st);
    ended_merge_add(&mg->ended, src);
    struct prof_marks m;
    int known = marks_from_prof(src, &m);
    if (mg->nmarks++ == 0) {
        mg->marks = m;
    } else {
        mg->marks.known &= known;
        mg->marks.complete &= m.complete;
        mg->marks.refused += m.refused;
        mg->marks.unattributed += m.unattributed;
        mg->marks.lost += m.lost;
        if (m.note[0] && strcmp(m.note, mg->marks.note) != 0)
            snprintf(mg->marks.note, sizeof(mg->marks.note),
                     "the merged profiles' marks: %llu samples refused, %llu unattributed, %llu "
                     "records lost",
                     (unsigned long long)mg->marks.refused,
                     (unsigned long long)mg->marks.unattributed,
                     (unsigned long long)mg->marks.lost);
    }
}

static void merge_one(struct merger *mg, const struct prof *src)
{
    struct prof *dst = &mg->out;
    uint64_t *mapid = xcalloc(src->nmapping + 1, sizeof(uint64_t));
    uint64_t *shift = xcalloc(src->nmapping + 1, sizeof(uint64_t));
    uint64_t *funcid = xcalloc(src->nfunction + 1, sizeof(uint64_t));
    uint64_t *locid = xcalloc(src->nlocation + 1, sizeof(uint64_t));
    for (size_t i = 0; i < src->nmapping; i++)
        mapid[i + 1] = merge_mapping(mg, src, i + 1, &shift[i + 1]);
    for (size_t i = 0; i < src->nfunction; i++) {
        struct prof_function f = src->function[i];
        f.name = tr_str(dst, src, f.name);
        f.system_name = tr_str(dst, src, f.system_name);
        f.filename = tr_str(dst, src, f.filename);
        funcid[i + 1] = prof_add_function(dst, &f);
    }
    struct prof_line *lines = NULL;
    size_t caplines = 0;
    for (size_t i = 0; i < src->nlocation; i++) {
        const struct prof_location *l = &src->location[i];
        GROW(lines, caplines, l->nline + 1);
        for (uint32_t j = 0; j < l->nline; j++) {
            lines[j] = src->linepool[l->line_off + j];
            lines[j].function_id = funcid[lines[j].function_id];
        }
        locid[i + 1] =
            prof_add_location(dst, mapid[l->mapping_id], l->address + shift[l->mapping_id],
                              lines, l->nline, 1);
    }
    uint64_t *locs = NULL;
    size_t caplocs = 0;
    struct prof_label *labels = NULL;
    size_t caplabels = 0;
    uint32_t *smap = xcalloc(src->nsample + 1, sizeof(uint32_t));
    for (size_t i = 0; i < src->nsample; i++) {
        const struct prof_sample *s = &src->sample[i];
        GROW(locs, caplocs, s->nloc + 1);
        GROW(labels, caplabels, s->nlabel + 1);
        for (uint32_t j = 0; j < s->nloc; j++)
            locs[j] = locid[src->locpool[s->loc_off + j]];
        for (uint32_t j = 0; j < s->nlabel; j++) {
            struct prof_label l = src->labelpool[s->label_off + j];
            l.key = tr_str(dst, src, l.key);
            l.str = tr_str(dst, src, l.str);
            l.num_unit = tr_str(dst, src, l.num_unit);
            labels[j] = l;
        }
        smap[i] =
            prof_add_sample(dst, locs, s->nloc, &src->valpool[s->val_off], labels, s->nlabel, 1);
    }
    merge_verdicts(mg, src, smap);
    free(smap);
    for (size_t i = 0; i < src->ncomment; i++) {
        int64_t sc = src->comment[i];
        if (src->strlen[sc] >= strlen(GROWTH_COMMENT) &&
            memcmp(src->str[sc], GROWTH_COMMENT, strlen(GROWTH_COMMENT)) == 0)
            continue; /* the verdicts: merged by merge_verdicts */
        int64_t c = tr_str(dst, src, src->comment[i]);
        size_t old = mg->cap_seen;
        GROW(mg->comment_seen, mg->cap_seen, (size_t)c + 1);
        memset(mg->comment_seen + old, 0, mg->cap_seen - old);
        if (!mg->comment_seen[c]) {
            mg->comment_seen[c] = 1;
            prof_append_comment(dst, c);
        }
    }
    free(lines);
    free(locs);
    free(labels);
    free(mapid);
    free(shift);
    free(funcid);
    free(locid);
}

void merge_init(struct merger *mg)
{
    memset(mg, 0, sizeof(*mg));
    prof_init(&mg->out);
}

void merge_free(struct merger *mg)
{
    prof_free(&mg->out);
    iset_free(&mg->mapset);
    free(mg->comment_seen);
    free(mg->leaks);
    free(mg->steps);
    memset(mg, 0, sizeof(*mg));
}

int merge_add(struct merger *mg, const struct prof *in, char *err, size_t errlen)
{
    struct prof *out = &mg->out;
    char why[256];
    /* prof_decode validates what it reads; a profile built otherwise is checked here. */
    if (prof_validate(in, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "invalid profile: %s", why);
        return -1;
    }
    if (mg->n == 0) {
        for (size_t k = 0; k < in->nvt; k++)
            prof_append_vt(out, (struct prof_vt){tr_str(out, in, in->vt[k].type),
                                                 tr_str(out, in, in->vt[k].unit)});
        out->period_type = (struct prof_vt){tr_str(out, in, in->period_type.type),
                                            tr_str(out, in, in->period_type.unit)};
        out->period = in->period;
        out->default_sample_type = tr_str(out, in, in->default_sample_type);
        out->drop_frames = tr_str(out, in, in->drop_frames);
        out->keep_frames = tr_str(out, in, in->keep_frames);
    } else if (!same_types(out, in)) {
        char a[200], b[200];
        types_text(out, a, sizeof(a));
        types_text(in, b, sizeof(b));
        snprintf(err, errlen, "sample types differ from the first profile's (%s; the first has %s)",
                 b, a);
        return -1;
    }
    if (in->time_nanos && (!mg->start || in->time_nanos < mg->start))
        mg->start = in->time_nanos;
    int64_t in_end;
    if (__builtin_add_overflow(in->time_nanos, in->duration_nanos, &in_end))
        in_end = INT64_MAX;
    if (in_end > mg->end)
        mg->end = in_end;
    merge_one(mg, in);
    mg->n++;
    return 0;
}

void merge_finish(struct merger *mg)
{
    struct prof *out = &mg->out;
    out->time_nanos = mg->start;
    if (mg->end <= mg->start || __builtin_sub_overflow(mg->end, mg->start, &out->duration_nanos))
        out->duration_nanos = 0;
    char c[128];
    snprintf(c, sizeof(c), "msamp drain %s: merged %d profiles", DRAIN_VERSION, mg->n);
    prof_comment(out, c);
    if (mg->npeak > 1) {
        mg->peak.at_s = -1;
        snprintf(mg->peak.method, sizeof(mg->peak.method), "sum of %d profiles' peaks", mg->npeak);
        snprintf(mg->peak.note, sizeof(mg->peak.note),
                 "the inputs' peaks added: at most this when they run at once");
    }
    growth_write(out, mg->npeak ? &mg->peak : NULL, mg->leaks, mg->nleaks);
    growth_write_steps(out, mg->steps, mg->nsteps);
    marks_write(out, &mg->marks);
    if (mg->n && !isnan(mg->unseen_interval))
        unseen_write(out, mg->unseen_interval);
    ended_merge_write(&mg->ended, out);
}

/* A profile with variances but without the refused samples' types (a drain before them wrote
 * it) given those types, its values 0 (docs/VERDICTS.md "In the profile"): 0, or -1 when its
 * values would be too many. */
static int pad_refused(struct prof *p)
{
    if (p->nvt != V_VARS || !prof_has_variances(p) || p->nsample * V_ALL > PROF_MAX_POOL)
        return -1;
    int64_t *v = xcalloc(p->nsample * V_ALL + 1, sizeof(*v));
    for (size_t i = 0; i < p->nsample; i++) {
        memcpy(&v[i * V_ALL], &p->valpool[p->sample[i].val_off], V_VARS * sizeof(*v));
        p->sample[i].val_off = (uint32_t)(i * V_ALL);
    }
    free(p->valpool);
    p->valpool = v;
    p->nvalpool = p->nsample * V_ALL;
    p->capvalpool = p->nvalpool + 1;
    prof_add_type(p, "inuse_refused_objects", "count");
    prof_add_type(p, "inuse_refused_space", "bytes");
    prof_add_type(p, "refused_samples", "count");
    return 0;
}

int drain_merge(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "--help") == 0) {
        fprintf(argc < 3 ? stderr : stdout,
                "usage: drain merge OUT.pb.gz IN.pb.gz...\n"
                "Merges pprof profiles with the same sample types (runs, devices, sessions) into "
                "one.\n");
        return argc < 3 ? 2 : 0;
    }
    const char *outpath = argv[1];
    struct merger mg;
    merge_init(&mg);
    char err[1024];
    int nin = argc - 2;
    struct prof *in = xcalloc((size_t)nin, sizeof(*in));
    int rc = 0, read = 0;
    for (; read < nin && rc == 0; read++) {
        if (prof_read_file(&in[read], argv[read + 2], err, sizeof(err)) != 0) {
            fprintf(stderr, "drain merge: %s\n", err);
            rc = 1;
        }
    }
    /* Profiles an older drain wrote have no variances (docs/VERDICTS.md): merged with ones that
     * have, the merge keeps the six standard types alone, its variance unknown. */
    size_t with = 0, without = 0;
    for (int i = 0; i < nin && rc == 0; i++) {
        if (prof_has_variances(&in[i]))
            with++;
        else if (in[i].nvt == V_COUNT && prof_std_types(&in[i]))
            without++;
    }
    /* Profiles of a drain before the refused samples' types (docs/VERDICTS.md "Marks"): merged
     * with ones that have them, they are given them, their refused samples 0 (that drain's
     * sites' refusals were not told apart; its session marks still count them). */
    size_t ref = 0, unref = 0;
    for (int i = 0; i < nin && rc == 0; i++) {
        if (prof_has_refused(&in[i]))
            ref++;
        else if (in[i].nvt == V_VARS && prof_has_variances(&in[i]))
            unref++;
    }
    if (rc == 0 && ref && unref) {
        int padded = 1;
        for (int i = 0; i < nin && padded; i++)
            if (in[i].nvt == V_VARS && prof_has_variances(&in[i]) && pad_refused(&in[i]) != 0)
                padded = 0;
        for (int i = 0; i < nin && !padded; i++) /* too big to pad: the types they share */
            if (prof_has_variances(&in[i]))
                in[i].nvt = V_VARS;
        fprintf(stderr, "drain merge: note: %zu of the profiles carry no refused samples' types (an "
                        "older drain wrote them): %s\n", unref,
                padded ? "their sites' refused samples count as 0"
                       : "the merge keeps the variances' types, its sites' refused samples unknown");
    }
    if (rc == 0 && with && without) {
        fprintf(stderr, "drain merge: note: %zu of the profiles carry no variances (an older drain "
                        "wrote them): the merge keeps the six standard sample types, its "
                        "intervals unknown\n", without);
        for (int i = 0; i < nin; i++)
            if (prof_std_types(&in[i]))
                in[i].nvt = V_COUNT;
    }
    for (int i = 0; i < nin && rc == 0; i++) {
        if (merge_add(&mg, &in[i], err, sizeof(err)) != 0) {
            fprintf(stderr, "drain merge: %s: %s\n", argv[i + 2], err);
            rc = 1;
        }
    }
    for (int i = 0; i < read; i++)
        prof_free(&in[i]);
    free(in);
    if (rc != 0) {
        merge_free(&mg);
        return 1;
    }
    merge_finish(&mg);
    struct ended en; /* the inputs' endings, as the merge says them (verdict/ended.h) */
    ended_from_prof(&mg.out, &en);
    if (en.known && strcmp(en.how, "mixed") == 0) {
        char list[64] = "";
        ended_list(&en, list, sizeof(list));
        fprintf(stderr, "drain merge: note: the profiles' sessions ended differently (%s): the "
                        "merge says \"ended\": \"mixed\"\n", list);
    }
    if (prof_write_file(&mg.out, outpath, err, sizeof(err)) != 0) {
        fprintf(stderr, "drain merge: %s\n", err);
        rc = 1;
    }
    merge_free(&mg);
    return rc;
}
