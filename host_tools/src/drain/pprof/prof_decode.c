/*
 * A pprof profile's protobuf decoded (pprof/prof_codec.h: prof_decode): the string table first,
 * then types, functions, mappings, locations and samples in dependency order, every index checked.
 * Split from pprof/prof_codec.c (the encoder and prof_validate), which it calls to end.
 */
#include "pprof/prof_codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- protobuf decoding ---- */

struct rd {
    const uint8_t *p, *end;
};

static int rd_varint_long(struct rd *r, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end)
            return -1;
        uint8_t c = *r->p++;
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* Inline, a byte without its continuation bit read at once: most of a profile's varints (field
 * keys, lengths, small values) are one byte. */
static inline int rd_varint(struct rd *r, uint64_t *v)
{
    if (r->p < r->end && !(*r->p & 0x80)) {
        *v = *r->p++;
        return 0;
    }
    return rd_varint_long(r, v);
}

/* One field: its number, wire type, integer value (types 0, 1, 5) or bytes (type 2). */
struct field {
    unsigned num, wt;
    uint64_t v;
    struct rd sub;
};

static int rd_field_any(struct rd *r, struct field *f)
{
    uint64_t key;
    if (rd_varint(r, &key) || key >> 3 == 0 || key >> 3 > UINT32_MAX)
        return -1;
    f->num = (unsigned)(key >> 3);
    f->wt = key & 7;
    switch (f->wt) {
    case 0:
        return rd_varint(r, &f->v);
    case 1:
    case 5: {
        size_t n = f->wt == 1 ? 8 : 4;
        if ((size_t)(r->end - r->p) < n)
            return -1;
        f->v = 0;
        for (size_t i = 0; i < n; i++)
            f->v |= (uint64_t)r->p[i] << (8 * i);
        r->p += n;
        return 0;
    }
    case 2: {
        uint64_t len;
        if (rd_varint(r, &len) || len > (uint64_t)(r->end - r->p))
            return -1;
        f->sub.p = r->p;
        f->sub.end = r->p + len;
        r->p += len;
        return 0;
    }
    default:
        return -1;
    }
}

/* rd_field, inline for a field of one-byte key and one-byte value or length (most of a profile's:
 * a sample's, a label's, a location's fields), the same result as rd_field_any's. */
static inline int rd_field(struct rd *r, struct field *f)
{
    const uint8_t *p = r->p;
    if (r->end - p >= 2 && p[0] >= 8 && !((p[0] | p[1]) & 0x80)) {
        if ((p[0] & 7) == 0) {
            f->num = p[0] >> 3, f->wt = 0, f->v = p[1];
            r->p = p + 2;
            return 0;
        }
        if ((p[0] & 7) == 2 && p[1] <= r->end - (p + 2)) {
            f->num = p[0] >> 3, f->wt = 2;
            f->sub.p = p + 2, f->sub.end = p + 2 + p[1];
            r->p = f->sub.end;
            return 0;
        }
    }
    return rd_field_any(r, f);
}

/* Appends the values of a repeated scalar field (packed or not) to a u64 array of at most max
 * values. */
static int rd_repeated(const struct field *f, uint64_t **arr, size_t *n, size_t *cap, size_t max)
{
    if (f->wt == 0) {
        if (*n >= max)
            return -1;
        GROW(*arr, *cap, *n + 1);
        (*arr)[(*n)++] = f->v;
        return 0;
    }
    if (f->wt != 2)
        return -1;
    struct rd r = f->sub;
    size_t room = (size_t)(r.end - r.p); /* at most one value a byte */
    if (room <= max && *n <= max - room) {
        /* No count can pass max: grown once, one-byte values read inline (a sample's values
         * and location ids, 2 x 10^5 samples a diff of two profiles of 10^5 sites). */
        GROW(*arr, *cap, *n + room);
        uint64_t *a = *arr;
        size_t k = *n;
        while (r.p < r.end) {
            if (!(*r.p & 0x80))
                a[k++] = *r.p++;
            else if (rd_varint_long(&r, &a[k++]))
                return -1;
        }
        *n = k;
        return 0;
    }
    while (r.p < r.end) {
        uint64_t v;
        if (rd_varint(&r, &v) || *n >= max)
            return -1;
        GROW(*arr, *cap, *n + 1);
        (*arr)[(*n)++] = v;
    }
    return 0;
}

struct dec {
    struct prof *p;
    int64_t *strmap;
    size_t nstrmap;
    struct umap funcid, mapid, locid;
    char *err;
    size_t errlen;
};

static int fail(struct dec *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err, d->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int map_str(struct dec *d, uint64_t i, int64_t *out)
{
    if (i >= d->nstrmap)
        return fail(d, "string index %llu out of range (%zu strings)", (unsigned long long)i,
                    d->nstrmap);
    *out = d->strmap[i];
    return 0;
}

static int dec_vt(struct dec *d, struct rd r, struct prof_vt *vt)
{
    struct field f;
    uint64_t type = 0, unit = 0;
    while (r.p < r.end) {
        if (rd_field(&r, &f))
            return fail(d, "malformed ValueType");
        if (f.num == 1 && f.wt == 0)
            type = f.v;
        else if (f.num == 2 && f.wt == 0)
            unit = f.v;
    }
    return map_str(d, type, &vt->type) || map_str(d, unit, &vt->unit) ? -1 : 0;
}

/* A function's or mapping's id: 0 when it is new and the table (of n) has room; else -1 (said). */
static int new_id(struct dec *d, const struct umap *ids, uint64_t id, size_t n, const char *what)
{
    if (id == 0 || umap_get(ids, id) != UINT32_MAX)
        return fail(d, "bad or duplicate %s id %llu", what, (unsigned long long)id);
    if (n >= PROF_MAX_ITEMS)
        return fail(d, "more than %u %ss", PROF_MAX_ITEMS, what);
    return 0;
}

static int dec_function(struct dec *d, struct rd r)
{
    struct field f;
    uint64_t id = 0, name = 0, sys = 0, file = 0, start = 0;
    while (r.p < r.end) {
        if (rd_field(&r, &f) || (f.num <= 5 && f.wt != 0))
            return fail(d, "malformed Function");
        switch (f.num) {
        case 1: id = f.v; break;
        case 2: name = f.v; break;
        case 3: sys = f.v; break;
        case 4: file = f.v; break;
        case 5: start = f.v; break;
        default: break;
        }
    }
    struct prof_function fn = {0, 0, 0, (int64_t)start};
    if (map_str(d, name, &fn.name) || map_str(d, sys, &fn.system_name) ||
        map_str(d, file, &fn.filename))
        return -1;
    if (new_id(d, &d->funcid, id, d->p->nfunction, "function"))
        return -1;
    umap_put(&d->funcid, id, (uint32_t)(prof_add_function(d->p, &fn) - 1));
    return 0;
}

static int dec_mapping(struct dec *d, struct rd r)
{
    struct field f;
    uint64_t id = 0, v[11] = {0};
    while (r.p < r.end) {
        if (rd_field(&r, &f) || (f.num <= 10 && f.wt != 0))
            return fail(d, "malformed Mapping");
        if (f.num == 1)
            id = f.v;
        else if (f.num <= 10)
            v[f.num] = f.v;
    }
    struct prof_mapping m = {.start = v[2], .limit = v[3], .offset = v[4],
                             .has_functions = v[7] != 0, .has_filenames = v[8] != 0,
                             .has_line_numbers = v[9] != 0, .has_inline_frames = v[10] != 0};
    if (map_str(d, v[5], &m.filename) || map_str(d, v[6], &m.build_id))
        return -1;
    if (new_id(d, &d->mapid, id, d->p->nmapping, "mapping"))
        return -1;
    umap_put(&d->mapid, id, (uint32_t)(prof_add_mapping(d->p, &m) - 1));
    return 0;
}

static int dec_location(struct dec *d, struct rd r, struct prof_line **lines, size_t *cap)
{
    struct field f, g;
    uint64_t id = 0, mapping = 0, addr = 0;
    size_t n = 0;
    while (r.p < r.end) {
        if (rd_field(&r, &f))
            return fail(d, "malformed Location");
        if (f.num == 4 && f.wt == 2) {
            struct prof_line ln = {0, 0, 0};
            uint64_t fid = 0;
            while (f.sub.p < f.sub.end) {
                if (rd_field(&f.sub, &g) || (g.num <= 3 && g.wt != 0))
                    return fail(d, "malformed Line");
                if (g.num == 1)
                    fid = g.v;
                else if (g.num == 2)
                    ln.line = (int64_t)g.v;
                else if (g.num == 3)
                    ln.column = (int64_t)g.v;
            }
            uint32_t fi = umap_get(&d->funcid, fid);
            if (fid == 0 || fi == UINT32_MAX)
                return fail(d, "line refers to unknown function %llu", (unsigned long long)fid);
            ln.function_id = (uint64_t)fi + 1;
            if (n >= PROF_MAX_DEPTH)
                return fail(d, "location with more than %u lines", PROF_MAX_DEPTH);
            GROW(*lines, *cap, n + 1);
            (*lines)[n++] = ln;
        } else if (f.num == 1 && f.wt == 0) {
            id = f.v;
        } else if (f.num == 2 && f.wt == 0) {
            mapping = f.v;
        } else if (f.num == 3 && f.wt == 0) {
            addr = f.v;
        } else if (f.num <= 5 && f.wt != 0) {
            return fail(d, "malformed Location");
        }
    }
    uint64_t mid = 0;
    if (mapping) {
        uint32_t mi = umap_get(&d->mapid, mapping);
        if (mi == UINT32_MAX)
            return fail(d, "location refers to unknown mapping %llu",
                        (unsigned long long)mapping);
        mid = (uint64_t)mi + 1;
    }
    if (id == 0 || umap_get(&d->locid, id) != UINT32_MAX)
        return fail(d, "bad or duplicate location id %llu", (unsigned long long)id);
    if (d->p->nlocation >= PROF_MAX_ITEMS || d->p->nlinepool + n > PROF_MAX_POOL)
        return fail(d, "more than %u locations or %u lines", PROF_MAX_ITEMS, PROF_MAX_POOL);
    umap_put(&d->locid, id, (uint32_t)(prof_add_location(d->p, mid, addr, *lines, (uint32_t)n, 1) - 1));
    return 0;
}

struct sample_scratch {
    uint64_t *locs, *vals;
    size_t nlocs, caplocs, nvals, capvals;
    struct prof_label *labels;
    size_t nlabels, caplabels;
};

static int dec_sample(struct dec *d, struct rd r, struct sample_scratch *s)
{
    struct field f, g;
    s->nlocs = s->nvals = s->nlabels = 0;
    while (r.p < r.end) {
        if (rd_field(&r, &f))
            return fail(d, "malformed Sample");
        if (f.num == 1) {
            if (rd_repeated(&f, &s->locs, &s->nlocs, &s->caplocs, PROF_MAX_DEPTH))
                return fail(d, "malformed Sample.location_id (or more than %u)", PROF_MAX_DEPTH);
        } else if (f.num == 2) {
            if (rd_repeated(&f, &s->vals, &s->nvals, &s->capvals, PROF_MAX_TYPES))
                return fail(d, "malformed Sample.value (or more than %u)", PROF_MAX_TYPES);
        } else if (f.num == 3 && f.wt == 2) {
            uint64_t v[5] = {0};
            while (f.sub.p < f.sub.end) {
                if (rd_field(&f.sub, &g) || (g.num <= 4 && g.wt != 0))
                    return fail(d, "malformed Label");
                if (g.num <= 4)
                    v[g.num] = g.v;
            }
            struct prof_label l = {0, 0, (int64_t)v[3], 0};
            if (map_str(d, v[1], &l.key) || map_str(d, v[2], &l.str) ||
                map_str(d, v[4], &l.num_unit))
                return -1;
            if (s->nlabels >= PROF_MAX_DEPTH)
                return fail(d, "sample with more than %u labels", PROF_MAX_DEPTH);
            GROW(s->labels, s->caplabels, s->nlabels + 1);
            s->labels[s->nlabels++] = l;
        }
    }
    if (s->nvals != d->p->nvt)
        return fail(d, "sample has %zu values, profile has %zu sample types", s->nvals, d->p->nvt);
    for (size_t i = 0; i < s->nlocs; i++) {
        uint32_t li = umap_get(&d->locid, s->locs[i]);
        if (li == UINT32_MAX)
            return fail(d, "sample refers to unknown location %llu",
                        (unsigned long long)s->locs[i]);
        s->locs[i] = (uint64_t)li + 1;
    }
    if (d->p->nsample >= PROF_MAX_ITEMS || d->p->nlocpool + s->nlocs > PROF_MAX_POOL ||
        d->p->nvalpool + s->nvals > PROF_MAX_POOL || d->p->nlabelpool + s->nlabels > PROF_MAX_POOL)
        return fail(d, "more than %u samples, or %u location references, values or labels",
                    PROF_MAX_ITEMS, PROF_MAX_POOL);
    prof_add_sample(d->p, s->locs, (uint32_t)s->nlocs, (const int64_t *)s->vals, s->labels,
                    (uint32_t)s->nlabels, 1);
    return 0;
}

/* Pass 1: the string table, which every other message refers to. */
static int dec_strings(struct dec *d, const uint8_t *data, size_t len)
{
    struct field f;
    size_t capstrmap = 0;
    for (struct rd r = {data, data + len}; r.p < r.end;) {
        if (rd_field(&r, &f))
            return fail(d, "not a profile (malformed protobuf)");
        if (f.num != 6)
            continue;
        if (f.wt != 2)
            return fail(d, "malformed string_table");
        if (d->nstrmap >= PROF_MAX_STRINGS)
            return fail(d, "more than %u strings", PROF_MAX_STRINGS);
        GROW(d->strmap, capstrmap, d->nstrmap + 1);
        d->strmap[d->nstrmap++] =
            prof_str(d->p, (const char *)f.sub.p, (size_t)(f.sub.end - f.sub.p));
    }
    if (d->nstrmap == 0 || d->p->strlen[d->strmap[0]] != 0)
        return fail(d, "not a profile (string_table[0] must be empty)");
    return 0;
}

/* The profile's scalar fields 7 to 14 (but 11, 13): drop_frames, keep_frames, time_nanos,
 * duration_nanos, period, default_sample_type. */
static int dec_scalar(struct dec *d, const struct field *f)
{
    struct prof *p = d->p;
    if (f->wt != 0)
        return fail(d, "malformed field %u", f->num);
    if (f->num == 14)
        return map_str(d, f->v, &p->default_sample_type);
    int64_t *dst[] = {&p->drop_frames, &p->keep_frames, &p->time_nanos, &p->duration_nanos, NULL,
                      &p->period};
    if (f->num == 7 || f->num == 8)
        return map_str(d, f->v, dst[f->num - 7]);
    *dst[f->num - 7] = (int64_t)f->v;
    return 0;
}

int prof_decode(struct prof *p, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    struct dec d = {.p = p, .err = err, .errlen = errlen};
    struct field f;
    struct rd r;
    int rc = -1;
    struct prof_line *lines = NULL;
    size_t caplines = 0;
    struct sample_scratch s = {0};
    uint64_t *comments = NULL;
    size_t ncomments = 0, capcomments = 0;

    /* Where pass 0 found the functions, mappings, locations and samples (fields 5, 3, 4, 2), in
     * the file's order, for passes 1 to 4 to read them without skipping every other field; a
     * file of 4 GB or more is scanned whole at each pass. */
    uint32_t *at[5] = {NULL};
    size_t nat[5] = {0}, capat[5] = {0};
    static const int pass_of[6] = {0, 0, 4, 2, 3, 1}; /* field 2..5: its pass */
    int indexed = len <= UINT32_MAX;

    if (dec_strings(&d, data, len))
        goto out;
    /* Pass 2, in dependency order: types, functions, mappings, locations, samples, scalars. */
    for (int pass = 0; pass < 5; pass++) {
        if (pass == 1 && p->nvt == 0) {
            /* Before any sample is read: a profile's samples are nothing without their types. */
            fail(&d, "no sample types (a profile needs at least one)");
            goto out;
        }
        int scan = pass == 0 || !indexed;
        r = (struct rd){data, data + len};
        for (size_t next = 0; scan ? r.p < r.end : next < nat[pass];) {
            if (!scan)
                r.p = data + at[pass][next++];
            size_t off = (size_t)(r.p - data);
            rd_field(&r, &f);
            if (pass == 0 && indexed && f.num >= 2 && f.num <= 5 && f.wt == 2) {
                int k = pass_of[f.num];
                GROW(at[k], capat[k], nat[k] + 1);
                at[k][nat[k]++] = (uint32_t)off;
            }
            int e = 0;
            if (pass == 0 && f.num == 1 && f.wt == 2) {
                struct prof_vt vt;
                e = p->nvt >= PROF_MAX_TYPES ? fail(&d, "more than %u sample types", PROF_MAX_TYPES)
                                             : dec_vt(&d, f.sub, &vt);
                if (!e)
                    prof_append_vt(p, vt);
            } else if (pass == 0 && f.num == 11 && f.wt == 2) {
                e = dec_vt(&d, f.sub, &p->period_type);
            } else if (pass == 0 && f.num == 13) {
                e = rd_repeated(&f, &comments, &ncomments, &capcomments, PROF_MAX_STRINGS)
                        ? fail(&d, "malformed comment")
                        : 0;
            } else if (pass == 0 && f.num >= 7 && f.num <= 14 && f.num != 11 && f.num != 13) {
                e = dec_scalar(&d, &f);
            } else if (pass == 1 && f.num == 5 && f.wt == 2) {
                e = dec_function(&d, f.sub);
            } else if (pass == 2 && f.num == 3 && f.wt == 2) {
                e = dec_mapping(&d, f.sub);
            } else if (pass == 3 && f.num == 4 && f.wt == 2) {
                e = dec_location(&d, f.sub, &lines, &caplines);
            } else if (pass == 4 && f.num == 2 && f.wt == 2) {
                e = dec_sample(&d, f.sub, &s);
            } else if (f.num >= 1 && f.num <= 5 && f.wt != 2) {
                e = fail(&d, "malformed field %u", f.num);
            }
            if (e)
                goto out;
        }
    }
    for (size_t i = 0; i < ncomments; i++) {
        int64_t c = 0;
        if (map_str(&d, comments[i], &c))
            goto out;
        prof_append_comment(p, c);
    }
    rc = prof_validate(p, err, errlen);
out:
    free(d.strmap);
    umap_free(&d.funcid);
    umap_free(&d.mapid);
    umap_free(&d.locid);
    free(lines);
    free(s.locs);
    free(s.vals);
    free(s.labels);
    free(comments);
    for (int k = 0; k < 5; k++)
        free(at[k]);
    return rc;
}
