/*
 * Code built with -fomit-frame-pointer for the unwinder-safety test: the frame-pointer register is
 * a general register here, so a walk that reaches these frames finds data, not a frame record.
 */
#include <stdint.h>
#include <stdlib.h>

void *nofp_alloc_chain(unsigned depth, size_t n);
void nofp_free(void *p);

static volatile uintptr_t nofp_sink;

/* Enough values live across the call that the compiler spends the frame-pointer register too. */
__attribute__((noinline)) void *nofp_alloc_chain(unsigned depth, size_t n)
{
    uintptr_t a = depth * 3u, b = depth ^ 0x55u, c = depth + n, d = n * 7u, e = n ^ depth,
              f = depth << 3, g = n >> 1, h = depth * n;
    void *p;

    if (depth <= 1)
        p = malloc(n);
    else
        p = nofp_alloc_chain(depth - 1, n);
    nofp_sink = a + b + c + d + e + f + g + h + (uintptr_t)p;
    return p;
}

__attribute__((noinline)) void nofp_free(void *p)
{
    nofp_sink ^= (uintptr_t)p;
    free(p);
}
