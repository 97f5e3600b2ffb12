/* --leaks (docs/DRAIN.md "Reports", docs/VERDICTS.md "Leaks by growth"): the leaks by growth a
 * profile stores, in text. The verdicts are verdict/growth.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "report.h"
#include "util.h"
#include "verdict/est.h"
#include "verdict/growth.h"

/* A prof sample's frames as one line: function names, innermost first, at most 5. */
static void sample_site(const struct prof *p, uint32_t si, char *out, size_t n)
{
    const struct prof_sample *smp = &p->sample[si];
    size_t len = 0;
    int frames = 0;
    out[0] = 0;
    for (uint32_t k = 0; k < smp->nloc && frames < 5 && len + 1 < n; k++) {
        const struct prof_location *l = &p->location[p->locpool[smp->loc_off + k] - 1];
        if (l->nline == 0) {
            len += (size_t)snprintf(out + len, n - len, "%s0x%llx", frames ? " < " : "",
                                    (unsigned long long)l->address);
            frames++;
        }
        for (uint32_t j = 0; j < l->nline && len + 1 < n && frames < 5; j++) {
            const struct prof_line *ln = &p->linepool[l->line_off + j];
            const struct prof_function *f = &p->function[ln->function_id - 1];
            len += (size_t)snprintf(out + len, n - len, "%s%s", frames ? " < " : "",
                                    p->str[f->name]);
            frames++;
        }
    }
    if (len >= n)
        out[n - 1] = 0;
}

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
        sample_site(p, lk[i].sample, site, sizeof(site));
        fprintf(f, "  +%s/s [%s/s, %s/s] since %.3f s  %s\n", e, lo, hi, lk[i].since_s, site);
    }
    if (n == 0)
        fprintf(f, "  (none)\n");
    free(lk);
}
