/* --leaks (docs/DRAIN.md "Reports", docs/VERDICTS.md "Leaks by growth"): the leaks by growth a
 * profile stores, in text. The verdicts are verdict/growth.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "util.h"
#include "verdict/est.h"
#include "verdict/growth.h"

void growth_print_leaks(FILE *f, const struct prof *p)
{
    size_t cap = p->ncomment + 1;
    struct growth_leak *lk = xmalloc(cap * sizeof(*lk));
    size_t n = growth_leaks_from_prof(p, lk, cap);
    fprintf(f, "leaks by growth (in-use still growing over the session's recent half; slope with "
               "its 95 %% interval; docs/VERDICTS.md):\n");
    for (size_t i = 0; i < n; i++) {
        char e[32], lo[32], hi[32], site[512];
        fmt_bytes(e, sizeof(e), lk[i].slope_bytes_per_s.est);
        fmt_bytes(lo, sizeof(lo), est_sym_lo(lk[i].slope_bytes_per_s));
        fmt_bytes(hi, sizeof(hi), est_sym_hi(lk[i].slope_bytes_per_s));
        const struct prof_sample *smp = &p->sample[lk[i].sample];
        report_frames(p, p->locpool + smp->loc_off, smp->nloc, site, sizeof(site));
        fprintf(f, "  +%s/s [%s/s, %s/s] since %.3f s  %s\n", e, lo, hi, lk[i].since_s, site);
    }
    if (n == 0)
        fprintf(f, "  (none)\n");
    free(lk);
}
