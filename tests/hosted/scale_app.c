/*
 * A live set far larger than msamp's live table, for the adaptive interval's scale test
 * (tests/hosted/scale.sh) and bench (tests/bench/estimate.sh). Six allocation sites, each a
 * distinct noinline function with one block size (24 B to 1 MiB), keep about 10^6 blocks (about
 * 370 MB) live until exit, and allocate-and-free short-lived blocks of the same sizes in between;
 * the rounds are interleaved so that no site owns a stretch of the run. The counts are fixed in
 * advance (plan()), so the truth does not depend on the run:
 *     scale_app PERMILLE N
 *     site NAME SIZE ALLOCATED LIVE        (one line per site, counts of blocks)
 *     total ALLOCATED_BYTES LIVE_BYTES LIVE_BLOCKS
 * At the end it prints msamp_get_stats() on one line ("stats interval=... live_full=..."), after
 * the program's allocations and before msamp's final flush.
 * Usage: scale_app [-n] TRUTH_FILE [PERMILLE]
 *   PERMILLE (default 1000, 1..2000) scales every count (a site keeps at least one block of each
 *   kind it has); -n writes the truth and allocates nothing.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "msamp.h"

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile uintptr_t sink;

/* Distinct bodies (no identical-code folding), no tail calls (the hosted.mk flags): each site is
 * the innermost frame of its blocks' stacks. */
NOINLINE static void *site_tiny(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 1;
    return p;
}

NOINLINE static void *site_small(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 2;
    return p;
}

NOINLINE static void *site_medium(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 3;
    return p;
}

NOINLINE static void *site_page(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 4;
    return p;
}

NOINLINE static void *site_big(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 5;
    return p;
}

NOINLINE static void *site_huge(size_t n)
{
    void *p = malloc(n);
    sink ^= (uintptr_t)p + 6;
    return p;
}

struct site {
    const char *name;
    void *(*fn)(size_t);
    size_t size;
    unsigned long live, brief; /* at PERMILLE 1000: blocks kept, blocks allocated and freed */
};

/* Live bytes at PERMILLE 1000: tiny 15.6 MB (4.2 %), small 44.8 MB (12.1 %), medium 49.2 MB
 * (13.2 %), page 52.4 MB (14.1 %), big 52.4 MB (14.1 %), huge 157.3 MB (42.3 %): 371.7 MB in
 * 1002650 blocks; 633.4 MB allocated. Why these: tests/hosted/scale.sh's header. */
static struct site sites[] = {
    {"site_tiny", site_tiny, 24, 650000, 300000},
    {"site_small", site_small, 128, 350000, 350000},
    {"site_medium", site_medium, 32768, 1500, 1000},
    {"site_page", site_page, 65536, 800, 1500},
    {"site_big", site_big, 262144, 200, 100},
    {"site_huge", site_huge, 1048576, 150, 50},
};
#define NSITES (sizeof sites / sizeof sites[0])

static unsigned long scaled(unsigned long n, unsigned permille)
{
    unsigned long v = (n * permille + 500) / 1000;
    return v == 0 && n > 0 ? 1 : v;
}

/* Blocks due in round r of m when n are spread evenly over the m rounds. */
static unsigned long due(unsigned long r, unsigned long n, unsigned long m)
{
    return (r + 1) * n / m - r * n / m;
}

int main(int argc, char **argv)
{
    int dry = 0;
    if (argc > 1 && strcmp(argv[1], "-n") == 0) {
        dry = 1;
        argv++;
        argc--;
    }
    unsigned permille = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
    if (argc < 2 || argc > 3 || permille == 0 || permille > 2000) {
        fprintf(stderr, "usage: scale_app [-n] TRUTH_FILE [PERMILLE]\n");
        return 2;
    }

    unsigned long live[NSITES], brief[NSITES], rounds = 0, nlive = 0;
    for (unsigned k = 0; k < NSITES; k++) {
        live[k] = scaled(sites[k].live, permille);
        brief[k] = scaled(sites[k].brief, permille);
        nlive += live[k];
        if (live[k] > rounds)
            rounds = live[k];
        if (brief[k] > rounds)
            rounds = brief[k];
    }

    if (!dry) {
        /* The held pointers live outside the heap (mmap): the program's only heap blocks are the
         * sites'. */
        void **held = mmap(NULL, nlive * sizeof *held, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (held == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        unsigned long nheld = 0;
        for (unsigned long r = 0; r < rounds; r++)
            for (unsigned k = 0; k < NSITES; k++) {
                unsigned long nb = due(r, brief[k], rounds), nl = due(r, live[k], rounds);
                void *tmp = nb ? sites[k].fn(sites[k].size) : NULL;
                for (unsigned long j = 0; j < nl; j++) {
                    void *p = sites[k].fn(sites[k].size);
                    if (p == NULL || nheld == nlive)
                        abort();
                    held[nheld++] = p;
                }
                if (tmp == NULL && nb)
                    abort();
                free(tmp);
                for (unsigned long j = 1; j < nb; j++) {
                    void *p = sites[k].fn(sites[k].size);
                    if (p == NULL)
                        abort();
                    free(p);
                }
            }
        if (nheld != nlive)
            abort();
        /* The blocks stay allocated until exit: live at msamp's final flush. */
    }

    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror(argv[1]);
        return 2;
    }
    unsigned long long abytes = 0, lbytes = 0;
    fprintf(out, "scale_app %u %zu\n", permille, NSITES);
    for (unsigned k = 0; k < NSITES; k++) {
        fprintf(out, "site %s %zu %lu %lu\n", sites[k].name, sites[k].size, live[k] + brief[k],
                live[k]);
        abytes += (unsigned long long)sites[k].size * (live[k] + brief[k]);
        lbytes += (unsigned long long)sites[k].size * live[k];
    }
    fprintf(out, "total %llu %llu %lu\n", abytes, lbytes, nlive);
    if (fclose(out) != 0) {
        perror(argv[1]);
        return 2;
    }

    struct msamp_stats s;
    if (!dry && msamp_get_stats(&s) == 0)
        printf("stats interval=%u raises=%u lowers=%u thinned=%u samples=%u frees=%u live_used=%u "
               "live_capacity=%u live_full=%u stack_full=%u stacks_used=%u ring_records=%u\n",
               s.interval, s.raises, s.lowers, s.thinned, s.samples, s.frees, s.live_used,
               s.live_capacity, s.live_full, s.stack_full, s.stacks_used, s.ring_records);
    printf("scale_app: %lu blocks live (%llu bytes), %llu bytes allocated\n", nlive, lbytes,
           abytes);
    return 0;
}
