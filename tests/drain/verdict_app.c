/*
 * The verdict tests' hosted program (tests/verdict/t_*.sh): linked against the hosted library,
 * it allocates from 24 sites (functions site_00 ... site_23) of known sizes and counts, keeping
 * some blocks live and freeing the others, and writes the truth per site:
 *   "site NAME alloc_objects alloc_bytes inuse_objects inuse_bytes".
 * Sizes span 24 B to 64 KiB and counts are chosen so every site expects at least ~8 samples at a
 * 16 KiB interval. With VERDICT_MORE=1 site_07 keeps 25 % more blocks (a build that keeps more at
 * one site: the diff test's).
 * VERDICT_HOLD=1 adds site hold_site (docs/VERDICTS.md "No live sample"): 2000 blocks of 100 000 B
 * allocated and freed at once, and HOLD_KEEP blocks of the same size among them kept to the end
 * (400 000 B live): at the default hosted interval (512 KiB) about half the runs keep no sample of
 * them (exp(-400000/524288) = 0.47).
 * VERDICT_TLS=1 runs nothing else but TLS-handshake-like bursts (docs/VERDICTS.md "The peak"):
 * TLS_ROUNDS rounds, each 3-5 blocks of 2-12 KB (6-60 KB in all) allocated, touched and freed;
 * it writes "peak BYTES", the exact peak of its own blocks (it allocates nothing else before the
 * truth file is opened, after the last is freed).
 * usage: verdict_app TRUTH.txt   (MSAMP_OUTPUT, MSAMP_INTERVAL, MSAMP_SEED as for any program)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

#define NSITES 24
static volatile uintptr_t sink;
static unsigned long an[NSITES], ab[NSITES], in_[NSITES], ib[NSITES];
static void **held;
static size_t nheld, capheld;

static void keep(void *p)
{
    if (nheld == capheld) {
        capheld = capheld ? 2 * capheld : 4096;
        held = realloc(held, capheld * sizeof(*held));
        if (!held)
            abort();
    }
    held[nheld++] = p;
}

/* Site k: count blocks of size bytes; every keep_every-th stays live (0: none). */
#define SITE(k)                                                                                    \
    NOINLINE static void site_##k(size_t size, unsigned count, unsigned keep_every)               \
    {                                                                                              \
        for (unsigned i = 0; i < count; i++) {                                                     \
            void *p = malloc(size);                                                                \
            sink = (uintptr_t)p;                                                                   \
            an[k]++;                                                                               \
            ab[k] += size;                                                                         \
            if (keep_every && i % keep_every == 0) {                                               \
                in_[k]++;                                                                          \
                ib[k] += size;                                                                     \
                keep(p);                                                                           \
            } else {                                                                               \
                free(p);                                                                           \
            }                                                                                      \
        }                                                                                          \
    }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7) SITE(8) SITE(9) SITE(10) SITE(11)
SITE(12) SITE(13) SITE(14) SITE(15) SITE(16) SITE(17) SITE(18) SITE(19) SITE(20) SITE(21)
SITE(22) SITE(23)

#define HOLD_KEEP 4
#define HOLD_SIZE 100000
#define HOLD_CHURN 2000
static unsigned long hold_an, hold_ab, hold_in, hold_ib;

/* One call site (one stack): HOLD_CHURN blocks freed at once, HOLD_KEEP kept among them. */
NOINLINE static void hold_site(void)
{
    for (unsigned i = 0; i < HOLD_CHURN; i++) {
        void *p = malloc(HOLD_SIZE);
        if (!p)
            abort();
        ((volatile char *)p)[0] = 1;
        hold_an++;
        hold_ab += HOLD_SIZE;
        if (i % (HOLD_CHURN / HOLD_KEEP) == HOLD_CHURN / HOLD_KEEP / 2) {
            hold_in++;
            hold_ib += HOLD_SIZE;
            keep(p);
        } else {
            free(p);
        }
    }
}

#define TLS_ROUNDS 300
static unsigned long tls_inuse, tls_peak;

/* A pseudo-random number (xorshift: the program's own, from MSAMP_SEED, not the library's). */
static uint32_t tls_rand(void)
{
    static uint32_t x;
    if (!x) {
        const char *seed = getenv("MSAMP_SEED");
        x = 2463534242u ^ (uint32_t)(seed ? strtoul(seed, NULL, 0) * 2654435761u : 0);
        x = x ? x : 1;
    }
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return x;
}

NOINLINE static void *tls_alloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    ((volatile char *)p)[n - 1] = 1;
    tls_inuse += n;
    if (tls_inuse > tls_peak)
        tls_peak = tls_inuse;
    return p;
}

/* One handshake: 3-5 blocks of 2-12 KB, at most 60 KB, held together then freed. */
NOINLINE static void tls_handshake(void)
{
    void *b[5];
    size_t sz[5];
    unsigned n = 3 + tls_rand() % 3;
    for (unsigned i = 0; i < n; i++) {
        sz[i] = 2048 + tls_rand() % (10 * 1024);
        b[i] = tls_alloc(sz[i]);
    }
    for (unsigned i = n; i-- > 0;) {
        free(b[i]);
        tls_inuse -= sz[i];
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: verdict_app TRUTH.txt\n");
        return 2;
    }
    const char *more = getenv("VERDICT_MORE"), *hold = getenv("VERDICT_HOLD");
    const char *tls = getenv("VERDICT_TLS");
    int m = more && more[0] == '1';
    if (tls && tls[0] == '1') {
        for (unsigned r = 0; r < TLS_ROUNDS; r++)
            tls_handshake();
        FILE *f = fopen(argv[1], "w");
        if (!f)
            return 1;
        fprintf(f, "peak %lu\n", tls_peak);
        return fclose(f) != 0;
    }
    site_0(24, 60000, 2);
    site_1(40, 40000, 1);
    site_2(64, 30000, 3);
    site_3(100, 20000, 0);
    site_4(128, 20000, 1);
    site_5(256, 8000, 2);
    site_6(500, 5000, 1);
    site_7(64, m ? 125000 : 100000, 1);
    site_8(1000, 3000, 4);
    site_9(1500, 2000, 1);
    site_10(2048, 2000, 0);
    site_11(3000, 1500, 2);
    site_12(4096, 1000, 1);
    site_13(6000, 600, 3);
    site_14(8192, 400, 1);
    site_15(10000, 400, 0);
    site_16(16384, 200, 2);
    site_17(20000, 150, 1);
    site_18(32768, 100, 5);
    site_19(40000, 80, 1);
    site_20(65536, 60, 2);
    site_21(33, 50000, 7);
    site_22(777, 4000, 3);
    site_23(12345, 300, 1);
    if (hold && hold[0] == '1')
        hold_site();
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    for (int k = 0; k < NSITES; k++)
        fprintf(f, "site site_%d %lu %lu %lu %lu\n", k, an[k], ab[k], in_[k], ib[k]);
    if (hold && hold[0] == '1')
        fprintf(f, "site hold_site %lu %lu %lu %lu\n", hold_an, hold_ab, hold_in, hold_ib);
    return fclose(f) != 0;
}
