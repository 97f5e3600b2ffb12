/*
 * Small containers for drain: a growable byte buffer, a growable array, an open-addressing index
 * set (hash -> element index) whose equality test is the caller's, an id map; and base_name. Out
 * of memory is fatal (drain_oom prints and exits): drain's own caps keep sizes bounded, so OOM
 * means the host is out.
 */
#ifndef DRAIN_UTIL_H
#define DRAIN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Exit status when out of memory (docs/DRAIN.md "Exit status"). */
#define DRAIN_EXIT_OOM 3
void drain_oom(void);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrndup(const char *s, size_t n);

/* Grows *p (elements of size elem) so that it holds at least need elements; *cap is updated. */
void grow_to(void **p, size_t *cap, size_t need, size_t elem); /* grow's reallocation */
/* Inline: the common case (room left) costs a compare at each of drain's hot appends. */
static inline void grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need > *cap)
        grow_to(p, cap, need, elem);
}
/* The position of id in an array of n elements of elem bytes each, sorted by a leading uint32_t
 * id, or where it would go (n when after every one). */
size_t id_pos(const void *arr, size_t n, size_t elem, uint32_t id);
#define GROW(p, cap, need) grow((void **)&(p), &(cap), (need), sizeof(*(p)))

struct buf {
    uint8_t *p;
    size_t len, cap;
};
void buf_put(struct buf *b, const void *data, size_t n);
/* Inline: a profile's encoding is mostly varints. */
static inline void buf_varint(struct buf *b, uint64_t v)
{
    GROW(b->p, b->cap, b->len + 10);
    while (v >= 0x80) {
        b->p[b->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    b->p[b->len++] = (uint8_t)v;
}
void buf_free(struct buf *b);
/* The string builder of drain is struct buf: buf_str appends a C string, buf_printf formatted
 * text; buf_cstr ends the bytes with a 0 (not counted in len) and returns them as a C string. */
void buf_str(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *buf_cstr(struct buf *b);

/* drain's one JSON string escaper (RFC 8259), for every JSON drain writes. The n bytes of s
 * become a quoted JSON string: '"' and '\\' backslash-escaped; the control bytes 0x00-0x1f
 * (a NUL inside the n bytes too) as \b \f \n \r \t or else \u00XX; valid UTF-8 (shortest
 * forms, no surrogates, at most U+10FFFF) kept as it is; every ill-formed sequence replaced by
 * \ufffd, one per maximal subpart (the Unicode practice, as Python's decode(errors="replace")):
 * the output is always valid UTF-8 and valid JSON. 0x7f is kept (JSON allows it). With
 * JSON_IN_SCRIPT, '<' is written \u003c too, so that the text is safe inside an HTML <script>
 * element ("</script>" cannot end it). json_put_str appends to b; json_fput_str writes to f. */
#define JSON_IN_SCRIPT 1u
void json_put_str(struct buf *b, const char *s, size_t n, unsigned flags);
void json_fput_str(FILE *f, const char *s, size_t n, unsigned flags);

/* fwrite and fputs for the many short pieces of drain's JSON, without stdio's cost per call, which
 * dominated a --json of 10^5 sites: with glibc, a piece that fits in the stream's buffer is copied
 * into it at once, as putc_unlocked (its macro) stores a byte there; else byte by byte through
 * putc_unlocked, a long piece through fwrite. */
static inline void jwrite(const void *s, size_t n, FILE *f)
{
#ifdef __GLIBC__
    /* A line-buffered or unbuffered stream keeps its write end at or before its write pointer (every
     * putc goes through __overflow): the comparison is of pointers, not of their difference as a
     * size, which would wrap there and copy past the buffer. */
    if (f->_IO_write_ptr < f->_IO_write_end && (size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n) {
        memcpy(f->_IO_write_ptr, s, n);
        f->_IO_write_ptr += n;
        return;
    }
#endif
    const char *c = s;
    if (n > 64) {
        fwrite(s, 1, n, f);
        return;
    }
    for (size_t i = 0; i < n; i++)
        putc_unlocked(c[i], f);
}
static inline void jputs(const char *s, FILE *f)
{
    jwrite(s, strlen(s), f); /* a literal's length is known when compiled */
}

uint64_t hash_bytes(const void *data, size_t n, uint64_t seed);
/* A 64-bit mixer (murmur3's finalizer), inline: the model hashes twice a weight change and once a
 * table probe. */
static inline uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* An index set: maps a hash to element indexes; eq(ctx, index) tells whether the element at index
 * is the one being looked up. Empty buckets hold UINT32_MAX. */
struct iset_entry {
    uint64_t hash;
    uint32_t idx;
};
struct iset {
    struct iset_entry *e;
    size_t cap, count;
};
typedef int (*iset_eq_fn)(const void *ctx, uint32_t index);
/* Index of the element equal under eq, or UINT32_MAX. */
uint32_t iset_find(const struct iset *s, uint64_t h, iset_eq_fn eq, const void *ctx);
/* Adds index under hash h (the caller checked it is absent). */
void iset_add(struct iset *s, uint64_t h, uint32_t index);
void iset_free(struct iset *s);

/* A u64 -> u32 map (for ids). Small keys index a plain array while it stays dense (device ids
 * are small and dense: below UMAP_DENSE, and the array at most 8 entries per key stored); other
 * keys go to a hash table. Memory is O(keys stored), whatever their values. */
#define UMAP_DENSE (1u << 22)
struct umap_entry {
    uint64_t key;
    uint32_t val;
};
struct umap {
    uint32_t *dense;
    size_t ndense, ndense_count; /* array length; keys stored in it */
    struct umap_entry *e;
    size_t cap, count;           /* hash table: slots, keys stored in it */
};
/* Value stored for key, or UINT32_MAX: a dense key inline (a hot path: slots, sites), the hash
 * table's out of line (umap_get_hashed). */
uint32_t umap_get_hashed(const struct umap *m, uint64_t key);
static inline uint32_t umap_get(const struct umap *m, uint64_t key)
{
    return key < m->ndense ? m->dense[key] : umap_get_hashed(m, key);
}
void umap_put(struct umap *m, uint64_t key, uint32_t val);
void umap_free(struct umap *m);
/* The element of key in the array *arr of *n elements of size elem that m indexes; one made
 * (zeroed, appended, *fresh set) when key has none (umap_append). UMAP_ELEM(m, key, arr, n, cap,
 * fresh) for a typed array arr with its count n and capacity cap. Inline: a hot path (slots). */
void *umap_append(struct umap *m, uint64_t key, void **arr, size_t *n, size_t *cap, size_t elem,
                  int *fresh);
static inline void *umap_elem(struct umap *m, uint64_t key, void **arr, size_t *n, size_t *cap,
                              size_t elem, int *fresh)
{
    uint32_t i = umap_get(m, key);
    if (i < *n) {
        *fresh = 0;
        return (char *)*arr + (size_t)i * elem;
    }
    return umap_append(m, key, arr, n, cap, elem, fresh);
}
#define UMAP_ELEM(m, key, arr, n, cap, fresh)                                                      \
    umap_elem((m), (key), (void **)&(arr), &(n), &(cap), sizeof(*(arr)), (fresh))

/* s as a number in [lo, hi]: 0 and *out, or -1. */
int parse_num(const char *s, double lo, double hi, double *out);

/* The file name part of a path: what follows its last '/'. */
const char *base_name(const char *path);

/* An output file written whole or not at all (docs/DRAIN.md "Output files"): out_open writes to a
 * temporary DIR/.NAME.XXXXXX beside PATH, out_close renames it over PATH once every byte is out
 * (flushed, synced, closed without error) and removes it otherwise. A PATH that exists and is no
 * regular file (/dev/stdout, a FIFO, /dev/full) is written in place: a rename would replace the
 * device node or the FIFO with a file. Every file drain writes goes through it; a writer whose
 * "-" means stdout sets {stdout, "-", NULL} itself (out_close flushes stdout, never closes it). */
struct out_file {
    FILE *f;          /* where to write */
    const char *path; /* the target */
    char *tmp;        /* the temporary, or NULL when written in place */
};
/* 0 and o->f open, or -1 with "PATH: reason" in err (errno set). */
int out_open(struct out_file *o, const char *path, char *err, size_t errlen);
/* Completes the file: 0, or -1 with "PATH: reason" in err (errno set) when a write, the flush,
 * the sync, the close or the rename failed; then nothing is left at PATH but what was there
 * before. failed set (the writer's own failure, whose message it gives): the temporary is removed
 * and -1 returned, err untouched. */
int out_close(struct out_file *o, int failed, char *err, size_t errlen);

/* Bytes in binary units to 3 significant digits, as every text and view of drain writes them:
 * "512 B", "1.09 KiB", "26.0 MiB", "471 KiB", "-3.00 KiB" (bytes below 1 KiB whole). */
void fmt_bytes(char *out, size_t n, double b);

#endif
