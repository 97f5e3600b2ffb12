/* Shared by the C++ wrappers (wrap_cxx_*.c): one file per replaceable global operator new and
 * operator delete of C++17, each under its Itanium C++ ABI name (link with -Wl,--wrap=NAME; the
 * hosted msamp.pc and port/msamp.mk's word cxx give them all). They are C, like every wrapper.
 *
 * operator new's wrappers always guard their real call (msamp_nest_begin): libstdc++'s operator
 * new calls malloc (aligned_alloc for the aligned forms), and new[] calls new, which may be wrapped
 * too; the allocation counts once, at the C++ call's stack. operator delete's wrappers note the
 * free first, then call the real one: the free it makes finds nothing left to note.
 *
 * The throwing forms may see std::bad_alloc thrown through them. Their guard is then undone, and
 * the failure reported, by a cleanup that runs during unwinding: those files must be compiled
 * with -fexceptions (a throwing form built without it does not link: it names the flag). The
 * cleanup lives in a function of its own that makes the real call: the wrapper keeps no landing
 * pad, so its unwind entry stays one that every walker reads (ARM EHABI: the compact model; a
 * frame with a personality routine's data stops port/arm's exidx walker). */
#ifndef MSAMP_WRAP_CXX_H
#define MSAMP_WRAP_CXX_H

#include "msamp_wrap.h"

/* size_t in a mangled name: m (unsigned long) where size_t is wider than int (aarch64, x86-64,
 * mips64, riscv64), j (unsigned int) where it is int's width (arm-none-eabi, riscv32, i386).
 * port/msamp.mk picks the same letter for MSAMP_ARCH's --wrap options. */
#if __SIZEOF_SIZE_T__ == __SIZEOF_LONG__ && __SIZEOF_LONG__ != __SIZEOF_INT__
#define MSAMP_CXX_SIZE_T m
#define MSAMP_CXX_SIZE_T_TYPE unsigned long
#elif __SIZEOF_SIZE_T__ == __SIZEOF_INT__
#define MSAMP_CXX_SIZE_T j
#define MSAMP_CXX_SIZE_T_TYPE unsigned int
#else
#error "msamp_wrap_cxx.h: no C++ mangling of size_t for this target"
#endif
_Static_assert(_Generic((size_t)0, MSAMP_CXX_SIZE_T_TYPE: 1, default: 0),
               "msamp_wrap_cxx.h: size_t is not the type its mangling letter names");

/* The wrapper and the real function of the mangled name pre + size_t's letter + post:
 * MSAMP_CXX_WRAP(_Znw, ) is __wrap__Znwm, or __wrap__Znwj where size_t is unsigned int. */
#define MSAMP_CXX_PASTE_(a, b, c) a##b##c
#define MSAMP_CXX_PASTE(a, b, c) MSAMP_CXX_PASTE_(a, b, c)
#define MSAMP_CXX_WRAP(pre, post) MSAMP_CXX_PASTE(__wrap_##pre, MSAMP_CXX_SIZE_T, post)
#define MSAMP_CXX_REAL(pre, post) MSAMP_CXX_PASTE(__real_##pre, MSAMP_CXX_SIZE_T, post)

/* std::align_val_t (an enum of size_t) is passed as size_t, const std::nothrow_t& as a pointer. */
typedef size_t msamp_cxx_align;
typedef const void *msamp_cxx_nothrow;

#ifdef __EXCEPTIONS
#define MSAMP_CXX_UNWIND_CHECK() ((void)0)
#else
/* Defined nowhere: a throwing form built without -fexceptions would leave its guard set when
 * std::bad_alloc passes through it (every later allocation of that thread unseen), so linking
 * one fails with this name. */
void msamp_cxx_wrappers_need_fexceptions(void);
#define MSAMP_CXX_UNWIND_CHECK() msamp_cxx_wrappers_need_fexceptions()
#endif

/* A throwing form's real call: the guard, and what its cleanup needs. */
struct msamp_cxx_call {
    struct msamp_nest nest;
    const void *frame;
    size_t size;
    int done; /* the real call returned (or the failure is reported already) */
};

/* Runs when the call's scope is left: after the real call returned, or while an exception
 * (std::bad_alloc) unwinds the wrapper, which is then a failed allocation, reported once the
 * guard is undone (a nested call's report is its outer wrapper's business: the core skips it). */
static inline void msamp_cxx_call_end(struct msamp_cxx_call *k)
{
    msamp_nest_end(&k->nest);
    if (MSAMP_UNLIKELY(!k->done))
        msamp_note_fail(k->size, k->frame, MSAMP_FAIL_NULL);
}

/* Declares the guard k of a throwing form's real call of size bytes from the wrapper's frame and
 * sets it; the real call follows in the same scope, then k.done = 1. */
#define MSAMP_CXX_GUARD(k, size_, frame_)                                                          \
    struct msamp_cxx_call k __attribute__((cleanup(msamp_cxx_call_end))) = {                       \
        .frame = (frame_), .size = (size_), .done = 0};                                            \
    msamp_nest_begin(&k.nest)

#if MSAMP_CFG_GIANT_BYTES
/* libstdc++'s std::__throw_bad_alloc(). */
_Noreturn void _ZSt17__throw_bad_allocv(void);

/* Throws the exception a failed operator new throws (no new-handler call), under the guard as the
 * real one's is: the exception's own allocation passes unseen. Out of the wrapper (its cleanup). */
__attribute__((noinline, cold, noreturn, unused)) static void msamp_cxx_refused(size_t size,
                                                                              const void *frame)
{
    MSAMP_CXX_GUARD(k, size, frame);
    k.done = 1; /* reported by the wrapper */
    _ZSt17__throw_bad_allocv();
}

/* The giant-allocation guard of a throwing form: the request is reported and refused before the
 * allocator sees it, with std::bad_alloc. Not inside a guarded call, as MSAMP_REFUSE_GIANT (the
 * outer wrapper judged: libstdc++'s new[] and nothrow new call new). */
#define MSAMP_CXX_REFUSE_GIANT(size)                                                               \
    do {                                                                                           \
        if (MSAMP_UNLIKELY((size) >= (size_t)MSAMP_CFG_GIANT_BYTES) && !msamp_nested_now()) {     \
            msamp_note_fail(size, MSAMP_FRAME(), MSAMP_FAIL_GIANT);                                \
            msamp_port_refused(size);                                                              \
            msamp_cxx_refused(size, MSAMP_FRAME());                                                \
        }                                                                                          \
    } while (0)
#else
#define MSAMP_CXX_REFUSE_GIANT(size) ((void)0)
#endif

#endif
