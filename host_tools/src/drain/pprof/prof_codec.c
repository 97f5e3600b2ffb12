#include "pprof/prof_codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- validation ---- */

static int vfail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static int str_ok(const struct prof *p, int64_t i)
{
    return i >= 0 && (uint64_t)i < p->nstr;
}

/* A string index field (named `what` in the message) must be in the string table. */
#define STR_CHECK(p, idx, what)                                                                   \
    do {                                                                                          \
        if (!str_ok(p, idx))                                                                      \
            return vfail(err, errlen, "%s: string index %lld out of range (%zu strings)", what,   \
                         (long long)(idx), (p)->nstr);                                            \
    } while (0)

int prof_validate(const struct prof *p, char *err, size_t errlen)
{
    if (p->nstr == 0 || p->strlen[0] != 0)
        return vfail(err, errlen, "string_table[0] must be empty");
    if (p->nstr > PROF_MAX_STRINGS)
        return vfail(err, errlen, "too many strings (%zu, at most %u)", p->nstr, PROF_MAX_STRINGS);
    if (p->nvt == 0)
        return vfail(err, errlen, "no sample types");
    if (p->nvt > PROF_MAX_TYPES)
        return vfail(err, errlen, "too many sample types (%zu, at most %u)", p->nvt,
                     PROF_MAX_TYPES);
    if (p->nsample > PROF_MAX_ITEMS || p->nlocation > PROF_MAX_ITEMS ||
        p->nfunction > PROF_MAX_ITEMS || p->nmapping > PROF_MAX_ITEMS)
        return vfail(err, errlen,
                     "too many samples, locations, functions or mappings (%zu, %zu, %zu, %zu; "
                     "at most %u each)",
                     p->nsample, p->nlocation, p->nfunction, p->nmapping, PROF_MAX_ITEMS);
    if (p->nlocpool + p->enc_locs > PROF_MAX_POOL || p->nvalpool + p->enc_vals > PROF_MAX_POOL ||
        p->nlinepool > PROF_MAX_POOL || p->nlabelpool > PROF_MAX_POOL)
        return vfail(err, errlen, "too large (more than %u location references, values, lines "
                                  "or labels)", PROF_MAX_POOL);
    for (size_t i = 0; i < p->nvt; i++) {
        STR_CHECK(p, p->vt[i].type, "sample type");
        STR_CHECK(p, p->vt[i].unit, "sample type unit");
    }
    STR_CHECK(p, p->period_type.type, "period type");
    STR_CHECK(p, p->period_type.unit, "period type unit");
    STR_CHECK(p, p->default_sample_type, "default sample type");
    STR_CHECK(p, p->drop_frames, "drop_frames");
    STR_CHECK(p, p->keep_frames, "keep_frames");
    for (size_t i = 0; i < p->ncomment; i++)
        STR_CHECK(p, p->comment[i], "comment");
    for (size_t i = 0; i < p->nmapping; i++) {
        STR_CHECK(p, p->mapping[i].filename, "mapping file name");
        STR_CHECK(p, p->mapping[i].build_id, "mapping build id");
    }
    for (size_t i = 0; i < p->nfunction; i++) {
        STR_CHECK(p, p->function[i].name, "function name");
        STR_CHECK(p, p->function[i].system_name, "function system name");
        STR_CHECK(p, p->function[i].filename, "function file name");
    }
    for (size_t i = 0; i < p->nlocation; i++) {
        const struct prof_location *l = &p->location[i];
        if (l->mapping_id > p->nmapping)
            return vfail(err, errlen, "location %zu refers to unknown mapping %llu", i + 1,
                         (unsigned long long)l->mapping_id);
        if (l->nline > PROF_MAX_DEPTH || (size_t)l->line_off + l->nline > p->nlinepool)
            return vfail(err, errlen, "location %zu: bad lines", i + 1);
        for (uint32_t j = 0; j < l->nline; j++) {
            uint64_t f = p->linepool[l->line_off + j].function_id;
            if (f == 0 || f > p->nfunction)
                return vfail(err, errlen, "location %zu refers to unknown function %llu", i + 1,
                             (unsigned long long)f);
        }
    }
    for (size_t i = 0; i < p->nsample; i++) {
        const struct prof_sample *s = &p->sample[i];
        if (s->nloc == PROF_SAMPLE_ENCODED) { /* made by prof_add_sample from valid ids */
            if ((size_t)s->loc_off + s->val_off > p->enc.len)
                return vfail(err, errlen, "sample %zu: bad encoding", i + 1);
            continue;
        }
        if (s->nloc > PROF_MAX_DEPTH || (size_t)s->loc_off + s->nloc > p->nlocpool)
            return vfail(err, errlen, "sample %zu: bad locations", i + 1);
        if ((size_t)s->val_off + p->nvt > p->nvalpool)
            return vfail(err, errlen, "sample %zu has fewer values than the %zu sample types",
                         i + 1, p->nvt);
        if (s->nlabel > PROF_MAX_DEPTH || (size_t)s->label_off + s->nlabel > p->nlabelpool)
            return vfail(err, errlen, "sample %zu: bad labels", i + 1);
        for (uint32_t j = 0; j < s->nloc; j++) {
            uint64_t l = p->locpool[s->loc_off + j];
            if (l == 0 || l > p->nlocation)
                return vfail(err, errlen, "sample %zu refers to unknown location %llu", i + 1,
                             (unsigned long long)l);
        }
        for (uint32_t j = 0; j < s->nlabel; j++) {
            const struct prof_label *lb = &p->labelpool[s->label_off + j];
            STR_CHECK(p, lb->key, "label key");
            STR_CHECK(p, lb->str, "label value");
            STR_CHECK(p, lb->num_unit, "label unit");
        }
    }
    return 0;
}

/* ---- protobuf encoding ---- */

static void put_key(struct buf *b, unsigned field, unsigned wt)
{
    buf_varint(b, (uint64_t)field << 3 | wt);
}

static void put_int(struct buf *b, unsigned field, uint64_t v)
{
    if (v == 0)
        return;
    put_key(b, field, 0);
    buf_varint(b, v);
}

/* Fields 1..n of a message, from v (zeros left out, as put_int does). */
static void put_ints(struct buf *b, const uint64_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        put_int(b, i + 1, v[i]);
}

static void put_bytes(struct buf *b, unsigned field, const void *data, size_t len)
{
    put_key(b, field, 2);
    buf_varint(b, len);
    buf_put(b, data, len);
}

static void put_packed(struct buf *b, struct buf *tmp, unsigned field, const uint64_t *v,
                       size_t n, size_t stride)
{
    if (n == 0)
        return;
    tmp->len = 0;
    for (size_t i = 0; i < n; i++)
        buf_varint(tmp, v[i * stride]);
    put_bytes(b, field, tmp->p, tmp->len);
}

static void put_vt(struct buf *b, struct buf *tmp, unsigned field, const struct prof_vt *vt)
{
    tmp->len = 0;
    put_int(tmp, 1, (uint64_t)vt->type);
    put_int(tmp, 2, (uint64_t)vt->unit);
    put_bytes(b, field, tmp->p, tmp->len);
}

/* Hands out to the sink once it holds a chunk (last: whatever it holds). */
#define SINK(last)                                                                                 \
    do {                                                                                           \
        if (sink && (out->len >= PROF_ENCODE_CHUNK || ((last) && out->len)) && sink(ctx, out)) { \
            rc = -1;                                                                               \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* The bytes of v as a varint. */
static inline size_t varint_len(uint64_t v)
{
    return v < 0x80 ? 1 : (size_t)(64 - __builtin_clzll(v) + 6) / 7;
}

static inline uint8_t *raw_varint(uint8_t *o, uint64_t v)
{
    while (v >= 0x80) {
        *o++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *o++ = (uint8_t)v;
    return o;
}

/* A length-delimited field whose tag is at start and whose payload was written from start + 2 to
 * end, a one-byte length guessed: the length written, the payload moved when it takes more bytes.
 * Returns the field's end. */
static inline uint8_t *fix_len(uint8_t *start, uint8_t *end)
{
    size_t n = (size_t)(end - (start + 2));
    if (n < 0x80) {
        start[1] = (uint8_t)n;
        return end;
    }
    size_t h = varint_len(n);
    memmove(start + 1 + h, start + 2, n);
    raw_varint(start + 1, n);
    return start + 1 + h + n;
}

/* A varint field of number below 16 (one byte of tag), left out when v is 0 (as put_int). */
static inline uint8_t *raw_int(uint8_t *o, unsigned field, uint64_t v)
{
    if (v == 0)
        return o;
    *o++ = (uint8_t)(field << 3);
    return raw_varint(o, v);
}

/* A packed repeated varint field (none when n is 0). */
static uint8_t *raw_packed(uint8_t *o, unsigned field, const uint64_t *v, size_t n)
{
    if (n == 0)
        return o;
    uint8_t *start = o;
    *o = (uint8_t)(field << 3 | 2);
    o += 2;
    for (size_t i = 0; i < n; i++)
        o = raw_varint(o, v[i]);
    return fix_len(start, o);
}

/* A sample's Profile.sample field into out in one pass (the same bytes as put_packed, put_int and
 * put_bytes would make: locations, values, labels). Pools are only indexed when the sample has
 * entries there: an empty pool is NULL. */
static void put_sample(struct buf *out, const uint64_t *locs, uint32_t nloc, const int64_t *vals,
                       size_t nvt, const struct prof_label *labels, uint32_t nlabel)
{
    /* At most: 11 bytes of tag and length a field, 10 a varint. */
    GROW(out->p, out->cap, out->len + 11 + (11 + 10 * (size_t)nloc) + (11 + 10 * nvt) +
                               (size_t)nlabel * (2 + 4 * 11));
    uint8_t *start = out->p + out->len, *o = start + 2;
    *start = 2 << 3 | 2;
    o = raw_packed(o, 1, locs, nloc);
    o = raw_packed(o, 2, (const uint64_t *)vals, nvt);
    for (uint32_t j = 0; j < nlabel; j++) {
        const struct prof_label *l = &labels[j];
        uint8_t *ls = o;
        *ls = 3 << 3 | 2;
        o += 2;
        o = raw_int(o, 1, (uint64_t)l->key);
        o = raw_int(o, 2, (uint64_t)l->str);
        o = raw_int(o, 3, (uint64_t)l->num);
        o = raw_int(o, 4, (uint64_t)l->num_unit);
        ls[1] = (uint8_t)(o - (ls + 2)); /* at most 44 bytes */
    }
    out->len = (size_t)(fix_len(start, o) - out->p);
}

/* A Profile.location field of id id into out in one pass (the bytes put_int and put_bytes would
 * make of its message: id, mapping, address, lines, is_folded). */
static void put_location(struct buf *out, uint64_t id, const struct prof_location *l,
                         const struct prof_line *lines)
{
    /* At most: 11 bytes of tag and length, 11 a varint field, 2 + 3 * 11 a line. */
    GROW(out->p, out->cap, out->len + 11 + 4 * 11 + (size_t)l->nline * (2 + 3 * 11));
    uint8_t *start = out->p + out->len, *o = start + 2;
    *start = 4 << 3 | 2;
    o = raw_int(o, 1, id);
    o = raw_int(o, 2, l->mapping_id);
    o = raw_int(o, 3, l->address);
    for (uint32_t j = 0; j < l->nline; j++) {
        uint8_t *ls = o;
        *ls = 4 << 3 | 2;
        o += 2;
        o = raw_int(o, 1, lines[j].function_id);
        o = raw_int(o, 2, (uint64_t)lines[j].line);
        o = raw_int(o, 3, (uint64_t)lines[j].column);
        ls[1] = (uint8_t)(o - (ls + 2)); /* at most 33 bytes */
    }
    o = raw_int(o, 5, l->is_folded);
    out->len = (size_t)(fix_len(start, o) - out->p);
}

void prof_encode_sample(const struct prof *p, struct buf *out, const uint64_t *locs, uint32_t nloc,
                        const int64_t *vals, const struct prof_label *labels, uint32_t nlabel)
{
    put_sample(out, locs, nloc, vals, p->nvt, labels, nlabel);
}

int prof_encode_to(const struct prof *p, struct buf *out, int (*sink)(void *ctx, struct buf *out),
                   void *ctx)
{
    struct buf m = {0}, t = {0};
    int rc = 0;
    for (size_t i = 0; i < p->nvt; i++)
        put_vt(out, &t, 1, &p->vt[i]);
    for (size_t i = 0; i < p->nsample; i++) {
        const struct prof_sample *s = &p->sample[i];
        if (s->nloc == PROF_SAMPLE_ENCODED) {
            /* A run of encoded samples, one after the other in enc, copied at once: up to the
             * one that fills the chunk, where a sample at a time would have handed it out. */
            size_t from = s->loc_off, n = s->val_off;
            while (out->len + n < PROF_ENCODE_CHUNK && i + 1 < p->nsample &&
                   s[1].nloc == PROF_SAMPLE_ENCODED && s[1].loc_off == from + n) {
                i++;
                s++;
                n += s->val_off;
            }
            if (sink) {
                /* Handed out from enc itself, what out holds first: not copied (35 MB for 10^6
                 * samples); deflate's output does not depend on how its input is cut. */
                struct buf run = {(uint8_t *)(uintptr_t)(p->enc.p + from), n, n};
                if ((out->len && sink(ctx, out)) || sink(ctx, &run)) {
                    rc = -1;
                    goto done;
                }
            } else {
                buf_put(out, p->enc.p + from, n);
            }
        } else
            put_sample(out, s->nloc ? &p->locpool[s->loc_off] : NULL, s->nloc,
                       p->nvt ? &p->valpool[s->val_off] : NULL, p->nvt,
                       s->nlabel ? &p->labelpool[s->label_off] : NULL, s->nlabel);
        SINK(0);
    }
    for (size_t i = 0; i < p->nmapping; i++) {
        const struct prof_mapping *mp = &p->mapping[i];
        m.len = 0;
        put_ints(&m, (const uint64_t[]){i + 1, mp->start, mp->limit, mp->offset,
                                        (uint64_t)mp->filename, (uint64_t)mp->build_id,
                                        mp->has_functions, mp->has_filenames,
                                        mp->has_line_numbers, mp->has_inline_frames}, 10);
        put_bytes(out, 3, m.p, m.len);
        SINK(0);
    }
    for (size_t i = 0; i < p->nlocation; i++) {
        put_location(out, i + 1, &p->location[i],
                     p->location[i].nline ? &p->linepool[p->location[i].line_off] : NULL);
        SINK(0);
    }
    for (size_t i = 0; i < p->nfunction; i++) {
        const struct prof_function *f = &p->function[i];
        m.len = 0;
        put_ints(&m, (const uint64_t[]){i + 1, (uint64_t)f->name, (uint64_t)f->system_name,
                                        (uint64_t)f->filename, (uint64_t)f->start_line}, 5);
        put_bytes(out, 5, m.p, m.len);
        SINK(0);
    }
    for (size_t i = 0; i < p->nstr; i++) {
        put_bytes(out, 6, p->str[i], p->strlen[i]);
        SINK(0);
    }
    put_int(out, 7, (uint64_t)p->drop_frames);
    put_int(out, 8, (uint64_t)p->keep_frames);
    put_int(out, 9, (uint64_t)p->time_nanos);
    put_int(out, 10, (uint64_t)p->duration_nanos);
    if (p->period_type.type || p->period_type.unit)
        put_vt(out, &t, 11, &p->period_type);
    put_int(out, 12, (uint64_t)p->period);
    if (p->ncomment)
        put_packed(out, &t, 13, (const uint64_t *)p->comment, p->ncomment, 1);
    put_int(out, 14, (uint64_t)p->default_sample_type);
    SINK(1);
done:
    buf_free(&m);
    buf_free(&t);
    return rc;
}
#undef SINK

void prof_encode(const struct prof *p, struct buf *out)
{
    prof_encode_to(p, out, NULL, NULL);
}

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

static inline int rd_field(struct rd *r, struct field *f)
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
