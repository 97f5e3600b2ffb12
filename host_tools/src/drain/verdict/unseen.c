/* The bound of what no live sample may hide (unseen.h, docs/VERDICTS.md "No live sample"). */
#include "verdict/unseen.h"

#include <math.h>
#include <stdio.h>

#include "pprof/prof_model.h"
#include "pprof/vcomment.h"

/* P(no sample in L bytes) = exp(-L/R) <= 1/40 once L >= R ln 40: the one-sided 97.5 % bound, the
 * upper end of a 95 % interval whose lower end is 0. */
double unseen_bound(double interval)
{
    return interval > 1 ? interval * log(40.0) : 0;
}

void unseen_write(struct prof *p, double interval)
{
    char line[160];
    snprintf(line, sizeof(line), "%sunseen|interval=%.17g|bound=%.17g", GROWTH_COMMENT, interval,
             unseen_bound(interval));
    prof_comment(p, line);
}

double unseen_from_prof(const struct prof *p, double *interval)
{
    char buf[256];
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = verdict_comment(p, i, "unseen", buf, sizeof(buf));
        double r;
        if (!c || verdict_num(c, "interval", &r) || !(r >= 1) || !isfinite(r))
            continue;
        if (interval)
            *interval = r;
        return unseen_bound(r);
    }
    if (interval)
        *interval = NAN;
    return NAN;
}
