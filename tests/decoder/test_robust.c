/* decoder-robust: damages real streams in seeded, repeatable ways and checks the decoder.
 * Usage: test_robust STREAM... [-- OPTIONAL_STREAM...]
 * Streams before "--" must decode cleanly (golden vectors); optional ones (captures left by other
 * tests) are skipped when they do not, and only their first 64 KiB are used.
 *
 * A damaged stream is made of copied pieces of the original ("segments") and inserted bytes. A
 * frame of the original is untouched when its bytes lie inside one segment, a 0x00 follows them,
 * and it starts the damaged stream or follows a 0x00 there: exactly the frames a correct decoder
 * must still see. For every case the test checks, under ASan and UBSan, that
 *   - the frames decoded are exactly the untouched ones, and each decodes to the same listing as
 *     in the clean decode (or differs only because the decoders' session state differs: pointer
 *     size or address flag, after a lost SESSION), with the same timestamps wherever the damaged
 *     decode claims to know the time;
 *   - damage that must be visible (a frame cut, flipped, merged, a partial frame) shows in the
 *     counters, and a stream without damage shows none. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_decode.h"
#include "wire_build.h"

/* ---- one decode, frame by frame ---- */

struct dframe {
    uint64_t off;
    uint32_t len;
    uint8_t seq;
    int key;           /* session state at the frame's start (see state_key) */
    size_t text, text_end; /* "seq=N" and its records, one a line, without times: in d->text */
    size_t rec0, nrec; /* its records' times: d->ts[rec0 .. rec0 + nrec) */
};

struct rts {
    uint64_t ts;
    int valid;
};

struct decoding {
    struct dframe *f;
    size_t n, cap;
    int key;
    FILE *out;         /* collects the text of all frames */
    char *text;
    size_t text_len;
    struct rts *ts;
    size_t nts, ts_cap;
    int starts_reset;  /* the first frame: seq 0 and a SESSION with resend_seq 0 first */
    struct msamp_dec_stats st;
};

/* The decoder's state that changes how a frame decodes: pointer size, whether [addr] is read and
 * whether a dt may be left out (wire version 2: a stream spliced from a version-1 one and a
 * version-2 one decodes the second's frames under the first's SESSION). Before any SESSION it uses
 * 8, reads addresses when present and takes a dt left out as 0. */
static int state_key(int known, unsigned ptr_size, unsigned flags, unsigned version)
{
    if (!known)
        return 8 * 2 + 1;
    return ((int)ptr_size * 2 + ((flags & MSAMP_SESSION_FLAG_ADDRESSES) ? 1 : 0)) * 2 +
           (version >= 2u) + 64;
}

static void on_rec(void *arg, const struct msamp_record *rec)
{
    struct decoding *d = arg;
    if (rec->type == MSAMP_DEC_LOSS)
        return;
    if (rec->type == MSAMP_DEC_FRAME) {
        if (d->n == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 64;
            d->f = realloc(d->f, d->cap * sizeof(*d->f));
            if (d->f == NULL)
                abort();
        }
        struct dframe *f = &d->f[d->n++];
        memset(f, 0, sizeof(*f));
        f->off = rec->u.frame.offset;
        f->len = rec->u.frame.enc_len;
        f->key = d->key;
        f->seq = rec->u.frame.seq;
        f->text = (size_t)ftell(d->out);
        f->rec0 = d->nts;
        fprintf(d->out, "seq=%u\n", rec->u.frame.seq);
        return;
    }
    if (d->n == 0) {
        fprintf(stderr, "decoder-robust: a record outside any frame\n");
        abort();
    }
    struct dframe *f = &d->f[d->n - 1];
    if (d->n == 1 && f->nrec == 0 && f->seq == 0 && rec->type == MSAMP_REC_SESSION &&
        rec->u.session.resend_seq == 0)
        d->starts_reset = 1;
    msamp_record_print(d->out, rec);
    if (d->nts == d->ts_cap) {
        d->ts_cap = d->ts_cap ? 2 * d->ts_cap : 256;
        d->ts = realloc(d->ts, d->ts_cap * sizeof(*d->ts));
        if (d->ts == NULL)
            abort();
    }
    d->ts[d->nts++] = (struct rts){ rec->ts, rec->ts_valid };
    f->nrec++;
    if (rec->type == MSAMP_REC_SESSION)
        d->key = state_key(1, rec->u.session.ptr_size, rec->u.session.flags,
                           rec->u.session.version);
}

static void decoding_free(struct decoding *d)
{
    free(d->text);
    free(d->ts);
    free(d->f);
    memset(d, 0, sizeof(*d));
}

static void decode(struct decoding *out, const uint8_t *p, size_t len)
{
    memset(out, 0, sizeof(*out));
    out->key = state_key(0, 8, 0, MSAMP_WIRE_VERSION);
    out->out = open_memstream(&out->text, &out->text_len);
    struct msamp_dec *dec = msamp_dec_new(on_rec, out);
    if (dec == NULL || out->out == NULL)
        abort();
    msamp_dec_feed(dec, p, len);
    msamp_dec_finish(dec);
    fclose(out->out);
    out->out = NULL;
    for (size_t i = 0; i < out->n; i++)
        out->f[i].text_end = i + 1 < out->n ? out->f[i + 1].text : out->text_len;
    out->st = *msamp_dec_stats(dec);
    msamp_dec_free(dec);
}

/* ---- the reference: clean streams laid end to end ("original coordinates") ---- */

struct stream {
    const char *name;
    uint8_t *p;
    size_t len;
    struct decoding clean;
};

struct ref {
    struct buf orig;      /* the original bytes */
    const struct decoding **dec; /* the frames in order, borrowed from the clean decodes */
    const struct dframe **f;
    uint64_t *off;        /* their offsets in orig */
    size_t n;
};

static void ref_add(struct ref *r, struct stream *s)
{
    size_t base = r->orig.len;
    buf_put(&r->orig, s->p, s->len);
    r->dec = realloc(r->dec, (r->n + s->clean.n) * sizeof(*r->dec));
    r->f = realloc(r->f, (r->n + s->clean.n) * sizeof(*r->f));
    r->off = realloc(r->off, (r->n + s->clean.n) * sizeof(*r->off));
    if (r->dec == NULL || r->f == NULL || r->off == NULL)
        abort();
    for (size_t i = 0; i < s->clean.n; i++) {
        r->dec[r->n] = &s->clean;
        r->f[r->n] = &s->clean.f[i];
        r->off[r->n++] = base + s->clean.f[i].off;
    }
}

static void ref_free(struct ref *r)
{
    buf_free(&r->orig);
    free(r->dec);
    free(r->f);
    free(r->off);
    memset(r, 0, sizeof(*r));
}

static long ref_find(const struct ref *r, uint64_t off)
{
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->off[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < r->n && r->off[lo] == off) ? (long)lo : -1;
}

static int at_boundary(const struct ref *r, size_t pos)
{
    return pos == 0 || r->orig.p[pos - 1] == 0;
}

/* 1 when removing orig[a, b) leaves the same bytes as removing a range whose both ends are frame
 * boundaries: the range slid while the byte it gives up equals the byte it takes in (a cut from
 * just before one frame's closing 0x00 to just before another's is a cut of whole frames).
 * *start gets that range's start (its length is b - a): cut there, the damaged stream's bytes are
 * the same and its frames map to whole frames of the original. */
static int cut_aligned(const struct ref *r, size_t a, size_t b, size_t *start)
{
    size_t len = r->orig.len;
    for (size_t x = a, y = b;; x++, y++) { /* forward: drop orig[x], keep orig[y] */
        if (at_boundary(r, x) && at_boundary(r, y)) {
            *start = x;
            return 1;
        }
        if (y >= len || r->orig.p[x] != r->orig.p[y])
            break;
    }
    for (size_t x = a, y = b; x > 0 && r->orig.p[x - 1] == r->orig.p[y - 1];) { /* backward */
        x--, y--;
        if (at_boundary(r, x) && at_boundary(r, y)) {
            *start = x;
            return 1;
        }
    }
    *start = a;
    return 0;
}

/* ---- damaged streams ---- */

struct seg {
    size_t dstart, ostart, len;
};

struct damaged {
    struct buf bytes;
    struct seg *seg;
    size_t nseg, segcap;
};

static void dmg_copy(struct damaged *d, const struct ref *r, size_t ostart, size_t len)
{
    if (len == 0)
        return;
    if (d->nseg == d->segcap) {
        d->segcap = d->segcap ? 2 * d->segcap : 8;
        d->seg = realloc(d->seg, d->segcap * sizeof(*d->seg));
        if (d->seg == NULL)
            abort();
    }
    d->seg[d->nseg++] = (struct seg){ d->bytes.len, ostart, len };
    buf_put(&d->bytes, r->orig.p + ostart, len);
}

static void dmg_insert(struct damaged *d, const uint8_t *p, size_t n)
{
    buf_put(&d->bytes, p, n);
}

static void dmg_free(struct damaged *d)
{
    buf_free(&d->bytes);
    free(d->seg);
    memset(d, 0, sizeof(*d));
}

/* ---- checks ---- */

enum expect { EXPECT_ANY, EXPECT_DAMAGE, EXPECT_CLEAN };

static long cases, frames_compared, frames_state_skipped, failures;

static void fail(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *what, const char *fmt, ...)
{
    failures++;
    if (failures > 20)
        return;
    va_list ap;
    fprintf(stderr, "decoder-robust: %s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int damaged_stats(const struct msamp_dec_stats *st)
{
    return st->frames_bad != 0 || st->frames_lost != 0 || st->bytes_discarded != 0;
}

/* Frames decoded with another session state (a lost SESSION) may differ; all must keep time. */
static void compare_frame(const char *what, const struct decoding *gd, const struct dframe *got,
                          const struct decoding *wd, const struct dframe *want)
{
    for (size_t i = 0; i < got->nrec && i < want->nrec; i++) {
        const struct rts *g = &gd->ts[got->rec0 + i], *w = &wd->ts[want->rec0 + i];
        if (g->valid && (!w->valid || g->ts != w->ts))
            fail(what, "frame at %" PRIu64 " record %zu: time %" PRIu64 ", clean %s%" PRIu64,
                 got->off, i, g->ts, w->valid ? "" : "unknown ", w->ts);
    }
    size_t glen = got->text_end - got->text, wlen = want->text_end - want->text;
    if (glen == wlen && memcmp(gd->text + got->text, wd->text + want->text, glen) == 0) {
        frames_compared++;
    } else if (got->key != want->key) {
        frames_state_skipped++;
    } else {
        fail(what, "frame at %" PRIu64 " decodes differently:\n%.*s--- clean:\n%.*s", got->off,
             (int)glen, gd->text + got->text, (int)wlen, wd->text + want->text);
    }
}

static void check_case(const char *what, const struct ref *r, const struct damaged *d,
                       enum expect expect)
{
    struct decoding got;
    decode(&got, d->bytes.p, d->bytes.len);
    cases++;

    /* Untouched frames: their bytes inside one segment, a 0x00 after them (theirs or not), and
     * a 0x00 or the start of the stream before. */
    size_t untouched = 0;
    for (size_t i = 0; i < r->n; i++) {
        uint64_t start = r->off[i], end = start + r->f[i]->len;
        for (size_t k = 0; k < d->nseg; k++) {
            const struct seg *s = &d->seg[k];
            if (s->ostart <= start && end <= s->ostart + s->len) {
                size_t dpos = s->dstart + (size_t)(start - s->ostart);
                size_t dend = dpos + r->f[i]->len;
                if ((dpos == 0 || d->bytes.p[dpos - 1] == 0) && dend < d->bytes.len &&
                    d->bytes.p[dend] == 0)
                    untouched++;
                break;
            }
        }
    }

    size_t mapped = 0;
    for (size_t j = 0; j < got.n; j++) {
        const struct dframe *g = &got.f[j];
        long idx = -1;
        for (size_t k = 0; k < d->nseg; k++) {
            const struct seg *s = &d->seg[k];
            if (s->dstart <= g->off && g->off + g->len <= s->dstart + s->len) {
                idx = ref_find(r, s->ostart + (g->off - s->dstart));
                break;
            }
        }
        if (idx < 0 || r->f[idx]->len != g->len) {
            fail(what, "frame at %" PRIu64 " (%" PRIu32 " bytes) is not a frame of the original",
                 g->off, g->len);
            continue;
        }
        mapped++;
        compare_frame(what, &got, g, r->dec[idx], r->f[idx]);
    }
    /* A stream spliced onto itself brings frames of the latest 16 back whole: repeats, dropped. */
    if (mapped + got.st.frames_repeated != untouched)
        fail(what, "%zu untouched frames, %zu decoded from the original, %" PRIu64 " repeats",
             untouched, mapped, got.st.frames_repeated);
    if (got.st.frames_ok != got.n || got.st.bytes_in != d->bytes.len)
        fail(what, "counters disagree: frames_ok %" PRIu64 " for %zu frames", got.st.frames_ok,
             got.n);
    if (expect == EXPECT_DAMAGE && !damaged_stats(&got.st))
        fail(what, "damage not reported");
    if (expect == EXPECT_CLEAN && damaged_stats(&got.st))
        fail(what, "damage reported for an undamaged stream (bad %" PRIu64 ", lost %" PRIu64
                   ", discarded %" PRIu64 ")",
             got.st.frames_bad, got.st.frames_lost, got.st.bytes_discarded);
    decoding_free(&got);
}

/* ---- damage generators ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* Every offset of short streams; about 16 spread over long ones. */
static size_t step_for(size_t len)
{
    return len <= 4096 ? 1 : len / 16;
}

/* Rounds of random damage: fewer on long streams, to bound the bytes decoded per stream. */
static int rounds_for(size_t len, int rounds)
{
    size_t budget = (size_t)512 << 10, fit = budget / (len ? len : 1);
    return fit >= (size_t)rounds ? rounds : (int)fit + 8;
}

static void damage_truncate(const struct ref *r, const char *name)
{
    char what[256];
    size_t len = r->orig.len;
    for (size_t cut = 0; cut <= len; cut += step_for(len)) {
        struct damaged d = { 0 };
        dmg_copy(&d, r, 0, cut);
        snprintf(what, sizeof(what), "%s truncated at %zu", name, cut);
        check_case(what, r, &d, at_boundary(r, cut) ? EXPECT_CLEAN : EXPECT_DAMAGE);
        dmg_free(&d);
    }
}

static void damage_join(const struct ref *r, const char *name)
{
    char what[256];
    size_t len = r->orig.len;
    for (size_t at = 0; at < len; at += step_for(len)) {
        struct damaged d = { 0 };
        dmg_copy(&d, r, at, len - at);
        snprintf(what, sizeof(what), "%s joined at %zu", name, at);
        /* Joining on a frame's first byte or on its 0x00 loses nothing visible. */
        int clean = at_boundary(r, at) || r->orig.p[at] == 0;
        check_case(what, r, &d, clean ? EXPECT_CLEAN : EXPECT_DAMAGE);
        dmg_free(&d);
    }
}

static void damage_flips(const struct ref *r, const char *name, int rounds)
{
    char what[256];
    size_t len = r->orig.len;
    for (int k = 0; k < rounds && len > 0; k++) {
        int nflip = 1 + (int)rnd_below(k % 4 == 3 ? 4 : 1);
        size_t pos[4];
        for (int i = 0; i < nflip; i++)
            pos[i] = rnd_below(len);
        for (int i = 1; i < nflip; i++) /* sort */
            for (int j = i; j > 0 && pos[j] < pos[j - 1]; j--) {
                size_t t = pos[j];
                pos[j] = pos[j - 1];
                pos[j - 1] = t;
            }
        struct damaged d = { 0 };
        size_t at = 0;
        for (int i = 0; i < nflip; i++) {
            if (pos[i] < at)
                continue;
            dmg_copy(&d, r, at, pos[i] - at);
            uint8_t b = r->orig.p[pos[i]];
            uint8_t mask = (k & 1) ? (uint8_t)(1u << rnd_below(8)) : (uint8_t)(1 + rnd_below(255));
            b ^= mask;
            dmg_insert(&d, &b, 1);
            at = pos[i] + 1;
        }
        dmg_copy(&d, r, at, len - at);
        snprintf(what, sizeof(what), "%s with %d byte(s) flipped from %zu (round %d)", name,
                 nflip, pos[0], k);
        check_case(what, r, &d, EXPECT_DAMAGE);
        dmg_free(&d);
    }
}

static void damage_drops(const struct ref *r, const char *name, int rounds)
{
    char what[256];
    size_t len = r->orig.len;
    for (int k = 0; k < rounds && len > 1; k++) {
        size_t a = rnd_below(len);
        size_t n = 1 + rnd_below(k % 8 == 7 ? 2048 : 64);
        if (n > len - a)
            n = len - a;
        /* An aligned cut is made where it is aligned: the same bytes, frames that map. */
        size_t at;
        int aligned = cut_aligned(r, a, a + n, &at);
        struct damaged d = { 0 };
        dmg_copy(&d, r, 0, at);
        dmg_copy(&d, r, at + n, len - at - n);
        snprintf(what, sizeof(what), "%s without bytes [%zu, %zu)", name, a, a + n);
        /* A cut of the stream's head up to a 0x00 is a reader that attached there: nothing to
         * see. */
        int late_join = at == 0 && at + n < len && r->orig.p[at + n] == 0;
        check_case(what, r, &d, aligned || late_join ? EXPECT_ANY : EXPECT_DAMAGE);
        dmg_free(&d);
    }
}

static void damage_garbage(const struct ref *r, const char *name, int rounds)
{
    char what[256];
    size_t len = r->orig.len;
    for (int k = 0; k < rounds; k++) {
        size_t a = rnd_below(len + 1);
        uint8_t g[64];
        size_t n = 1 + rnd_below(sizeof(g));
        for (size_t i = 0; i < n; i++)
            g[i] = (k & 1) ? (uint8_t)rnd() : (uint8_t)(rnd() % 4 ? rnd() | 1u : 0);
        g[rnd_below(n)] |= 0x80; /* at least one nonzero byte: never mere filler */
        /* Garbage that begins with the byte after it is the same stream as that garbage rotated by
         * one and put a byte later (orig[a] g[1..n) g[0] with g[0] == orig[a]): slid so, the
         * segments follow the bytes, and a frame the garbage left whole (its last byte repeated,
         * then a 0x00) maps to the original's frame, as cut_aligned does for cuts. */
        while (a < len && g[0] == r->orig.p[a]) {
            uint8_t first = g[0];
            memmove(g, g + 1, n - 1);
            g[n - 1] = first;
            a++;
        }
        /* And garbage that ends with the byte before it repeats that byte: the frame it starts
         * is then decoded whole from the garbage's last byte on, the original's frame read at
         * another place (a 9-byte frame of docs-firmware-snippet's stream, its first byte 0x09
         * repeated by the garbage's last, was called 'not a frame of the original'). Its last
         * byte is made another, nonzero, and not the byte after it when it is the first too. */
        if (a > 0 && g[n - 1] == r->orig.p[a - 1]) {
            do
                g[n - 1]++;
            while (g[n - 1] == 0 || g[n - 1] == r->orig.p[a - 1] ||
                   (n == 1 && a < len && g[0] == r->orig.p[a]));
        }
        struct damaged d = { 0 };
        dmg_copy(&d, r, 0, a);
        dmg_insert(&d, g, n);
        dmg_copy(&d, r, a, len - a);
        snprintf(what, sizeof(what), "%s with %zu garbage bytes at %zu", name, n, a);
        check_case(what, r, &d, EXPECT_DAMAGE);
        dmg_free(&d);
    }
}

/* A then B, as after a device reset; and A cut mid-way then B (reset while sending a frame). */
static void damage_concat(struct stream *a, struct stream *b, int cuts)
{
    char what[256];
    struct ref r = { 0 };
    ref_add(&r, a);
    ref_add(&r, b);
    struct damaged d = { 0 };
    dmg_copy(&d, &r, 0, r.orig.len);
    snprintf(what, sizeof(what), "%s + %s", a->name, b->name);
    check_case(what, &r, &d, b->clean.starts_reset ? EXPECT_CLEAN : EXPECT_ANY);
    dmg_free(&d);
    for (int k = 0; k < cuts; k++) {
        size_t cut = rnd_below(a->len + 1);
        dmg_copy(&d, &r, 0, cut);
        dmg_copy(&d, &r, a->len, b->len);
        snprintf(what, sizeof(what), "%s cut at %zu + %s", a->name, cut, b->name);
        /* A device sends a 0x00 before its boot header: a cut that took only the delimiter of
         * A's frame leaves that frame whole. */
        int whole = cut < a->len && r.orig.p[cut] == 0 && b->len > 0 && r.orig.p[a->len] == 0;
        check_case(what, &r, &d, at_boundary(&r, cut) || whole ? EXPECT_ANY : EXPECT_DAMAGE);
        dmg_free(&d);
    }
    ref_free(&r);
}

/* ---- main ---- */

/* Long optional captures are cut to their first 64 KiB, at a frame boundary, to keep the run short. */
#define OPTIONAL_MAX ((size_t)64 << 10)

static int load(struct stream *s, const char *path, int optional)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    struct buf b = { 0 };
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        buf_put(&b, chunk, n);
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "%s: read error\n", path);
        buf_free(&b);
        return -1;
    }
    if (optional && b.len > OPTIONAL_MAX) {
        size_t cut = OPTIONAL_MAX;
        while (cut > 0 && b.p[cut - 1] != 0)
            cut--;
        if (cut > 0)
            b.len = cut;
    }
    s->name = path;
    s->p = b.p;
    s->len = b.len;
    decode(&s->clean, s->p, s->len);
    return 0;
}

int main(int argc, char **argv)
{
    struct stream *streams = calloc((size_t)argc, sizeof(*streams));
    int n = 0, optional = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            optional = 1;
            continue;
        }
        struct stream *s = &streams[n];
        if (load(s, argv[i], optional) < 0) {
            bad = 1;
            continue;
        }
        const struct msamp_dec_stats *st = &s->clean.st;
        if (damaged_stats(st) || s->clean.n == 0) {
            fprintf(stderr, "decoder-robust: %s: %s: not a clean stream (%" PRIu64
                            " frames ok, %" PRIu64 " bad, %" PRIu64 " lost, %" PRIu64
                            " bytes discarded)\n",
                    optional ? "skipped" : "error", s->name, st->frames_ok, st->frames_bad,
                    st->frames_lost, st->bytes_discarded);
            if (!optional)
                bad = 1;
            decoding_free(&s->clean);
            free(s->p);
            continue;
        }
        n++;
    }
    if (n == 0 || bad) {
        fprintf(stderr, "decoder-robust: %s\n", bad ? "unusable input" : "no streams given");
        for (int i = 0; i < n; i++) {
            decoding_free(&streams[i].clean);
            free(streams[i].p);
        }
        free(streams);
        return 1;
    }

    for (int i = 0; i < n; i++) {
        struct ref r = { 0 };
        ref_add(&r, &streams[i]);
        struct damaged d = { 0 };
        dmg_copy(&d, &r, 0, r.orig.len);
        check_case(streams[i].name, &r, &d, EXPECT_CLEAN);
        dmg_free(&d);
        damage_truncate(&r, streams[i].name);
        damage_join(&r, streams[i].name);
        damage_flips(&r, streams[i].name, rounds_for(r.orig.len, 300));
        damage_drops(&r, streams[i].name, rounds_for(r.orig.len, 200));
        damage_garbage(&r, streams[i].name, rounds_for(r.orig.len, 200));
        ref_free(&r);
    }
    for (int i = 0; i < n && i < 8; i++)
        for (int j = 0; j < n && j < 8; j++)
            if (i == 0 || j == 0 || streams[i].len + streams[j].len <= ((size_t)32 << 10))
                damage_concat(&streams[i], &streams[j], rounds_for(streams[i].len + streams[j].len, 20));

    printf("decoder-robust: %d streams, %ld cases, %ld untouched frames identical, %ld differing "
           "after a lost SESSION, %ld failures\n",
           n, cases, frames_compared, frames_state_skipped, failures);
    for (int i = 0; i < n; i++) {
        decoding_free(&streams[i].clean);
        free(streams[i].p);
    }
    free(streams);
    return failures ? 1 : 0;
}
