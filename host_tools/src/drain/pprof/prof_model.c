#include "pprof/prof_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prof_init(struct prof *p)
{
    memset(p, 0, sizeof(*p));
    prof_str(p, "", 0);
}

void prof_free(struct prof *p)
{
    for (size_t i = 0; i < p->nstr; i++)
        free(p->str[i]);
    free(p->str);
    free(p->strlen);
    iset_free(&p->strset);
    free(p->vt);
    free(p->sample);
    free(p->locpool);
    free(p->valpool);
    free(p->labelpool);
    iset_free(&p->sampleset);
    free(p->enc.p);
    free(p->mapping);
    free(p->location);
    iset_free(&p->locset);
    free(p->linepool);
    free(p->function);
    iset_free(&p->funcset);
    free(p->comment);
    memset(p, 0, sizeof(*p));
}

void prof_drop_index(struct prof *p)
{
    iset_free(&p->strset);
    iset_free(&p->sampleset);
    iset_free(&p->locset);
    iset_free(&p->funcset);
}

void prof_drop_samples(struct prof *p)
{
    free(p->sample), p->sample = NULL, p->nsample = p->capsample = 0;
    free(p->locpool), p->locpool = NULL, p->nlocpool = p->caplocpool = 0;
    free(p->valpool), p->valpool = NULL, p->nvalpool = p->capvalpool = 0;
    free(p->labelpool), p->labelpool = NULL, p->nlabelpool = p->caplabelpool = 0;
    free(p->location), p->location = NULL, p->nlocation = p->caplocation = 0;
    free(p->linepool), p->linepool = NULL, p->nlinepool = p->caplinepool = 0;
}

struct strkey {
    const struct prof *p;
    const char *s;
    size_t len;
};

static int str_eq(const void *ctx, uint32_t i)
{
    const struct strkey *k = ctx;
    return k->p->strlen[i] == k->len && memcmp(k->p->str[i], k->s, k->len) == 0;
}

int64_t prof_str(struct prof *p, const char *s, size_t len)
{
    struct strkey k = {p, s, len};
    uint64_t h = hash_bytes(s, len, 1);
    uint32_t i = iset_find(&p->strset, h, str_eq, &k);
    if (i != UINT32_MAX)
        return i;
    GROW(p->str, p->capstr, p->nstr + 1);
    GROW(p->strlen, p->capstrlen, p->nstr + 1);
    p->str[p->nstr] = xstrndup(s, len);
    p->strlen[p->nstr] = (uint32_t)len;
    iset_add(&p->strset, h, (uint32_t)p->nstr);
    return (int64_t)p->nstr++;
}

int64_t prof_cstr(struct prof *p, const char *s)
{
    return prof_str(p, s, strlen(s));
}

void prof_append_vt(struct prof *p, struct prof_vt vt)
{
    GROW(p->vt, p->capvt, p->nvt + 1);
    p->vt[p->nvt++] = vt;
}

void prof_append_comment(struct prof *p, int64_t str)
{
    GROW(p->comment, p->capcomment, p->ncomment + 1);
    p->comment[p->ncomment++] = str;
}

void prof_add_type(struct prof *p, const char *type, const char *unit)
{
    int64_t t = prof_cstr(p, type);
    prof_append_vt(p, (struct prof_vt){t, prof_cstr(p, unit)});
}

void prof_comment(struct prof *p, const char *s)
{
    prof_append_comment(p, prof_cstr(p, s));
}

uint64_t prof_add_mapping(struct prof *p, const struct prof_mapping *m)
{
    GROW(p->mapping, p->capmapping, p->nmapping + 1);
    p->mapping[p->nmapping++] = *m;
    return p->nmapping;
}

struct funckey {
    const struct prof *p;
    const struct prof_function *f;
};

static int func_eq(const void *ctx, uint32_t i)
{
    const struct funckey *k = ctx;
    return memcmp(&k->p->function[i], k->f, sizeof(*k->f)) == 0;
}

uint64_t prof_add_function(struct prof *p, const struct prof_function *f)
{
    struct funckey k = {p, f};
    uint64_t h = hash_bytes(f, sizeof(*f), 2);
    uint32_t i = iset_find(&p->funcset, h, func_eq, &k);
    if (i != UINT32_MAX)
        return (uint64_t)i + 1;
    GROW(p->function, p->capfunction, p->nfunction + 1);
    p->function[p->nfunction] = *f;
    iset_add(&p->funcset, h, (uint32_t)p->nfunction);
    return ++p->nfunction;
}

struct lockey {
    const struct prof *p;
    uint64_t mapping_id, address;
    const struct prof_line *lines;
    uint32_t nline;
};

static int loc_eq(const void *ctx, uint32_t i)
{
    const struct lockey *k = ctx;
    const struct prof_location *l = &k->p->location[i];
    return l->mapping_id == k->mapping_id && l->address == k->address && l->nline == k->nline &&
           (k->nline == 0 ||
            memcmp(&k->p->linepool[l->line_off], k->lines, k->nline * sizeof(*k->lines)) == 0);
}

uint64_t prof_add_location(struct prof *p, uint64_t mapping_id, uint64_t address,
                           const struct prof_line *lines, uint32_t nline, int intern)
{
    struct lockey k = {p, mapping_id, address, lines, nline};
    uint64_t h = 0;
    if (intern) {
        h = hash_u64(mapping_id * 31 + address) ^
            (nline ? hash_bytes(lines, nline * sizeof(*lines), 3) : 0);
        uint32_t i = iset_find(&p->locset, h, loc_eq, &k);
        if (i != UINT32_MAX)
            return (uint64_t)i + 1;
    }
    GROW(p->location, p->caplocation, p->nlocation + 1);
    GROW(p->linepool, p->caplinepool, p->nlinepool + nline);
    struct prof_location *l = &p->location[p->nlocation];
    memset(l, 0, sizeof(*l));
    l->mapping_id = (uint32_t)mapping_id; /* ids are index + 1 (prof_location) */
    l->address = address;
    l->line_off = (uint32_t)p->nlinepool;
    l->nline = nline;
    if (nline)
        memcpy(&p->linepool[p->nlinepool], lines, nline * sizeof(*lines));
    p->nlinepool += nline;
    if (intern)
        iset_add(&p->locset, h, (uint32_t)p->nlocation);
    return ++p->nlocation;
}

const char *prof_label(const struct prof *p, const struct prof_sample *s, const char *key)
{
    for (uint32_t k = 0; k < s->nlabel; k++) {
        const struct prof_label *l = &p->labelpool[s->label_off + k];
        if (l->str > 0 && strcmp(p->str[l->key], key) == 0)
            return p->str[l->str];
    }
    return NULL;
}

int prof_same_site(const struct prof *p, const uint64_t *canon, uint32_t a, uint32_t b)
{
    const struct prof_sample *x = &p->sample[a], *y = &p->sample[b];
    if (x->nloc != y->nloc)
        return 0;
    for (uint32_t k = 0; k < x->nloc; k++)
        if (canon[p->locpool[x->loc_off + k]] != canon[p->locpool[y->loc_off + k]])
            return 0;
    const char *s = prof_label(p, x, "task"), *t = prof_label(p, y, "task");
    return (s == NULL) == (t == NULL) && (!s || strcmp(s, t) == 0);
}

/* A location's symbolized key: its lines' functions and line numbers (no column, no address). */
struct canonkey {
    const struct prof *p;
    const struct prof_location *l;
};

static uint64_t canon_hash(const struct prof *p, const struct prof_location *l)
{
    uint64_t h = hash_u64(l->nline);
    for (uint32_t j = 0; j < l->nline; j++) {
        const struct prof_line *ln = &p->linepool[l->line_off + j];
        h = hash_u64(h ^ hash_u64(ln->function_id * 0x9e3779b97f4a7c15ull + (uint64_t)ln->line));
    }
    return h;
}

static int canon_eq(const void *ctx, uint32_t i)
{
    const struct canonkey *k = ctx;
    const struct prof_location *a = k->l, *b = &k->p->location[i];
    if (a->nline != b->nline)
        return 0;
    for (uint32_t j = 0; j < a->nline; j++) {
        const struct prof_line *x = &k->p->linepool[a->line_off + j];
        const struct prof_line *y = &k->p->linepool[b->line_off + j];
        if (x->function_id != y->function_id || x->line != y->line)
            return 0;
    }
    return 1;
}

const struct prof_mapping *prof_loc_module(const struct prof *p, const struct prof_location *l)
{
    if (l->mapping_id == 0 || l->mapping_id > p->nmapping)
        return NULL;
    const struct prof_mapping *m = &p->mapping[l->mapping_id - 1];
    /* drain's firmware mapping spans the whole address space: its addresses are the ELF's own */
    if (m->limit == UINT64_MAX || m->filename <= 0 || p->strlen[m->filename] == 0 ||
        l->address < m->start)
        return NULL;
    return m;
}

/* "[%.*s]+0x%llx" (the module cut at PROF_ADDR_TEXT - 24 bytes) or "0x%llx", without printf:
 * every JSON, diff and view of a profile of 10^5 raw stacks writes some 4 * 10^5 of them. */
const char *prof_module_text(char buf[PROF_ADDR_TEXT], const char *module, uint64_t off)
{
    char *o = buf, hex[16], *h = hex + sizeof(hex);
    if (module) {
        size_t n = strnlen(module, PROF_ADDR_TEXT - 24);
        *o++ = '[';
        memcpy(o, module, n), o += n;
        *o++ = ']', *o++ = '+';
    }
    do
        *--h = "0123456789abcdef"[off & 15];
    while (off >>= 4);
    *o++ = '0', *o++ = 'x';
    memcpy(o, h, (size_t)(hex + sizeof(hex) - h)), o += hex + sizeof(hex) - h;
    *o = 0;
    return buf;
}

uint64_t prof_addr_off(const struct prof *p, const struct prof_location *l)
{
    const struct prof_mapping *m = prof_loc_module(p, l);
    return m ? l->address - m->start + m->offset : l->address;
}

const char *prof_addr_text(const struct prof *p, const struct prof_location *l,
                           char buf[PROF_ADDR_TEXT], uint64_t *module_off)
{
    const struct prof_mapping *m = prof_loc_module(p, l);
    uint64_t off = prof_addr_off(p, l);
    if (module_off)
        *module_off = off;
    return prof_module_text(buf, m ? base_name(p->str[m->filename]) : NULL, off);
}

uint64_t *prof_loc_canon(const struct prof *p)
{
    uint64_t *c = xmalloc((p->nlocation + 1) * sizeof(*c));
    struct iset set = {0};
    c[0] = 0;
    for (size_t i = 0; i < p->nlocation; i++) {
        const struct prof_location *l = &p->location[i];
        c[i + 1] = i + 1;
        if (l->nline == 0) /* an address alone is its own key */
            continue;
        struct canonkey k = {p, l};
        uint64_t h = canon_hash(p, l);
        uint32_t j = iset_find(&set, h, canon_eq, &k);
        if (j != UINT32_MAX)
            c[i + 1] = (uint64_t)j + 1;
        else
            iset_add(&set, h, (uint32_t)i);
    }
    iset_free(&set);
    return c;
}

struct samplekey {
    const struct prof *p;
    const uint64_t *locs;
    uint32_t nloc;
    const struct prof_label *labels;
    uint32_t nlabel;
};

static int sample_eq(const void *ctx, uint32_t i)
{
    const struct samplekey *k = ctx;
    const struct prof_sample *s = &k->p->sample[i];
    return s->nloc == k->nloc && s->nlabel == k->nlabel &&
           (k->nloc == 0 ||
            memcmp(&k->p->locpool[s->loc_off], k->locs, k->nloc * sizeof(*k->locs)) == 0) &&
           (k->nlabel == 0 || memcmp(&k->p->labelpool[s->label_off], k->labels,
                                     k->nlabel * sizeof(*k->labels)) == 0);
}

uint32_t prof_add_sample(struct prof *p, const uint64_t *locs, uint32_t nloc, const int64_t *vals,
                         const struct prof_label *labels, uint32_t nlabel, int intern)
{
    struct samplekey k = {p, locs, nloc, labels, nlabel};
    uint64_t h = 0;
    if (intern) {
        h = (nloc ? hash_bytes(locs, nloc * sizeof(*locs), 4) : 4) ^
            (nlabel ? hash_bytes(labels, nlabel * sizeof(*labels), 5) : 0);
        uint32_t i = iset_find(&p->sampleset, h, sample_eq, &k);
        if (i != UINT32_MAX) {
            int64_t *v = &p->valpool[p->sample[i].val_off];
            /* Saturating: merged values of hostile or huge profiles must not overflow. */
            for (size_t j = 0; j < p->nvt; j++)
                if (__builtin_add_overflow(v[j], vals[j], &v[j]))
                    v[j] = vals[j] < 0 ? INT64_MIN : INT64_MAX;
            return i;
        }
    }
    GROW(p->sample, p->capsample, p->nsample + 1);
    if (p->encode_samples && !intern && p->enc.len <= UINT32_MAX / 2) {
        size_t at = p->enc.len;
        p->encode_sample(p, &p->enc, locs, nloc, vals, labels, nlabel);
        p->sample[p->nsample] = (struct prof_sample){(uint32_t)at, PROF_SAMPLE_ENCODED,
                                                     (uint32_t)(p->enc.len - at), 0, 0};
        p->enc_locs += nloc;
        p->enc_vals += p->nvt;
        return (uint32_t)p->nsample++;
    }
    GROW(p->locpool, p->caplocpool, p->nlocpool + nloc);
    GROW(p->valpool, p->capvalpool, p->nvalpool + p->nvt);
    struct prof_sample *s = &p->sample[p->nsample];
    s->loc_off = (uint32_t)p->nlocpool;
    s->nloc = nloc;
    s->val_off = (uint32_t)p->nvalpool;
    s->nlabel = nlabel;
    /* The labels of the sample before when they are the same (a session's samples mostly
     * share theirs): pool entries are never changed once added, so samples may share them. */
    const struct prof_sample *prev = p->nsample ? s - 1 : NULL;
    if (nlabel && prev && prev->nlabel == nlabel &&
        memcmp(&p->labelpool[prev->label_off], labels, nlabel * sizeof(*labels)) == 0) {
        s->label_off = prev->label_off;
        nlabel = 0; /* nothing to append */
    } else {
        GROW(p->labelpool, p->caplabelpool, p->nlabelpool + nlabel);
        s->label_off = (uint32_t)p->nlabelpool;
    }
    if (nloc)
        memcpy(&p->locpool[p->nlocpool], locs, nloc * sizeof(*locs));
    if (p->nvt)
        memcpy(&p->valpool[p->nvalpool], vals, p->nvt * sizeof(*vals));
    if (nlabel)
        memcpy(&p->labelpool[p->nlabelpool], labels, nlabel * sizeof(*labels));
    p->nlocpool += nloc;
    p->nvalpool += p->nvt;
    p->nlabelpool += nlabel;
    if (intern)
        iset_add(&p->sampleset, h, (uint32_t)p->nsample);
    return (uint32_t)p->nsample++;
}

void prof_reserve(struct prof *p, size_t samples, size_t sample_locs, size_t locations)
{
    GROW(p->sample, p->capsample, p->nsample + samples);
    if (!p->encode_samples) {
        GROW(p->locpool, p->caplocpool, p->nlocpool + sample_locs);
        GROW(p->valpool, p->capvalpool, p->nvalpool + samples * p->nvt);
    }
    GROW(p->location, p->caplocation, p->nlocation + locations);
}

int prof_vt_index(const struct prof *p, const char *type)
{
    size_t n = strlen(type);
    for (size_t i = 0; i < p->nvt; i++) {
        int64_t t = p->vt[i].type;
        if (t >= 0 && (size_t)t < p->nstr && p->strlen[t] == n && memcmp(p->str[t], type, n) == 0)
            return (int)i;
    }
    return -1;
}
