/* Sampler contexts and the sampling decision. Each context (a thread, an interrupt level) keeps
 * its own countdown and generator, so the fast path touches nothing shared; the core keeps a
 * registry of them to broadcast configuration changes. */
#include "msamp_internal.h"

#define G msamp_core
/* Countdown while disabled: large, but finite so that a context that missed a broadcast still
 * re-checks now and then (every 2^30 bytes on 32-bit targets, 2^62 on 64-bit ones). */
#define DISABLED_COUNTDOWN ((uintptr_t)1 << (sizeof(uintptr_t) * 8u - 2u))
/* The index of a context the full registry could not take: it samples, but misses broadcasts. */
#define UNREGISTERED UINT32_MAX

#if MSAMP_CFG_MAX_CONTEXTS > 8
/* One past the highest registry position ever taken: the loops below stop there (a hosted
 * registry has 256 positions, of which a program uses a few; msamp_poll() sums the reentrant
 * counters at each call). */
static uint32_t ctx_end;
#define CTX_END ctx_end
#else
#define CTX_END MSAMP_CFG_MAX_CONTEXTS
#endif

MSAMP_NOINLINE void msamp_broadcast(void)
{
    /* Under the lock, the only writer: no read-modify-write needed. */
    atomic_store_explicit(&G.gen, atomic_load_explicit(&G.gen, memory_order_relaxed) + 1u,
                          memory_order_relaxed);
    for (uint32_t i = 0; i < CTX_END; i++)
        if (G.ctx[i] != NULL)
            atomic_store_explicit(&G.ctx[i]->countdown, 0, memory_order_relaxed);
}

MSAMP_NOINLINE uint32_t msamp_reentrant(void)
{
    uint32_t r = 0;
    for (uint32_t i = 0; i < CTX_END; i++)
        if (G.ctx[i] != NULL)
            r += G.ctx[i]->reentrant;
    return r;
}

/* First allocation here: join the registry (for broadcasts), seed the generator. */
static void register_context(struct msamp_context *c)
{
    msamp_port_lock_t key = msamp_port_lock();
    c->rng = msamp_rng_seed(G.seed + ++G.registrations);
    c->index = UNREGISTERED;
    for (uint32_t i = 0; i < MSAMP_CFG_MAX_CONTEXTS; i++) {
        if (G.ctx[i] == NULL) {
            G.ctx[i] = c;
#if MSAMP_CFG_MAX_CONTEXTS > 8
            if (i >= ctx_end)
                ctx_end = i + 1u;
#endif
            c->index = i + 1u;
            break;
        }
    }
    msamp_port_unlock(key);
    msamp_port_context_registered(c);
}

/* A gap at the context's interval (the allocation that takes the countdown below zero is
 * sampled, hence the gap less one), or DISABLED_COUNTDOWN. Out of line where code size comes
 * first. */
MSAMP_SMALL_NOINLINE static uintptr_t fresh_gap(struct msamp_context *c)
{
    if (!atomic_load_explicit(&G.enabled, memory_order_relaxed))
        return DISABLED_COUNTDOWN;
    return msamp_draw_gap(&c->rng, c->interval) - 1u;
}

/* Sets the countdown to `left` bytes: at most MSAMP_FAST_MAX of them in the countdown the fast
 * path reads, the rest in reserve. */
static void arm(struct msamp_context *c, uintptr_t left)
{
#if MSAMP_FAST_CLAMPED
    uintptr_t fast = left < MSAMP_FAST_MAX ? left : MSAMP_FAST_MAX;
    c->reserve = left - fast;
    left = fast;
#endif
    atomic_store_explicit(&c->countdown, left, memory_order_relaxed);
}

/* The gap after the armed one is drawn ahead (c->next): a sample arms it with one store before
 * drawing its successor, so that a signal handler interrupting the draw on this thread finds a
 * real gap armed, not the spent countdown that would sample the same crossing twice. The tiny
 * profile keeps no gap ahead (4 bytes a context of its 1 KiB): there an interrupt nested on the
 * context of one that is drawing (on Cortex-M, all of handler mode shares one) may sample that
 * crossing again. */
uint32_t msamp_decide(struct msamp_context *c, size_t size)
{
    uint32_t gen = atomic_load_explicit(&G.gen, memory_order_relaxed);
    if (c->index == 0)
        register_context(c);
    uintptr_t cd = atomic_load_explicit(&c->countdown, memory_order_relaxed);
    if (c->gen != gen) {
        /* The configuration changed (or this context is new): forget the old gaps; both new ones
         * are drawn at the interval now in force (the next change comes with a new gen). */
        c->gen = gen;
        c->interval = atomic_load_explicit(&G.interval, memory_order_relaxed);
        cd = fresh_gap(c);
#if !MSAMP_CFG_TINY
        c->next = fresh_gap(c);
#endif
    } else {
#if MSAMP_FAST_CLAMPED
        cd += c->reserve; /* at most MSAMP_FAST_MAX + UINTPTR_MAX / 2 */
#endif
    }
    if (size <= cd) {
        arm(c, cd - size);
        return 0;
    }
#if !MSAMP_CFG_TINY
    arm(c, c->next);
    c->next = fresh_gap(c);
#else
    arm(c, fresh_gap(c));
#endif
    /* Only an initialised core is enabled (msamp_init enables it under the lock it holds until
     * it is initialised, and a sample takes that lock; msamp_enable needs it initialised). */
    return atomic_load_explicit(&G.enabled, memory_order_relaxed) ? c->interval : 0u;
}

/* msamp_init, under the lock: contexts that registered before it (a thread that allocated in a
 * constructor) were seeded from no seed; each is reseeded from the session's, so that a fixed
 * seed gives the same decisions however early a thread first allocated. A context drawing at
 * this moment (its thread outside the lock) may keep its old state: the draw is random either
 * way. */
void msamp_reseed(void)
{
    for (uint32_t i = 0; i < CTX_END; i++)
        if (G.ctx[i] != NULL)
            G.ctx[i]->rng = msamp_rng_seed(G.seed ^ G.ctx[i]->rng);
}
