/* The slow paths of the wrappers: a sampled allocation (walk, stack, live slot, records), the free
 * of a sampled block, and realloc's bookkeeping. Each runs inside its context's reentrancy guard;
 * shared state changes only under the port lock. */
#include "msamp_internal.h"

#define G msamp_core
/* The task a context samples for: set by an RTOS layer (MSAMP_PORT_RTOS) or read by the per-task
 * budgets; elsewhere always 0, and the SAMPLE_TASK code folds away. */
#if MSAMP_PORT_RTOS || MSAMP_CFG_TASK_BUDGETS
#define TASK_OF(c) ((c)->task)
#else
#define TASK_OF(c) 0u
#endif

/* msamp_port_walk()'s callback for MSAMP_WALK: each frame into the walk's buffer, up to the depth. */
int msamp_walk_collect(void *arg, uintptr_t pc)
{
    struct msamp_walk *w = arg;
    uint32_t n = w->n;
    if (MSAMP_LIKELY(pc != MSAMP_WALK_OUT_OF_BOUNDS && n < MSAMP_CFG_MAX_DEPTH)) {
        w->pcs[n] = pc;
        w->n = n + 1u;
        return 1;
    }
    if (pc == MSAMP_WALK_OUT_OF_BOUNDS)
        w->oob = 1;
    else
        w->n = n + 1u; /* one past the depth: the stack was cut */
    return 0;
}

/* Interns the walk's stack and returns its id, with the loss counters the walk moves: a stack cut
 * at the maximum depth (w->n becomes that depth), one with no frame at all (id 0), a full stack
 * table. Under the lock. */
static uint32_t stack_of(struct msamp_walk *w)
{
    if (w->n > MSAMP_CFG_MAX_DEPTH) {
        w->n = MSAMP_CFG_MAX_DEPTH;
        G.count[MSAMP_DROP_TRUNCATED]++;
    }
    if (w->n == 0) {
        G.count[MSAMP_DROP_NO_FRAME]++;
#if !MSAMP_CFG_TINY
        if (w->oob)
            G.count[MSAMP_DROP_OUT_OF_BOUNDS]++;
#endif
    }
    uint32_t id = msamp_stack_intern(w->pcs, w->n);
    if (!MSAMP_CFG_COMPACT_TABLES && id == MSAMP_WIRE_STACK_FULL) /* the compact ones evict */
        G.count[MSAMP_DROP_STACK_FULL]++;
    return id;
}

/* Writes the STACK record that defines id (the walk's frames) into the open event. Where code size
 * comes first, as varints of the walk's own buffer: id and depth in the two words before the
 * frames, each frame after the first made its zigzagged difference in place (the walk is not read
 * again), the same bytes as msamp_layout_stack's without a layout sized twice. */
static void put_stack(uint32_t id, struct msamp_walk *w)
{
#if MSAMP_CFG_SMALL_CODE
    uintptr_t *v = w->pcs - 2;
    for (uint32_t i = w->n - 1u; i > 0; i--)
        w->pcs[i] = msamp_zigzag(w->pcs[i] - w->pcs[i - 1u]);
    v[0] = id;
    v[1] = w->n;
    msamp_event_varints(MSAMP_REC_STACK, v, w->n + 2u);
#else
    struct msamp_stack_fields f = {id, w->n, w->pcs};
    msamp_event_record(MSAMP_REC_STACK, msamp_layout_stack, &f);
#endif
}

/* Writes a FREE of slot into the open event and empties the slot (moved: realloc'd to a block
 * that was not sampled). */
MSAMP_NOINLINE static void put_free(uint32_t slot, unsigned moved)
{
    msamp_rec_free(slot, msamp_event_stamp(), moved);
    msamp_slot_empty(slot);
    G.frees++;
}

/* Whether slot still holds block a, settled. */
static int still(uint32_t slot, uintptr_t a)
{
    return msamp_live_addr(slot) == a && msamp_live_settled(slot);
}

/* Records a sampled allocation p of size bytes, decided at interval `drawn`, whose stack the
 * caller walked into w; a REALLOC from old_slot when it is realloc's detached slot of old
 * (msamp_realloc_detach), else -1. 0 when the adaptive interval thinned the sample out (nothing
 * written). */
static int sample(struct msamp_context *c, uintptr_t p, uintptr_t size, struct msamp_walk *w,
                  uintptr_t old, int32_t old_slot, uint32_t drawn)
{
    struct msamp_writer ev;
    if (!MSAMP_CFG_REALLOC_CHAINS)
        old_slot = -1; /* never called with one: the code that follows it folds away */

    msamp_port_lock_t key = msamp_port_lock();
    /* The detached slot matches no address: p (old itself, grown in place, or a block another
     * context freed meanwhile) finds only a stale entry of its own. */
    int32_t stale = msamp_live_find_settled(p);
    /* p's first free slot, when found below with no stale entry and no detached slot, the slots
     * that could free one before it meanwhile: not looked up twice. */
    int32_t first_free = -1;
    /* A full reach makes room by itself when a slot of it is freed here (asked only where the
     * interval adapts: a pinned one admits every sample, and nothing can change meanwhile). */
    if (MSAMP_CFG_ADAPTIVE) {
        int room = stale >= 0 || (first_free = msamp_live_free_slot(p)) >= 0 ||
                   (old_slot >= 0 && msamp_live_reaches(p, (uint32_t)old_slot));
        if (old_slot >= 0)
            first_free = -1;
        if (!msamp_adapt_admit(c, &drawn, size) ||
            (!room && !msamp_adapt_room(c, &drawn, p, size))) {
            msamp_port_unlock(key);
            return 0;
        }
        /* A raise meanwhile may have made them pending again, or taken them out. */
        if (old_slot >= 0 && !still((uint32_t)old_slot, old | MSAMP_LIVE_MOVING))
            old_slot = -1;
        if (stale >= 0 && !still((uint32_t)stale, p))
            stale = -1;
    }
    msamp_event_begin(&ev);
    uint32_t id = stack_of(w);
    if (stale >= 0)
        put_free((uint32_t)stale, 0); /* its free was never seen: the address is reused */
    if (old_slot >= 0) {
        msamp_slot_empty((uint32_t)old_slot);
        G.frees++;
    }
    int32_t slot = first_free >= 0 ? first_free : msamp_live_free_slot(p);
    if (slot < 0)
        G.count[MSAMP_DROP_LIVE_FULL]++;

    int send_stack = msamp_stack_unsent(id, msamp_pass());
#if MSAMP_CFG_STACK_RESEND_SAMPLES
    _Static_assert((MSAMP_CFG_STACK_RESEND_SAMPLES & (MSAMP_CFG_STACK_RESEND_SAMPLES - 1)) == 0,
                   "MSAMP_CFG_STACK_RESEND_SAMPLES: a power of two");
    /* Every Nth sample sends its stack's definition again: a definition lost on the line comes
     * back within about N / (its share of the samples) samples, for a stack used often. */
    if ((G.samples & (MSAMP_CFG_STACK_RESEND_SAMPLES - 1u)) == MSAMP_CFG_STACK_RESEND_SAMPLES - 1u &&
        id != 0 && id != MSAMP_WIRE_STACK_FULL)
        send_stack = 1;
#endif
    if (send_stack)
        put_stack(id, w);
    uintptr_t dt = msamp_event_stamp(); /* a TIME record, if any, before the task's */
    if (TASK_OF(c) != 0)
        msamp_rec_sample_task(TASK_OF(c));
    msamp_rec_alloc(old_slot, (uint32_t)(slot + 1), size, id, dt, p);
    if (msamp_event_end(&ev, 1) == 0 && send_stack)
        msamp_stack_sent(id, msamp_pass());
    /* Tracked even when the record was dropped: a snapshot pass reports it, or its FREE is an
     * unknown slot to the reader, which counts it. */
    if (slot >= 0) {
        msamp_live_set((uint32_t)slot, p, size, id, (uint32_t)G.w.ts, drawn);
        msamp_budget_set((uint32_t)slot, TASK_OF(c));
    }
    G.samples++;
    msamp_adapt_after_sample();
    msamp_port_unlock(key);
    return 1;
}

/* What slot_do() does with the slot it finds. */
#define SLOT_FREE 0u   /* a FREE record, the slot emptied */
#define SLOT_MOVED 1u  /* the same, marked moved: realloc'd to a block not sampled */
#define SLOT_DETACH 2u /* realloc's: the slot holds p | MSAMP_LIVE_MOVING until the move ends */
#define SLOT_ATTACH 3u /* the move failed: the slot holds p again */

/* Under the lock, checks that `slot` still holds p (a raise's thinning may have taken it out
 * meanwhile), or else finds p's slot when p is a block's address (realloc's mark, old |
 * MSAMP_LIVE_MOVING, is only where `slot` says), and does `what` with it. `slot` may be -1, or a
 * hint read without the lock (a block's is the one slot that holds it). The slot, or -1 when there
 * was none. */
static int32_t slot_do(uintptr_t p, int32_t slot, unsigned what)
{
    msamp_port_lock_t key = msamp_port_lock();
    if (slot < 0 || !still((uint32_t)slot, p))
        slot = (p & MSAMP_LIVE_MOVING) == 0 ? msamp_live_find_settled(p) : -1;
    if (slot >= 0) {
        if (MSAMP_CFG_REALLOC_CHAINS && what >= SLOT_DETACH) {
            msamp_live_publish((uint32_t)slot, p ^ MSAMP_LIVE_MOVING);
        } else {
            struct msamp_writer ev;
            msamp_event_begin(&ev);
            put_free((uint32_t)slot, what);
            (void)msamp_event_end(&ev, 1);
        }
    }
    msamp_port_unlock(key);
    return slot;
}

/* Leaves the slow path: the port may drain a filling ring from here (hosted MSAMP_FLUSH=inline). */
static void leave(struct msamp_context *c)
{
    msamp_port_ring_notify(msamp_ring_pending(), MSAMP_CFG_RING_SIZE);
    c->busy = 0;
#if MSAMP_CFG_TASK_BUDGETS
    msamp_budget_hooks(); /* a crossing's, outside the lock and the guard */
#endif
}

/* Whether the context is busy: an allocation in the core's own run counts as reentrant; one made
 * by the real allocator inside a wrapper's call (MSAMP_BUSY_NESTED) is the outer one's business. */
static int busy(struct msamp_context *c)
{
    if (c->busy == 0)
        return 0;
    /* Branch-free: one early-return path in each slow path, whose epilogue reloads ra (the MIPS
     * walker proves a function's frame only through such epilogues: port/mips64/README.md). */
    c->reentrant += c->busy == MSAMP_BUSY_CORE;
    return 1;
}

/* After the fact (msamp_note_alloc): the decision, then what the wrappers' second half does. */
void msamp_alloc_slow(struct msamp_context *c, void *p, size_t size, const void *frame)
{
    if (busy(c))
        return;
    msamp_slow_alloc(c, p, size, frame, msamp_decide(c, size));
}

void msamp_free_slow(struct msamp_context *c, void *p)
{
    int32_t slot = msamp_live_find((uintptr_t)p);
    if (slot < 0)
        return; /* a fingerprint collision (or NULL): not a sampled block */
    if (busy(c))
        return;
    c->busy = MSAMP_BUSY_CORE;
    (void)slot_do((uintptr_t)p, slot, SLOT_FREE); /* the slot found is checked under the lock */
    leave(c);
}

/* After the fact (msamp_note_realloc, old sampled): as the wrappers' second half. */
void msamp_realloc_slow(struct msamp_context *c, void *old, void *p, size_t size,
                        const void *frame)
{
    if (busy(c))
        return;
    /* Detached only now: the hooks are called after the real realloc, so a block another context
     * was handed at old's address in between is taken for it (msamp.h, msamp_on_realloc). */
    int32_t slot = msamp_realloc_detach(c, old);
    msamp_slow_realloc(c, old, slot, p, size, frame, p != NULL ? msamp_decide(c, size) : 0u);
}

int32_t msamp_realloc_detach(struct msamp_context *c, void *old)
{
    if (!MSAMP_CFG_REALLOC_CHAINS || c->busy || !msamp_is_sampled(old))
        return -1; /* busy: its realloc is not looked at (counted as reentrant when it decided) */
    return slot_do((uintptr_t)old, -1, SLOT_DETACH);
}

uint32_t msamp_slow_decide(struct msamp_context *c, size_t size, const void *frame)
{
#if MSAMP_CFG_GIANT_BYTES
    /* Not inside a guarded call: the outer wrapper judged the request, and an allocator's own
     * inner request (newlib's memalign asks _malloc_r for more than the caller did) is not the
     * application's. */
    if (size >= (size_t)MSAMP_CFG_GIANT_BYTES && c->busy != MSAMP_BUSY_NESTED) {
#if MSAMP_CFG_FAILURES
        msamp_fail_slow(c, size, frame, MSAMP_FAIL_GIANT);
#endif
        msamp_port_refused(size);
        return MSAMP_SLOW_REFUSED;
    }
#endif
    (void)frame;
    if (busy(c))
        return 0;
    return msamp_decide(c, size);
}

/* Out of line where msamp_slow_alloc is (MSAMP_WALK_IN_SLOW 0): inside it, once. MIPS keeps the
 * functions of its own (its walker's prologue scan, msamp_internal.h). */
#if MSAMP_WALK_IN_SLOW || defined(__mips__)
#define SLOW_HALF
#else
#define SLOW_HALF static inline __attribute__((always_inline))
#endif

SLOW_HALF int msamp_slow_wants(struct msamp_context *c, void *p, size_t size, const void *frame,
                               uint32_t drawn)
{
    if (p == NULL) {
#if MSAMP_CFG_FAILURES
        if (size != 0)
            msamp_fail_slow(c, size, frame, MSAMP_FAIL_NULL);
#else
        (void)size;
        (void)frame;
#endif
        return 0;
    }
    if (drawn == 0 || c->busy) /* busy: counted as reentrant when it decided */
        return 0;
    c->busy = MSAMP_BUSY_CORE;
    return 1;
}

SLOW_HALF void msamp_slow_sample(struct msamp_context *c, void *p, size_t size,
                                 struct msamp_walk *w, uint32_t drawn)
{
    (void)sample(c, (uintptr_t)p, size, w, 0, -1, drawn);
    leave(c);
}

#if !MSAMP_WALK_IN_SLOW
void msamp_slow_alloc(struct msamp_context *c, void *p, size_t size, const void *frame,
                      uint32_t drawn)
{
    if (msamp_slow_wants(c, p, size, frame, drawn)) {
        MSAMP_WALK(w, frame);
        msamp_slow_sample(c, p, size, &w, drawn);
    }
}
#endif

void msamp_slow_realloc(struct msamp_context *c, void *old, int32_t old_slot, void *p, size_t size,
                        const void *frame, uint32_t drawn)
{
#if !MSAMP_CFG_REALLOC_CHAINS
    /* No chains (and nothing detached): old's free once the real realloc freed it, then p's
     * allocation, sampled on its own (a failure is reported from there). */
    (void)old_slot;
    if (p != NULL || size == 0)
        msamp_free_slow(c, old);
    msamp_slow_alloc(c, p, size, frame, drawn);
#else
    uintptr_t mark = (uintptr_t)old | MSAMP_LIVE_MOVING;
    if (old_slot >= 0 && p == NULL && size != 0) /* failed: the old block is untouched */
        (void)slot_do(mark, old_slot, SLOT_ATTACH);
    if (old_slot < 0 || (p == NULL && size != 0)) {
        msamp_slow_alloc(c, p, size, frame, drawn); /* a failure is reported from here */
        return;
    }
    /* Detached by this context, which was not busy then and is not now (every wrapper call it
     * made in between has returned). The old block's allocation goes on in p unless
     * realloc(old, 0) freed it. */
    c->busy = MSAMP_BUSY_CORE;
    int kept = 0;
    if (drawn != 0 && p != NULL) {
        MSAMP_WALK(w, frame);
        kept = sample(c, (uintptr_t)p, size, &w, (uintptr_t)old, old_slot, drawn);
    }
    if (!kept)
        (void)slot_do(mark, old_slot, p != NULL ? SLOT_MOVED : SLOT_FREE);
    leave(c);
#endif
}

void msamp_fail_slow(struct msamp_context *c, size_t size, const void *frame, unsigned kind)
{
    if (!G.initialised || !atomic_load_explicit(&G.enabled, memory_order_relaxed) || busy(c))
        return;
    c->busy = MSAMP_BUSY_CORE;
    struct msamp_writer ev;
    MSAMP_WALK(w, frame);
#if MSAMP_CFG_HEAP_STATS
    struct msamp_heap_stats heap;
    msamp_heap_read(&heap); /* the heap as the failure left it, outside the lock */
#endif

    msamp_port_lock_t key = msamp_port_lock();
#if MSAMP_CFG_HEAP_STATS
    msamp_heap_note(&heap);
#endif
    if (G.failed[kind] != MSAMP_FAILED_MAX) /* saturates (16-bit in the tiny profile) */
        G.failed[kind]++;
    uint32_t count = G.failed[kind];
    msamp_event_begin(&ev);
    uint32_t id = stack_of(&w);
    int send_stack = msamp_stack_unsent(id, msamp_pass());
    if (send_stack)
        put_stack(id, &w);
    uintptr_t dt = msamp_event_stamp();
    if (TASK_OF(c) != 0)
        msamp_rec_sample_task(TASK_OF(c));
    msamp_rec_fail(kind, size, id, dt, count);
#if MSAMP_CFG_HEAP_STATS
    msamp_heap_put(MSAMP_HEAP_FAIL); /* the same event: the reader has both or neither */
#endif
    if (msamp_event_end(&ev, 1) == 0 && send_stack)
        msamp_stack_sent(id, msamp_pass());
    msamp_port_unlock(key);
    leave(c);
}
