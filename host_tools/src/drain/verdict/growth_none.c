/* The growth verdicts of a build without growth analysis: no profile holds a peak or leaks. */
#include "verdict/growth.h"

int growth_peak_from_prof(const struct prof *p, struct growth_peak *out)
{
    (void)p;
    (void)out;
    return 0;
}

size_t growth_leaks_from_prof(const struct prof *p, struct growth_leak *out, size_t max)
{
    (void)p;
    (void)out;
    (void)max;
    return 0;
}
