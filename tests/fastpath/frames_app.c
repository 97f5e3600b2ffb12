/* Every allocator call from a known function, each through one wrapper of the fast-path design
 * (malloc, calloc, realloc of a new and of a sampled block, the aligned allocators, free): run with
 * MSAMP_INTERVAL=1, every call is sampled, and frames.sh checks that each sampled stack starts at
 * the calling function, then its caller (the slow path's own frame skipped exactly: no wrapper or
 * slow-path frame above the application's). */
#include <malloc.h>
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

NOINLINE static void *site_aligned(size_t n)
{
    void *p = aligned_alloc(64, n);
    AFTER(p);
    return p;
}

NOINLINE static void *site_memalign(size_t n)
{
    void *p = memalign(128, n);
    AFTER(p);
    return p;
}

NOINLINE static void *site_posix_memalign(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 256, n) != 0)
        abort();
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

NOINLINE static void caller_four(int i)
{
    free(site_aligned(64 + (size_t)i % 64));
    free(site_memalign(32 + (size_t)i % 64));
    free(site_posix_memalign(16 + (size_t)i % 64));
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    for (int i = 0; i < 2000; i++) {
        caller_one(i);
        caller_two(i);
        caller_three(i);
        caller_four(i);
    }
    for (int i = 0; i < 64; i++)
        free(keep[i]);
    return 0;
}
