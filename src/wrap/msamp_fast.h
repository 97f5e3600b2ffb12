/* The allocation paths' inline parts: the fast path's charge, the notes of the wrappers that call
 * the allocator first and of the msamp_on_* hooks, and the nesting guard of a wrapper's call of
 * the real allocator. Only the wrappers (src/wrap/), msamp_hooks.c and msamp_note_realloc.c include
 * it; the slow paths they call are declared in msamp_internal.h (msamp_sample.c). */
#ifndef MSAMP_FAST_H
#define MSAMP_FAST_H

#include "../msamp_internal.h"

/* The fast path's charge: size bytes off the context's countdown. 0 when the countdown does not
 * cover them (a sample is due, the countdown was reset, or the request is above MSAMP_FAST_MAX):
 * then the slow path decides, with the countdown left as it was. */
static inline int msamp_charge(struct msamp_context *c, size_t size)
{
    uintptr_t left;
    if (__builtin_sub_overflow(atomic_load_explicit(&c->countdown, memory_order_relaxed),
                               (uintptr_t)size, &left))
        return 0;
    atomic_store_explicit(&c->countdown, left, memory_order_relaxed);
    return 1;
}

/* After the fact, for the wrappers that call the allocator first (C++'s operator new) and the
 * msamp_on_* hooks: charge size; the slow path when a sample is due. */
static inline void msamp_note_alloc(void *p, size_t size, const void *frame)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
#if MSAMP_CFG_FAILURES
    if (MSAMP_UNLIKELY(p == NULL)) {
        if (size != 0)
            msamp_fail_slow(c, size, frame, MSAMP_FAIL_NULL);
        return;
    }
#endif
    if (MSAMP_LIKELY(msamp_charge(c, size)))
        return;
    msamp_alloc_slow(c, p, size, frame);
}

/* An allocation that failed without a result to look at (posix_memalign's error, a failed
 * realloc), or one the giant guard refused (kind MSAMP_FAIL_GIANT). */
static inline void msamp_note_fail(size_t size, const void *frame, unsigned kind)
{
#if MSAMP_CFG_FAILURES
    msamp_fail_slow(MSAMP_PORT_CONTEXT(), size, frame, kind);
#else
    (void)size;
    (void)frame;
    (void)kind;
#endif
}

/* A wrapper's call of a real allocator function that may call other wrapped functions inside
 * (MSAMP_CFG_WRAP_NESTED): between msamp_nest_begin() and msamp_nest_end() the context's
 * allocations pass through unseen. Their countdown charges go to a countdown parked at its
 * maximum, and frees of sampled blocks are left to the outer wrapper (the free slow path sees
 * MSAMP_BUSY_NESTED), so the outer wrapper alone notes the allocation, from its own frame. A
 * countdown another context zeroed meanwhile (a configuration change) stays zero. */
struct msamp_nest {
    struct msamp_context *c; /* NULL: the context was busy already (an inner call itself) */
    uintptr_t countdown;
};

/* Whether the caller runs inside a wrapper's guarded call of the real allocator. */
static inline int msamp_nested_now(void)
{
    return MSAMP_PORT_CONTEXT()->busy == MSAMP_BUSY_NESTED;
}

static inline void msamp_nest_begin(struct msamp_nest *n)
{
    struct msamp_context *c = MSAMP_PORT_CONTEXT();
    n->c = NULL;
    if (c->busy)
        return;
    n->c = c;
    n->countdown = atomic_load_explicit(&c->countdown, memory_order_relaxed);
    atomic_store_explicit(&c->countdown, UINTPTR_MAX, memory_order_relaxed);
    c->busy = MSAMP_BUSY_NESTED;
}

static inline void msamp_nest_end(struct msamp_nest *n)
{
    struct msamp_context *c = n->c;
    if (c == NULL)
        return;
    c->busy = 0;
    if (atomic_load_explicit(&c->countdown, memory_order_relaxed) != 0)
        atomic_store_explicit(&c->countdown, n->countdown, memory_order_relaxed);
}

/* Fast path of every free: a fingerprint test; the slow path only for (probably) sampled blocks.
 * free(NULL) needs no test of its own: the slow path finds nothing. */
static inline void msamp_note_free(void *p)
{
    if (MSAMP_UNLIKELY(msamp_live_maybe((uintptr_t)p)))
        msamp_free_slow(MSAMP_PORT_CONTEXT(), p);
}

#endif
