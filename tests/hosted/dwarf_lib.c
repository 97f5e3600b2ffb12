/*
 * A shared library built with -O2 -fomit-frame-pointer for the DWARF-stacks test, as Debian builds
 * its own: the frame-pointer register is a general one here, so a frame-chain walk that reaches
 * these frames ends (or reads data), and only the call frame information (.eh_frame) leads on.
 * nofp_so_chain recurses depth times, then allocates through the function it was given (the
 * program passes malloc itself: msamp's wrapper is then called straight from this code).
 */
#include <stddef.h>
#include <stdint.h>

void *nofp_so_chain(unsigned depth, size_t n, void *(*alloc)(size_t));

static volatile uintptr_t nofp_so_sink;

/* Enough values live across the call that the compiler spends the frame-pointer register too. */
__attribute__((noinline)) void *nofp_so_chain(unsigned depth, size_t n, void *(*alloc)(size_t))
{
    uintptr_t a = depth * 3u, b = depth ^ 0x55u, c = depth + n, d = n * 7u, e = n ^ depth,
              f = depth << 3, g = n >> 1, h = depth * n;
    void *p = depth <= 1 ? alloc(n) : nofp_so_chain(depth - 1, n, alloc);

    nofp_so_sink = a + b + c + d + e + f + g + h + (uintptr_t)p;
    return p;
}
