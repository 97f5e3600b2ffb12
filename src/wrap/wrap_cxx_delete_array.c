/* Wrapper of operator delete[](void*): link with -Wl,--wrap=_ZdaPv. The free is noted first:
 * what the real one calls (free, or delete from delete[]) then finds nothing left to note. */
#include "msamp_wrap_cxx.h"

#define WRAP __wrap__ZdaPv
#define REAL __real__ZdaPv

void REAL(void *p);
void WRAP(void *p);

void WRAP(void *p)
{
    msamp_note_free(p);
    REAL(p);
}
