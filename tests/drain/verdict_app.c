/*
 * The verdict tests' hosted program (tests/verdict/t_*.sh): linked against the hosted library,
 * it allocates from 24 sites (functions site_00 ... site_23) of known sizes and counts, keeping
 * some blocks live and freeing the others, and writes the truth per site:
 *   "site NAME alloc_objects alloc_bytes inuse_objects inuse_bytes".
 * Sizes span 24 B to 64 KiB and counts are chosen so every site expects at least ~8 samples at a
 * 16 KiB interval. With VERDICT_MORE=1 site_07 keeps 25 % more blocks (a build that keeps more at
 * one site: the diff test's).
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

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: verdict_app TRUTH.txt\n");
        return 2;
    }
    const char *more = getenv("VERDICT_MORE");
    int m = more && more[0] == '1';
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
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    for (int k = 0; k < NSITES; k++)
        fprintf(f, "site site_%d %lu %lu %lu %lu\n", k, an[k], ab[k], in_[k], ib[k]);
    return fclose(f) != 0;
}
