/*
 * The marks test's hosted program (tests/drain/t_marks.sh): three sites of known truth, run at
 * MSAMP_INTERVAL=1 (every allocation sampled) so a small live table (MSAMP_LIVE_CAPACITY) refuses
 * samples where the program keeps more blocks than it has slots:
 *   churn_site  CHURN malloc(100) + free pairs: nothing kept (done first, while slots are free)
 *   grow_site   one buffer realloc'd GROW times, 64 bytes more each time, then freed: a realloc
 *               chain the device counts a free for at each link
 *   keep_site   KEEP blocks of 1000 bytes, kept live to the end (past the table's capacity: the
 *               samples beyond it are refused, live_full)
 * and writes the truth: "site NAME alloc_objects alloc_bytes inuse_objects inuse_bytes".
 * usage: refuse_app TRUTH.txt KEEP CHURN GROW   (MSAMP_OUTPUT etc. as for any program)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

static volatile uintptr_t sink;

NOINLINE static void churn_site(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) {
        void *p = malloc(100);
        sink = (uintptr_t)p;
        free(p);
    }
}

NOINLINE static void grow_site(unsigned long n)
{
    char *b = NULL;
    for (unsigned long i = 0; i < n; i++) {
        char *q = realloc(b, 64 * (i + 1));
        if (!q)
            abort();
        b = q;
        b[0] = (char)i;
    }
    free(b);
}

NOINLINE static void **keep_site(unsigned long n)
{
    void **held = calloc(n + 1, sizeof(*held)); /* sampled too: one more live block */
    if (!held)
        abort();
    for (unsigned long i = 0; i < n; i++) {
        held[i] = malloc(1000);
        if (!held[i])
            abort();
    }
    return held;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: refuse_app TRUTH.txt KEEP CHURN GROW\n");
        return 2;
    }
    unsigned long keep = strtoul(argv[2], NULL, 10), churn = strtoul(argv[3], NULL, 10),
                  grow = strtoul(argv[4], NULL, 10);
    churn_site(churn);
    grow_site(grow);
    void **held = keep_site(keep);
    sink = (uintptr_t)held;
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    fprintf(f, "site churn_site %lu %lu 0 0\n", churn, churn * 100);
    fprintf(f, "site grow_site %lu %lu 0 0\n", grow, 64 * grow * (grow + 1) / 2);
    fprintf(f, "site keep_site %lu %lu %lu %lu\n", keep, keep * 1000, keep, keep * 1000);
    return fclose(f) != 0;
}
