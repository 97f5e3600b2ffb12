#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void drain_oom(void)
{
    fputs("drain: out of memory\n", stderr);
    exit(DRAIN_EXIT_OOM);
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        drain_oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        drain_oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        drain_oom();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void grow_to(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem)
            drain_oom();
        c *= 2;
    }
    *p = xrealloc(*p, c * elem);
    *cap = c;
}

void buf_put(struct buf *b, const void *data, size_t n)
{
    GROW(b->p, b->cap, b->len + n);
    if (n)
        memcpy(b->p + b->len, data, n);
    b->len += n;
}

void buf_free(struct buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void buf_str(struct buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    GROW(b->p, b->cap, b->len + (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf((char *)b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *buf_cstr(struct buf *b)
{
    GROW(b->p, b->cap, b->len + 1);
    b->p[b->len] = 0;
    return (const char *)b->p;
}

/* The length of the valid UTF-8 sequence at s (of n bytes), or 0 and *bad the bytes of its
 * maximal ill-formed subpart (at least 1). */
static size_t utf8_len(const unsigned char *s, size_t n, size_t *bad)
{
    unsigned char c = s[0];
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    unsigned char lo = 0x80, hi = 0xbf; /* the second byte's range (Unicode table 3-7) */
    if (c < 0xc2 || c > 0xf4) {
        *bad = 1;
        return 0;
    }
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    for (size_t i = 1; i < len; i++) {
        if (i >= n || s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf)) {
            *bad = i;
            return 0;
        }
    }
    return len;
}

/* The bytes at the start of s that go out as they are in any JSON string: printable ASCII but
 * '"', '\\' and '<' (most strings are plain to their end). */
static size_t plain_len(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < n && u[i] >= 0x20 && u[i] < 0x7f && u[i] != '"' && u[i] != '\\' && u[i] != '<')
        i++;
    return i;
}

/* The escaper behind json_put_str and json_fput_str: put(ctx, bytes, n) receives the output. */
static void json_escape(void (*put)(void *, const void *, size_t), void *ctx, const char *s,
                        size_t n, unsigned flags)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t i = plain_len(s, n);
    size_t run = i; /* bytes before i that go out as they are */
    put(ctx, "\"", 1);
    while (i < n) {
        unsigned char c = u[i];
        char e[8];
        size_t elen = 0, take = 1;
        if (c == '"' || c == '\\') {
            e[0] = '\\', e[1] = (char)c, elen = 2;
        } else if (c < 0x20) {
            static const char shortf[] = "\bb\ff\nn\rr\tt";
            const char *sf = memchr(shortf, c, sizeof(shortf) - 1);
            if (sf && (sf - shortf) % 2 == 0)
                e[0] = '\\', e[1] = sf[1], elen = 2;
            else
                elen = (size_t)snprintf(e, sizeof(e), "\\u%04x", c);
        } else if (c == '<' && (flags & JSON_IN_SCRIPT)) {
            memcpy(e, "\\u003c", 6), elen = 6;
        } else if (c >= 0x80) {
            size_t bad = 0, len = utf8_len(u + i, n - i, &bad);
            if (len) {
                run += len, i += len;
                continue;
            }
            memcpy(e, "\\ufffd", 6), elen = 6, take = bad;
        } else {
            run++, i++;
            continue;
        }
        if (run)
            put(ctx, u + i - run, run);
        put(ctx, e, elen);
        run = 0;
        i += take;
    }
    if (run)
        put(ctx, u + n - run, run);
    put(ctx, "\"", 1);
}

static void put_buf(void *b, const void *s, size_t n) { buf_put(b, s, n); }
static void put_file(void *f, const void *s, size_t n) { jwrite(s, n, f); }

void json_put_str(struct buf *b, const char *s, size_t n, unsigned flags)
{
    json_escape(put_buf, b, s, n, flags);
}

void json_fput_str(FILE *f, const char *s, size_t n, unsigned flags)
{
    if (plain_len(s, n) == n) { /* without the escaper's calls a piece */
        putc_unlocked('"', f);
        jwrite(s, n, f);
        putc_unlocked('"', f);
        return;
    }
    json_escape(put_file, f, s, n, flags);
}

uint64_t hash_bytes(const void *data, size_t n, uint64_t seed)
{
    /* FNV-1a over 8-byte words, finished with a mixer: fast enough for drain's keys. */
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x100000001b3ull;
        p += 8;
        n -= 8;
    }
    while (n--) {
        h = (h ^ *p++) * 0x100000001b3ull;
    }
    return hash_u64(h);
}

static void iset_rehash(struct iset *s)
{
    size_t ncap = s->cap ? s->cap * 2 : 64;
    struct iset_entry *ne = xmalloc(ncap * sizeof(*ne));
    for (size_t i = 0; i < ncap; i++)
        ne[i].idx = UINT32_MAX;
    for (size_t i = 0; i < s->cap; i++) {
        if (s->e[i].idx == UINT32_MAX)
            continue;
        size_t j = s->e[i].hash & (ncap - 1);
        while (ne[j].idx != UINT32_MAX)
            j = (j + 1) & (ncap - 1);
        ne[j] = s->e[i];
    }
    free(s->e);
    s->e = ne;
    s->cap = ncap;
}

uint32_t iset_find(const struct iset *s, uint64_t h, iset_eq_fn eq, const void *ctx)
{
    if (!s->cap)
        return UINT32_MAX;
    for (size_t j = h & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        if (s->e[j].idx == UINT32_MAX)
            return UINT32_MAX;
        if (s->e[j].hash == h && eq(ctx, s->e[j].idx))
            return s->e[j].idx;
    }
}

void iset_add(struct iset *s, uint64_t h, uint32_t index)
{
    if ((s->count + 1) * 2 > s->cap)
        iset_rehash(s);
    size_t j = h & (s->cap - 1);
    while (s->e[j].idx != UINT32_MAX)
        j = (j + 1) & (s->cap - 1);
    s->e[j].idx = index;
    s->e[j].hash = h;
    s->count++;
}

void iset_free(struct iset *s)
{
    free(s->e);
    memset(s, 0, sizeof(*s));
}

static void umap_rehash(struct umap *m, size_t ncap)
{
    struct umap_entry *ne = xmalloc(ncap * sizeof(*ne));
    for (size_t i = 0; i < ncap; i++)
        ne[i].val = UINT32_MAX;
    size_t count = 0;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->e[i].val == UINT32_MAX)
            continue;
        if (m->e[i].key < m->ndense) { /* now covered by the dense part: move it there */
            m->dense[m->e[i].key] = m->e[i].val;
            continue;
        }
        size_t j = hash_u64(m->e[i].key) & (ncap - 1);
        while (ne[j].val != UINT32_MAX)
            j = (j + 1) & (ncap - 1);
        ne[j] = m->e[i];
        count++;
    }
    free(m->e);
    m->e = ne;
    m->cap = ncap;
    m->count = count;
}

uint32_t umap_get_hashed(const struct umap *m, uint64_t key)
{
    if (!m->cap)
        return UINT32_MAX;
    for (size_t j = hash_u64(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        if (m->e[j].val == UINT32_MAX)
            return UINT32_MAX;
        if (m->e[j].key == key)
            return m->e[j].val;
    }
}

/* The dense part grows to cover key only while it stays within a constant factor of the keys
 * stored (ids 1..N stay dense; a few scattered keys, however small, go to the hash table), so
 * memory is proportional to the number of keys whatever their values. */
static int umap_dense_ok(const struct umap *m, uint64_t key, size_t *n_out)
{
    if (key >= UMAP_DENSE)
        return 0;
    size_t n = m->ndense ? m->ndense : 64;
    while (n <= key)
        n *= 2;
    if (n > 64 && n > 8 * (m->count + m->ndense_count + 1))
        return 0;
    *n_out = n;
    return 1;
}

void umap_put(struct umap *m, uint64_t key, uint32_t val)
{
    size_t n;
    if (key >= m->ndense && umap_dense_ok(m, key, &n)) {
        m->dense = xrealloc(m->dense, n * sizeof(*m->dense));
        memset(m->dense + m->ndense, 0xff, (n - m->ndense) * sizeof(*m->dense));
        m->ndense = n;
        if (m->count) { /* keys of the hash table the dense part now covers move there */
            size_t before = m->count;
            umap_rehash(m, m->cap);
            m->ndense_count += before - m->count;
        }
    }
    if (key < m->ndense) {
        if (m->dense[key] == UINT32_MAX)
            m->ndense_count++;
        m->dense[key] = val;
        return;
    }
    if ((m->count + 1) * 2 > m->cap)
        umap_rehash(m, m->cap ? m->cap * 2 : 64);
    size_t j = hash_u64(key) & (m->cap - 1);
    while (m->e[j].val != UINT32_MAX && m->e[j].key != key)
        j = (j + 1) & (m->cap - 1);
    if (m->e[j].val == UINT32_MAX)
        m->count++;
    m->e[j].key = key;
    m->e[j].val = val;
}

void *umap_append(struct umap *m, uint64_t key, void **arr, size_t *n, size_t *cap, size_t elem,
                  int *fresh)
{
    *fresh = 1;
    grow(arr, cap, *n + 1, elem);
    void *e = (char *)*arr + *n * elem;
    memset(e, 0, elem);
    umap_put(m, key, (uint32_t)*n);
    (*n)++;
    return e;
}

void umap_free(struct umap *m)
{
    free(m->dense);
    free(m->e);
    memset(m, 0, sizeof(*m));
}

const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

size_t id_pos(const void *arr, size_t n, size_t elem, uint32_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        uint32_t at;
        memcpy(&at, (const char *)arr + mid * elem, sizeof(at));
        if (at < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void fmt_bytes(char *out, size_t n, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double a = fabs(b);
    int u = 0;
    /* The unit whose value rounds below 1000 (3 digits), so that 1023.7 KiB reads "1.00 MiB". */
    while (u < 4 && (u == 0 ? a >= 1024 : a >= 999.5)) {
        a /= 1024;
        b /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, n, "%.0f B", b);
    else
        snprintf(out, n, "%.*f %s", a < 0.9995 ? 3 : a < 9.995 ? 2 : a < 99.95 ? 1 : 0, b, unit[u]);
}

int out_open(struct out_file *o, const char *path, char *err, size_t errlen)
{
    o->path = path;
    o->tmp = NULL;
    o->f = NULL;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        o->f = fopen(path, "w");
        if (o->f)
            return 0;
    } else {
        const char *name = base_name(path);
        size_t dl = (size_t)(name - path);
        o->tmp = xmalloc(strlen(path) + 9);
        snprintf(o->tmp, strlen(path) + 9, "%.*s.%s.XXXXXX", (int)dl, path, name);
        int fd = mkstemp(o->tmp);
        if (fd >= 0) {
            /* mkstemp's 0600 to what a plain create would give (0666 less the umask) */
            mode_t um = umask(0);
            umask(um);
            o->f = fchmod(fd, 0666 & ~um) == 0 ? fdopen(fd, "w") : NULL;
            if (o->f)
                return 0;
            int e = errno;
            close(fd);
            unlink(o->tmp);
            errno = e;
        }
        free(o->tmp);
        o->tmp = NULL;
    }
    int e = errno;
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    errno = e;
    return -1;
}

int out_close(struct out_file *o, int failed, char *err, size_t errlen)
{
    int e = 0;
    errno = 0;
    if (!failed && (fflush(o->f) != 0 || ferror(o->f)))
        e = errno ? errno : EIO;
    if (o->tmp && !failed && !e && fsync(fileno(o->f)) != 0)
        e = errno;
    if (o->f != stdout && fclose(o->f) != 0 && !e)
        e = errno;
    if (o->tmp && !failed && !e && rename(o->tmp, o->path) != 0)
        e = errno;
    if (o->tmp && (failed || e))
        unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    o->f = NULL;
    if (failed)
        return -1;
    if (e) {
        snprintf(err, errlen, "%s: %s", o->path, strerror(e));
        errno = e;
        return -1;
    }
    return 0;
}
