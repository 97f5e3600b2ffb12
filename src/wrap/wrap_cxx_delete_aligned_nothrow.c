/* Wrapper of operator delete(void*, std::align_val_t, const std::nothrow_t&): link with
 * -Wl,--wrap=_ZdlPvSt11align_val_tRKSt9nothrow_t. The free is noted first: what the real one
 * calls (free, or delete from delete[]) then finds nothing left to note. */
#include "msamp_wrap_cxx.h"

#define WRAP __wrap__ZdlPvSt11align_val_tRKSt9nothrow_t
#define REAL __real__ZdlPvSt11align_val_tRKSt9nothrow_t

void REAL(void *p, msamp_cxx_align align, msamp_cxx_nothrow nt);
void WRAP(void *p, msamp_cxx_align align, msamp_cxx_nothrow nt);

void WRAP(void *p, msamp_cxx_align align, msamp_cxx_nothrow nt)
{
    msamp_note_free(p);
    REAL(p, align, nt);
}
