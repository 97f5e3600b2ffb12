/*
 * The calibration suite's hosted workloads (docs/VERDICTS.md "Calibration"): programs whose exact
 * truth, written by themselves, drain's estimates are judged against over many seeded runs.
 *
 * usage: calib_app WORKLOAD SEED TRUTH.txt   (linked with the hosted library; the runner sets
 *        MSAMP_OUTPUT, MSAMP_SEED, MSAMP_INTERVAL, MSAMP_LIVE_CAPACITY, ... per workload)
 *
 * Every allocation is made by one of the leaf functions calib_sAB (malloc: leaf 8A + B, A and B
 * octal digits) or calib_rN
 * (realloc), each under a workload function (calib_steady, calib_chains, ...) so that a drain
 * check budget `inuse:calib_sNN` or `alloc:calib_sNN` sums exactly the sites of one leaf, and
 * `inuse:calib_chains` those of a whole realloc chain (its in-use is at the site of its first
 * sampled link: per chain group, not per leaf). TRUTH gets one line per judged quantity:
 *     KIND WHERE BYTES        KIND inuse|alloc, WHERE a function name or - (the total)
 * Allocated counts every block the allocator returned (a realloc's at its new size, at the
 * realloc's leaf), as drain does (docs/DRAIN.md "Realloc chains"); in use, what is live at exit.
 *
 * The workloads (sizes, live targets and churn are chosen so that every judged quantity has at
 * least about 30 expected samples at the interval the runner gives it):
 *   steady   12 leaves of 16 B .. 192 KiB, about 1 MiB live and 5 MiB allocated each (4 MiB
 *            and 20 MiB for the 16 B and 24 B leaves, whose estimates a raise past 64 KiB
 *            got wrong: issue 36)
 *   grow     the same leaves, each allocating its live target once and freeing nothing
 *   phases   the same leaves: growth to 2x, a mass free of 90 %, regrowth to 1x
 *   lowering growth (raises when the table is small), a mass free of 97 %, two pauses of 1.2 s
 *            (the interval halves after a second below a quarter full), regrowth
 *   chains   realloc chains of 64 B .. 64 KiB grown 2x-16x, some freed, some shrunk
 *   many     64 leaves of 8 .. 72 B, 64 KiB live each
 *   threads  4 threads, 3 leaves each, the steady pattern
 *   smallbig issue 36's first program: 500 000 x 24 B and 10 000 x 3000 B, never freed
 *   long     cycles of growth and mass free with pauses, for many interval changes and 10^7
 *            allocations (CALIB_CYCLES, default 28: about 115 changes, 1.9 x 10^7)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile uintptr_t sink;

#define NLEAF 64
#define NRLEAF 4
/* The leaves: a call that is not a tail call (the store after it), so each has its own frame. */
#define LEAF(n)                                                                                    \
    NOINLINE void *calib_s##n(size_t size)                                                       \
    {                                                                                              \
        void *p = malloc(size);                                                                    \
        sink = (uintptr_t)p;                                                                       \
        return p;                                                                                  \
    }
#define LEAF8(a) LEAF(a##0) LEAF(a##1) LEAF(a##2) LEAF(a##3) LEAF(a##4) LEAF(a##5) LEAF(a##6) LEAF(a##7)
LEAF8(0) LEAF8(1) LEAF8(2) LEAF8(3) LEAF8(4) LEAF8(5) LEAF8(6) LEAF8(7)
#define RLEAF(n)                                                                                   \
    NOINLINE void *calib_r##n(void *old, size_t size)                                            \
    {                                                                                              \
        void *p = realloc(old, size);                                                              \
        sink = (uintptr_t)p;                                                                       \
        return p;                                                                                  \
    }
RLEAF(0) RLEAF(1) RLEAF(2) RLEAF(3)

#define P8(a) calib_s##a##0, calib_s##a##1, calib_s##a##2, calib_s##a##3, calib_s##a##4,           \
              calib_s##a##5, calib_s##a##6, calib_s##a##7
static void *(*const leaf[NLEAF])(size_t) = {P8(0), P8(1), P8(2), P8(3), P8(4), P8(5), P8(6), P8(7)};
static void *(*const rleaf[NRLEAF])(void *, size_t) = {calib_r0, calib_r1, calib_r2, calib_r3};

/* Exact truth, per leaf (malloc leaves 0..63, realloc leaves 64..67) and per group. */
enum { NT = NLEAF + NRLEAF };
struct truth {
    unsigned long long alloc[NT], inuse[NT];
};
static struct truth T;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long chain_inuse; /* live bytes of realloc chains (group calib_chains) */
static unsigned long long nallocs;

/* A generator of the program's own (xorshift64*), seeded per workload and thread. */
static uint64_t next(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1Dull;
}

struct block {
    void *p;
    uint32_t size;
    uint16_t leaf;
};

/* A set of live blocks of one leaf: grow, free at random. */
struct pool {
    struct block *b;
    size_t n, cap;
};

/* The program's own bookkeeping is mapped, never malloc'd: every wrapped allocation is a judged
 * one, so the totals' truth is the leaves' sum. 2^22 blocks of address space a pool (64 MiB,
 * touched as used). */
#define POOL_CAP (1u << 22)
static void pool_push(struct pool *q, struct block b)
{
    if (q->b == NULL) {
        q->b = mmap(NULL, POOL_CAP * sizeof *q->b, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (q->b == MAP_FAILED)
            abort();
        q->cap = POOL_CAP;
    }
    if (q->n == q->cap)
        abort();
    q->b[q->n++] = b;
}

struct local {
    unsigned long long alloc[NT], inuse[NT], n;
};

/* CALIB_RELEASE_AT=N, CALIB_RELEASE_FILE=F: F is created at the N-th allocation (ring-drops: the
 * writer, stopped since before the first, runs again; tests/hosted/freeze_writer.py). */
static unsigned long long release_at;
static const char *release_file;

static void do_alloc(struct local *L, struct pool *q, unsigned lf, uint32_t size)
{
    if (release_at && L->n + 1 == release_at) {
        FILE *f = fopen(release_file, "w");
        if (!f || fclose(f) != 0)
            abort();
    }
    void *p = leaf[lf](size);
    if (!p)
        abort();
    memset(p, 1, size < 64 ? size : 64);
    L->alloc[lf] += size;
    L->inuse[lf] += size;
    L->n++;
    pool_push(q, (struct block){p, size, (uint16_t)lf});
}

static void do_free_at(struct local *L, struct pool *q, size_t i)
{
    struct block b = q->b[i];
    q->b[i] = q->b[--q->n];
    L->inuse[b.leaf] -= b.size;
    free(b.p);
}

static void merge(const struct local *L)
{
    pthread_mutex_lock(&truth_lock);
    for (int i = 0; i < NT; i++) {
        T.alloc[i] += L->alloc[i];
        T.inuse[i] += L->inuse[i];
    }
    nallocs += L->n;
    pthread_mutex_unlock(&truth_lock);
}

/* A leaf's pattern: its block size range and how many bytes it keeps live (target). */
struct leafspec {
    unsigned leaf;
    uint32_t lo, hi;
    unsigned long long live;
};

static uint32_t size_of(uint64_t *rng, const struct leafspec *s)
{
    return s->hi > s->lo ? s->lo + (uint32_t)(next(rng) % (s->hi - s->lo + 1u)) : s->lo;
}

/* Churns the leaves: `steps` allocations, each leaf picked in proportion to its share of the
 * allocated bytes' count (every leaf allocates about `churn` x its live target in bytes), each
 * leaf freeing a random live block of its own while above `scale` x its live target. */
static void churn(struct local *L, struct pool *pools, const struct leafspec *sp, int nsp,
                  uint64_t *rng, double scale, double churn_x)
{
    /* interleave the leaves: each step allocates for one leaf chosen at random, weighted by
     * its allocation count */
    unsigned long long left[64], total = 0;
    for (int k = 0; k < nsp; k++) {
        double mean = (sp[k].lo + sp[k].hi) / 2.0;
        left[k] = (unsigned long long)(sp[k].live * churn_x / mean) + 1;
        total += left[k];
    }
    while (total > 0) {
        unsigned long long r = next(rng) % total;
        int k = 0;
        while (r >= left[k])
            r -= left[k++];
        left[k]--;
        total--;
        const struct leafspec *s = &sp[k];
        struct pool *q = &pools[k];
        unsigned long long target = (unsigned long long)(s->live * scale);
        do_alloc(L, q, s->leaf, size_of(rng, s));
        while (q->n > 1 && L->inuse[s->leaf] > target)
            do_free_at(L, q, (size_t)(next(rng) % q->n));
    }
}

/* Frees all but `keep` (a fraction) of each pool's blocks, at random. */
static void mass_free(struct local *L, struct pool *pools, int nsp, uint64_t *rng, double keep)
{
    for (int k = 0; k < nsp; k++) {
        struct pool *q = &pools[k];
        size_t stay = (size_t)(q->n * keep);
        while (q->n > stay)
            do_free_at(L, q, (size_t)(next(rng) % q->n));
    }
}

static const struct leafspec steady_leaves[12] = {
    {0, 16, 16, 4 << 20},          {1, 24, 24, 4 << 20},         {2, 40, 56, 1 << 20},
    {3, 64, 64, 1 << 20},          {4, 100, 140, 1 << 20},       {5, 256, 256, 1 << 20},
    {6, 500, 1500, 1 << 20},       {7, 4096, 4096, 1 << 20},     {8, 6000, 10000, 1 << 20},
    {9, 30000, 30000, 1 << 20},    {10, 100000, 140000, 2 << 20}, {11, 196608, 196608, 3 << 20},
};

NOINLINE static void calib_steady(uint64_t *rng)
{
    static struct pool pools[12];
    struct local L = {0};
    churn(&L, pools, steady_leaves, 12, rng, 1.0, 5.0);
    merge(&L);
}

/* Growth only: every leaf allocates its live target once and frees nothing (the table's raises
 * come from the growth, and the entries sampled before each raise live to the end). */
NOINLINE static void calib_grow(uint64_t *rng)
{
    static struct pool pools[12];
    struct local L = {0};
    churn(&L, pools, steady_leaves, 12, rng, 1e9, 1.0);
    merge(&L);
}

NOINLINE static void calib_phases(uint64_t *rng)
{
    static struct pool pools[12];
    struct local L = {0};
    churn(&L, pools, steady_leaves, 12, rng, 2.0, 3.0); /* growth to 2x */
    mass_free(&L, pools, 12, rng, 0.1);                  /* 90 % freed */
    churn(&L, pools, steady_leaves, 12, rng, 1.0, 2.0);  /* regrowth */
    merge(&L);
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

NOINLINE static void calib_lowering(uint64_t *rng)
{
    static struct pool pools[12];
    struct local L = {0};
    churn(&L, pools, steady_leaves, 12, rng, 1.0, 2.0); /* growth: raises on a small table */
    mass_free(&L, pools, 12, rng, 0.03);
    for (int i = 0; i < 2; i++) { /* each pause: a lowering, told by the next sampled allocations */
        pause_ms(1200);
        churn(&L, pools, steady_leaves, 12, rng, 0.03, 0.05);
    }
    churn(&L, pools, steady_leaves, 12, rng, 0.5, 1.0); /* regrowth at the lowered interval */
    merge(&L);
}

NOINLINE static void calib_long(uint64_t *rng)
{
    static struct pool pools[12];
    struct local L = {0};
    const char *e = getenv("CALIB_CYCLES");
    int cycles = e ? atoi(e) : 28;
    for (int c = 0; c < cycles; c++) {
        churn(&L, pools, steady_leaves, 12, rng, 1.0, 4.0);
        mass_free(&L, pools, 12, rng, 0.03);
        pause_ms(1100);
        churn(&L, pools, steady_leaves, 12, rng, 0.03, 0.05);
        pause_ms(1100);
        churn(&L, pools, steady_leaves, 12, rng, 0.03, 0.05);
    }
    churn(&L, pools, steady_leaves, 12, rng, 1.0, 1.0);
    merge(&L);
}

NOINLINE static void calib_many(uint64_t *rng)
{
    static struct pool pools[NLEAF];
    static struct leafspec sp[NLEAF];
    struct local L = {0};
    for (unsigned i = 0; i < NLEAF; i++)
        sp[i] = (struct leafspec){i, 8 + (i % 8) * 8, 8 + (i % 8) * 8, 64 << 10};
    churn(&L, pools, sp, NLEAF, rng, 1.0, 4.0);
    merge(&L);
}

/* Realloc chains: a block malloc'd at calib_s20..s23 (64 B .. 64 KiB), grown by realloc at
 * calib_r0 (x2, up to 4 times) and calib_r1 (x1.5), some shrunk at calib_r2, a third freed. */
NOINLINE static void calib_chains(uint64_t *rng)
{
    struct local L = {0};
    struct pool q = {0};
    for (int i = 0; i < 40000; i++) {
        unsigned lf = 20 + (unsigned)(next(rng) % 4);
        uint32_t size = 64u << (next(rng) % 11); /* 64 B .. 64 KiB */
        void *p = leaf[lf](size);
        if (!p)
            abort();
        L.alloc[lf] += size;
        L.n++;
        uint16_t first = (uint16_t)lf;
        int grows = (int)(next(rng) % 5);
        for (int g = 0; g < grows; g++) {
            unsigned r = (next(rng) & 1) ? 0 : 1;
            size = r == 0 ? size * 2 : size + size / 2;
            p = rleaf[r](p, size);
            if (!p)
                abort();
            L.alloc[NLEAF + r] += size;
            L.n++;
        }
        if (next(rng) % 4 == 0) {
            size = size / 2 + 1;
            p = rleaf[2](p, size);
            if (!p)
                abort();
            L.alloc[NLEAF + 2] += size;
            L.n++;
        }
        if (next(rng) % 3 == 0) {
            free(p);
        } else {
            chain_inuse += size;
            pool_push(&q, (struct block){p, size, first});
            (void)first;
        }
    }
    merge(&L);
}

/* Issue 36's first program: 500 000 blocks of 24 B and 10 000 of 3000 B (leaves 60 and 61), in a
 * random order, never freed. At 16 KiB with 1024 slots (two raises) its 24 B leaf read -20 %. */
NOINLINE static void calib_smallbig(uint64_t *rng)
{
    static struct pool pools[2];
    struct local L = {0};
    unsigned long long left[2] = {500000, 10000};
    while (left[0] + left[1] > 0) {
        int k = next(rng) % (left[0] + left[1]) < left[0] ? 0 : 1;
        left[k]--;
        do_alloc(&L, &pools[k], 60u + (unsigned)k, k == 0 ? 24u : 3000u);
    }
    merge(&L);
}

struct thread_arg {
    uint64_t seed;
    int index;
};

static void *thread_main(void *a)
{
    struct thread_arg *t = a;
    uint64_t rng = t->seed;
    static struct pool pools[4][3];
    struct leafspec sp[3];
    for (int k = 0; k < 3; k++) {
        sp[k] = steady_leaves[(t->index * 3 + k) % 12];
        sp[k].leaf = (unsigned)(32 + t->index * 3 + k);
    }
    struct local L = {0};
    churn(&L, pools[t->index], sp, 3, &rng, 1.0, 5.0);
    merge(&L);
    return NULL;
}

NOINLINE static void calib_threads(uint64_t *rng)
{
    pthread_t th[4];
    struct thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (struct thread_arg){next(rng) | 1, i};
        if (pthread_create(&th[i], NULL, thread_main, &args[i]) != 0)
            abort();
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
}

static void leaf_name(int i, char *out, size_t n)
{
    if (i < NLEAF)
        snprintf(out, n, "calib_s%d%d", i / 8, i % 8); /* LEAF8(a)'s leaf b: 8a + b */
    else
        snprintf(out, n, "calib_r%d", i - NLEAF);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s steady|grow|phases|lowering|chains|many|threads|long|smallbig SEED TRUTH\n",
                argv[0]);
        return 2;
    }
    const char *w = argv[1];
    uint64_t rng = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull + 0x1234567ull;
    if (rng == 0)
        rng = 1;
    int chains = 0;
    /* CALIB_PAUSE_MS: a pause before the workload. CALIB_WAIT_FILE: the workload starts once
     * the file exists (ring-drops: freeze_writer.py creates it when the writer thread is stopped,
     * so the allocations that follow fill the ring whatever the machine's load). */
    const char *pause = getenv("CALIB_PAUSE_MS"), *wait = getenv("CALIB_WAIT_FILE");
    if (pause)
        pause_ms(atol(pause));
    for (int ms = 0; wait && access(wait, F_OK) != 0; ms++) {
        if (ms == 30000) {
            fprintf(stderr, "calib_app: %s did not appear in 30 s\n", wait);
            return 1;
        }
        pause_ms(1);
    }
    release_file = getenv("CALIB_RELEASE_FILE");
    if (release_file && getenv("CALIB_RELEASE_AT"))
        release_at = strtoull(getenv("CALIB_RELEASE_AT"), NULL, 10);
    if (!strcmp(w, "steady"))
        calib_steady(&rng);
    else if (!strcmp(w, "grow"))
        calib_grow(&rng);
    else if (!strcmp(w, "phases"))
        calib_phases(&rng);
    else if (!strcmp(w, "lowering"))
        calib_lowering(&rng);
    else if (!strcmp(w, "long"))
        calib_long(&rng);
    else if (!strcmp(w, "many"))
        calib_many(&rng);
    else if (!strcmp(w, "chains"))
        calib_chains(&rng), chains = 1;
    else if (!strcmp(w, "threads"))
        calib_threads(&rng);
    else if (!strcmp(w, "smallbig"))
        calib_smallbig(&rng);
    else {
        fprintf(stderr, "%s: unknown workload %s\n", argv[0], w);
        return 2;
    }
    FILE *f = fopen(argv[3], "w");
    if (!f) {
        perror(argv[3]);
        return 1;
    }
    unsigned long long ta = 0, ti = 0;
    char name[32];
    for (int i = 0; i < NT; i++) {
        if (T.alloc[i] == 0)
            continue;
        leaf_name(i, name, sizeof name);
        fprintf(f, "alloc %s %llu\n", name, T.alloc[i]);
        if (!chains)
            fprintf(f, "inuse %s %llu\n", name, T.inuse[i]);
        ta += T.alloc[i];
        ti += T.inuse[i];
    }
    if (chains) {
        fprintf(f, "inuse calib_chains %llu\n", chain_inuse);
        ti = chain_inuse;
    }
    fprintf(f, "alloc - %llu\ninuse - %llu\n", ta, ti);
    fprintf(f, "# allocations %llu\n", nallocs);
    return fclose(f) == 0 ? 0 : 1;
}
