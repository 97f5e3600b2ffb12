/* Wrapper of operator new[](std::size_t, const std::nothrow_t&): link with
 * -Wl,--wrap=_ZnamRKSt9nothrow_t (--wrap=_ZnajRKSt9nothrow_t where size_t is unsigned int). It
 * returns NULL where the throwing form throws: a failure msamp_note_alloc reports. */
#include "msamp_wrap_cxx.h"

#define WRAP MSAMP_CXX_WRAP(_Zna, RKSt9nothrow_t)
#define REAL MSAMP_CXX_REAL(_Zna, RKSt9nothrow_t)

void *REAL(size_t size, msamp_cxx_nothrow nt);
void *WRAP(size_t size, msamp_cxx_nothrow nt);

void *WRAP(size_t size, msamp_cxx_nothrow nt)
{
    MSAMP_REFUSE_GIANT(size, NULL);
    struct msamp_nest nest;
    msamp_nest_begin(&nest);
    void *p = REAL(size, nt);
    msamp_nest_end(&nest);
    msamp_note_alloc(p, size, MSAMP_FRAME());
    return p;
}
