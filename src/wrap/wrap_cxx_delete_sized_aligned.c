/* Wrapper of operator delete(void*, std::size_t, std::align_val_t): link with
 * -Wl,--wrap=_ZdlPvmSt11align_val_t (--wrap=_ZdlPvjSt11align_val_t where size_t is unsigned
 * int). The free is noted first: what the real one calls (free, or delete from delete[]) then
 * finds nothing left to note. */
#include "msamp_wrap_cxx.h"

#define WRAP MSAMP_CXX_WRAP(_ZdlPv, St11align_val_t)
#define REAL MSAMP_CXX_REAL(_ZdlPv, St11align_val_t)

void REAL(void *p, size_t size, msamp_cxx_align align);
void WRAP(void *p, size_t size, msamp_cxx_align align);

void WRAP(void *p, size_t size, msamp_cxx_align align)
{
    msamp_note_free(p);
    REAL(p, size, align);
}
