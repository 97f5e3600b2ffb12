/* Every allocator call from a known function, each through one wrapper of the fast-path design
 * (malloc, calloc, realloc of a new, an unsampled and a sampled block, free): run with
 * MSAMP_INTERVAL=1, every call is sampled, and frames.sh checks that each sampled stack starts at
 * the calling function, then its caller (the slow path's own frame skipped exactly: no wrapper or
 * slow-path frame above the application's). */
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

void *volatile keep[64];

/* The barrier after each call keeps it out of tail position (a tail call leaves no frame). */
#define AFTER(p) __asm__ volatile("" : "+r"(p)::"memory")

NOINLINE static void *site_malloc(size_t n)
{
    void *p = malloc(n);
    AFTER(p);
    return p;
}

NOINLINE static void *site_calloc(size_t n)
{
    void *p = calloc(n, 4);
    AFTER(p);
    return p;
}

NOINLINE static void *site_realloc_new(size_t n)
{
    void *p = realloc(NULL, n);
    AFTER(p);
    return p;
}

NOINLINE static void *site_realloc_grow(void *p, size_t n)
{
    p = realloc(p, n);
    AFTER(p);
    return p;
}

NOINLINE static void caller_one(int i)
{
    keep[i % 64] = site_malloc(24 + (size_t)i % 100);
    __asm__ volatile("" ::: "memory"); /* no tail call into the site */
}

NOINLINE static void caller_two(int i)
{
    void *p = site_calloc(8 + (size_t)i % 50);
    p = site_realloc_grow(p, 4096 + (size_t)i);
    free(p);
    __asm__ volatile("" ::: "memory");
}

NOINLINE static void caller_three(int i)
{
    void *p = site_realloc_new(40 + (size_t)i % 30);
    free(keep[i % 64]);
    keep[i % 64] = p;
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    for (int i = 0; i < 2000; i++) {
        caller_one(i);
        caller_two(i);
        caller_three(i);
    }
    for (int i = 0; i < 64; i++)
        free(keep[i]);
    return 0;
}
