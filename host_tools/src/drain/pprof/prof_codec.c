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
    return (uint64_t)i < p->nstr; /* a negative index is above any count */
}

/* A string index field (named `what` in the message) must be in the string table. */
#define STR_CHECK(p, idx, what)                                                                   \
    do {                                                                                          \
        if (!str_ok(p, idx))                                                                      \
            return vfail(err, errlen, "%s: string index %lld out of range (%zu strings)", what,   \
                         (long long)(idx), (p)->nstr);                                            \
    } while (0)

/* prof_validate's samples: a run of encoded ones (made by prof_add_sample from valid ids) in a
 * loop of its own, then a run of the others. Samples share their labels' entries
 * (prof_add_sample): a run of samples with the same ones is checked once. */
static int validate_samples(const struct prof *p, char *err, size_t errlen)
{
    uint32_t checked_off = UINT32_MAX, checked_n = 0;
    for (size_t i = 0; i < p->nsample;) {
        for (; i < p->nsample && p->sample[i].nloc == PROF_SAMPLE_ENCODED; i++)
            if ((size_t)p->sample[i].loc_off + p->sample[i].val_off > p->enc.len)
                return vfail(err, errlen, "sample %zu: bad encoding", i + 1);
        for (; i < p->nsample && p->sample[i].nloc != PROF_SAMPLE_ENCODED; i++) {
            const struct prof_sample *s = &p->sample[i];
            if (s->nloc > PROF_MAX_DEPTH || (size_t)s->loc_off + s->nloc > p->nlocpool)
                return vfail(err, errlen, "sample %zu: bad locations", i + 1);
            if ((size_t)s->val_off + p->nvt > p->nvalpool)
                return vfail(err, errlen, "sample %zu has fewer values than the %zu sample types",
                             i + 1, p->nvt);
            if (s->nlabel > PROF_MAX_DEPTH || (size_t)s->label_off + s->nlabel > p->nlabelpool)
                return vfail(err, errlen, "sample %zu: bad labels", i + 1);
            for (uint32_t j = 0; j < s->nloc; j++) /* (no pointer into locpool: it may be NULL) */
                if (p->locpool[s->loc_off + j] - 1 >= p->nlocation) /* 0 wraps to the largest */
                    return vfail(err, errlen, "sample %zu refers to unknown location %llu", i + 1,
                                 (unsigned long long)p->locpool[s->loc_off + j]);
            if (s->label_off == checked_off && s->nlabel <= checked_n)
                continue;
            checked_off = s->label_off, checked_n = s->nlabel;
            for (uint32_t j = 0; j < s->nlabel; j++) {
                const struct prof_label *lb = &p->labelpool[s->label_off + j];
                STR_CHECK(p, lb->key, "label key");
                STR_CHECK(p, lb->str, "label value");
                STR_CHECK(p, lb->num_unit, "label unit");
            }
        }
    }
    return 0;
}

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
    return validate_samples(p, err, errlen);
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
