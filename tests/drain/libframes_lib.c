/* The shared library of libframes_app (tests/drain/t_libframes.sh): its functions call back into
 * the program, whose callback allocates, so each sampled stack passes through this library's
 * frames (built with frame pointers, split debug information beside it; lf_inner is hidden: only the
 * debug file names it). */
#include <stddef.h>

typedef void (*lf_cb)(size_t n);

/* Not inlined and not a tail call: each library frame stays on the stack. */
__attribute__((noinline, visibility("hidden"))) void lf_inner(lf_cb cb, size_t n)
{
    cb(n);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void lf_walk(lf_cb cb, size_t count, size_t n)
{
    for (size_t i = 0; i < count; i++)
        lf_inner(cb, n);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void lf_direct(lf_cb cb, size_t count, size_t n)
{
    for (size_t i = 0; i < count; i++)
        cb(n);
    __asm__ volatile("" ::: "memory");
}
