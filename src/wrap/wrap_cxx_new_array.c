/* Wrapper of operator new[](std::size_t): link with -Wl,--wrap=_Znam (--wrap=_Znaj where size_t
 * is unsigned int). A std::bad_alloc thrown by the real one passes through this wrapper: compile
 * it with -fexceptions (msamp_wrap_cxx.h). */
#include "msamp_wrap_cxx.h"

#define WRAP MSAMP_CXX_WRAP(_Zna, )
#define REAL MSAMP_CXX_REAL(_Zna, )

void *REAL(size_t size);
void *WRAP(size_t size);

/* The guarded real call (msamp_wrap_cxx.h: out of the wrapper). */
static MSAMP_NOINLINE void *real_call(size_t size, const void *frame)
{
    MSAMP_CXX_GUARD(k, size, frame);
    void *p = REAL(size);
    k.done = 1;
    return p;
}

void *WRAP(size_t size)
{
    MSAMP_CXX_UNWIND_CHECK();
    MSAMP_CXX_REFUSE_GIANT(size);
    void *p = real_call(size, MSAMP_FRAME());
    msamp_note_alloc(p, size, MSAMP_FRAME());
    return p;
}
