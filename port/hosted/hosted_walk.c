/* The walk of hosted Linux, bounded by the calling thread's stack: by the code's DWARF call frame
 * information with libgcc's unwinder (_Unwind_Backtrace), through code built without frame
 * pointers (Debian's libc, libstdc++, liblua...), unless MSAMP_UNWIND=fp or a build with
 * MSAMP_HOSTED_DWARF=0 asks for frame chains with port/common/msamp_frame_walk.c (records in
 * msamp_frame_layout.h); MIPS64 code with port/mips64's prologue scanner over the executable's
 * code. docs/HOSTED.md ("Stack walk") says why libgcc's unwinder, and why it takes no lock and
 * calls no malloc on this path. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hosted.h"
#include "msamp_frame_walk.h"
#include "msamp_internal.h"
#if defined(__mips64)
#include "msamp_mips64.h"
#endif
#if MSAMP_HOSTED_DWARF
#include <unwind.h>
#if !defined(MSAMP_FRAME_RA)
#error "the DWARF walk finds the wrapper's caller by its frame record: build with MSAMP_HOSTED_DWARF=0"
#endif
#endif

int msamp_hosted_unwind = MSAMP_HOSTED_DWARF ? MSAMP_HOSTED_UNWIND_DWARF : MSAMP_HOSTED_UNWIND_FP;

void msamp_hosted_stack_bounds(struct msamp_hosted_thread *t)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;

    t->bounds = MSAMP_HOSTED_BOUNDS_NONE;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 0) {
        t->stack_lo = (uintptr_t)addr;
        t->stack_hi = (uintptr_t)addr + size;
        t->bounds = MSAMP_HOSTED_BOUNDS_OK;
    }
    pthread_attr_destroy(&attr);
}

#if MSAMP_HOSTED_DWARF
/* libgcc's own lookup (unwind-dw2-fde.h, exported by libgcc_s.so.1 and libgcc_eh.a). */
struct msamp_eh_bases {
    void *tbase, *dbase, *func;
};
const void *_Unwind_Find_FDE(void *pc, struct msamp_eh_bases *bases);

/* 1 once libgcc has found the unwind table of _Unwind_Backtrace itself: it aborts the process
 * when it cannot (uw_init_context's assertion), as in a -static program's constructors before
 * crtbeginT.o's frame_dummy has registered the program's .eh_frame. Until then the walk follows
 * frame chains. */
static _Atomic int dwarf_ready;

static int dwarf_usable(void)
{
    struct msamp_eh_bases bases;
    struct msamp_context *c = MSAMP_PORT_CONTEXT();

    if (atomic_load_explicit(&dwarf_ready, memory_order_relaxed))
        return 1;
    /* The first search of a -static program's registered table sorts it, with malloc: the
     * unwinder's own allocations, made inside the sampled path's guard, are passed through as an
     * allocator's inner calls are (MSAMP_BUSY_NESTED), not counted as the program's reentrant
     * ones. */
    uint8_t was = c->busy;
    if (was == MSAMP_BUSY_CORE)
        c->busy = MSAMP_BUSY_NESTED;
    const void *fde = _Unwind_Find_FDE((char *)(uintptr_t)&_Unwind_Backtrace + 1, &bases);
    c->busy = was;
    if (fde == NULL)
        return 0;
    atomic_store_explicit(&dwarf_ready, 1, memory_order_relaxed);
    return 1;
}

struct dwarf_walk {
    msamp_frame_fn fn;
    void *arg;
    uintptr_t hi;      /* the thread's stack base */
    uintptr_t ra_slot; /* where the wrapper saved its return address */
    uintptr_t cfa;     /* the last frame's */
    unsigned steps;
};

/* One frame of _Unwind_Backtrace: ctx's pc lies in a function F, and its CFA is that of F's
 * callee, i.e. F's stack pointer at the call. The frames of the core and of the wrapper have
 * theirs at or below the wrapper's saved return address (the wrapper's record is inside its own
 * frame); the first frame above it is the wrapper's caller, at the address the wrapper returns
 * to: reported from there on. Each CFA must lie inside the stack and above the last (frames only
 * get older towards the stack's base), at most MSAMP_FRAME_WALK_MAX frames. */
static _Unwind_Reason_Code dwarf_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct dwarf_walk *w = arg;
    uintptr_t cfa = (uintptr_t)_Unwind_GetCFA(ctx);
    int before = 0;
    uintptr_t pc;

    if (++w->steps > MSAMP_FRAME_WALK_MAX || cfa <= w->cfa || cfa > w->hi)
        return _URC_END_OF_STACK;
    w->cfa = cfa;
    if (cfa <= w->ra_slot)
        return _URC_NO_REASON;
    pc = (uintptr_t)_Unwind_GetIPInfo(ctx, &before);
    if (pc == 0 || w->fn == NULL)
        return _URC_END_OF_STACK;
    /* A frame a signal interrupted: its pc is the next instruction to run, not a return address;
     * one past it symbolizes as that instruction, as return addresses do (drain looks up pc - 1). */
    if (before)
        pc++;
    return w->fn(w->arg, MSAMP_FRAME_PC(pc)) ? _URC_NO_REASON : _URC_END_OF_STACK;
}

/* A first walk from the constructor, where nothing is locked: resolves the unwinder's lazily
 * bound functions (libgcc_s's, and the _dl_find_object it calls) and runs libgcc's one-time
 * set-up (a pthread_once), so that no sampled allocation does either first. */
void msamp_hosted_walk_warm(void)
{
    struct dwarf_walk w = {NULL, NULL, UINTPTR_MAX, 0, 0, 0};

    if (dwarf_usable())
        _Unwind_Backtrace(dwarf_frame, &w);
}
#else
void msamp_hosted_walk_warm(void)
{
}
#endif

void msamp_port_walk(const void *frame, msamp_frame_fn fn, void *arg)
{
    struct msamp_hosted_thread *t = &msamp_hosted_self;

    if (t->bounds == MSAMP_HOSTED_BOUNDS_UNKNOWN)
        msamp_hosted_stack_bounds(t);
    if (t->bounds != MSAMP_HOSTED_BOUNDS_OK)
        return;
    /* Only the part of the stack above the walker's own frame is live and mapped. A frame outside
     * it (a signal's alternate stack, a frame register holding data) ends the walk before any
     * load. */
    uintptr_t lo = (uintptr_t)__builtin_frame_address(0);
    if (lo < t->stack_lo)
        lo = t->stack_lo;
#if MSAMP_HOSTED_DWARF
    if (msamp_hosted_unwind == MSAMP_HOSTED_UNWIND_DWARF && dwarf_usable()) {
        if ((uintptr_t)frame < lo || (uintptr_t)frame >= t->stack_hi) {
            fn(arg, MSAMP_WALK_OUT_OF_BOUNDS);
            return;
        }
        /* The first frame's CFA is the walker's stack pointer: below lo, above stack_lo. */
        struct dwarf_walk w = {fn, arg, t->stack_hi,
                               (uintptr_t)((const uintptr_t *)frame + MSAMP_FRAME_RA),
                               t->stack_lo, 0};
        _Unwind_Backtrace(dwarf_frame, &w);
        return;
    }
#endif
#if defined(__mips64)
    /* Only the executable's own code: a shared library's frames end the walk. */
    struct msamp_mips64_bounds b = {lo, t->stack_hi, msamp_hosted_text_lo, msamp_hosted_text_hi};
    struct msamp_mips64_regs regs;
    if (msamp_hosted_text_hi == 0)
        return;
    msamp_mips64_capture(&regs);
    msamp_mips64_walk(&regs, (uintptr_t)frame, &b, fn, arg);
#elif defined(MSAMP_FRAME_RA)
    struct msamp_bounds b = {lo, t->stack_hi, 0, 0};
    msamp_frame_walk((uintptr_t)frame, &b, fn, arg);
#else
    (void)frame;
    (void)fn;
    (void)arg;
#endif
}
