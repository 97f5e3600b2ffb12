/* Wrapper of operator delete(void*, std::size_t): link with -Wl,--wrap=_ZdlPvm (--wrap=_ZdlPvj
 * where size_t is unsigned int). The free is noted first: what the real one calls (free, or
 * delete from delete[]) then finds nothing left to note. */
#include "msamp_wrap_cxx.h"

#define WRAP MSAMP_CXX_WRAP(_ZdlPv, )
#define REAL MSAMP_CXX_REAL(_ZdlPv, )

void REAL(void *p, size_t size);
void WRAP(void *p, size_t size);

void WRAP(void *p, size_t size)
{
    msamp_note_free(p);
    REAL(p, size);
}
