/* Allocation failures in a hosted program, for drain-failures (t_fail.sh): known counts of NULL
 * returns at known sites (malloc, calloc overflowing, realloc, posix_memalign), errno as the C
 * library set it, and ordinary allocations around them. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Read at run time: the compiler must not see the requests fail. */
static volatile size_t huge_v = (size_t)1 << 62, quarter_v = SIZE_MAX / 4;
#define HUGE huge_v

__attribute__((noinline)) static void *grab_huge(size_t n)
{
    return malloc(n);
}

__attribute__((noinline)) static void *grab_table(size_t n)
{
    return calloc(n, quarter_v); /* n * size overflows: reported as SIZE_MAX bytes */
}

__attribute__((noinline)) static void *grow_log(void *p, size_t n)
{
    return realloc(p, n);
}

__attribute__((noinline)) static int grab_aligned(void **out, size_t n)
{
    return posix_memalign(out, 64, n);
}

int main(void)
{
    static volatile int five = 5, three = 3, two = 2; /* loops the compiler cannot unroll */
    int bad = 0;
    for (int i = 0; i < five; i++) {
        errno = 0;
        if (grab_huge(HUGE) != NULL || errno != ENOMEM)
            bad++;
    }
    for (int i = 0; i < three; i++)
        if (grab_table(8) != NULL)
            bad++;
    char *log = malloc(100);
    for (int i = 0; i < two; i++)
        if (grow_log(log, HUGE) != NULL)
            bad++;
    free(log);
    void *p = NULL;
    if (grab_aligned(&p, HUGE) != ENOMEM)
        bad++;
    for (int i = 0; i < 1000; i++)
        free(malloc(64 + (size_t)i));
    if (bad)
        fprintf(stderr, "fail_app: %d calls did not fail as expected\n", bad);
    return bad != 0;
}
