/*
 * Intervals of Horvitz-Thompson estimates (est.h). A non-negative total gets a scaled Poisson
 * (Garwood) interval: with n = est^2/var effective samples each standing for est/n, the 95 %
 * limits are est/n times the 2.5 % quantile of Gamma(n) and the 97.5 % quantile of Gamma(n + 1).
 * For n equal-weight samples drawn with small probability (the sampled count is then Poisson)
 * this is the exact interval; it is skewed upward for few samples, where the symmetric normal
 * interval undercovers, and it becomes the normal interval as n grows. docs/VERDICTS.md.
 */
#include "model/est.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define Z95 1.959963984540054

/* The regularized lower incomplete gamma function P(a, x), a > 0, x >= 0, lg = lgamma(a): its
 * series below a + 1, its continued fraction (modified Lentz) above. */
static double gamma_p(double a, double lg, double x)
{
    if (x <= 0)
        return 0;
    if (x < a + 1) {
        double term = 1 / a, sum = term;
        for (int i = 1; i < 100000; i++) {
            term *= x / (a + i);
            sum += term;
            if (fabs(term) < fabs(sum) * 1e-15)
                break;
        }
        return sum * exp(-x + a * log(x) - lg);
    }
    double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < 1e-300)
            d = 1e-300;
        c = b + an / c;
        if (fabs(c) < 1e-300)
            c = 1e-300;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15)
            break;
    }
    return 1 - exp(-x + a * log(x) - lg) * h;
}

/* The bisections gamma_q did, by (a, q): a profile's sites repeat their effective sample counts
 * (one sample of a given size and interval has n = w / (w - 1) whatever its site), and each
 * bisection costs some 40 incomplete gammas. The same inputs give the same bits, cached or not. */
#define GQ_CACHE 4096
static struct gq_memo {
    double a, q, x;
} gq_cache[GQ_CACHE];

static struct gq_memo *gq_slot(double a, double q)
{
    uint64_t ka, kq;
    memcpy(&ka, &a, sizeof(ka));
    memcpy(&kq, &q, sizeof(kq));
    uint64_t h = (ka ^ (kq * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return &gq_cache[(h >> 52) & (GQ_CACHE - 1)];
}

/* The q quantile of Gamma(a, 1), z the normal quantile of q: bisection on P for a below 100,
 * Wilson-Hilferty above (its relative error there is below 1e-4, far below the interval's own
 * width). */
static double gamma_q(double a, double q, double z)
{
    if (a >= 100) {
        double t = 1 - 1 / (9 * a) + z / (3 * sqrt(a));
        return a * t * t * t;
    }
    struct gq_memo *m = gq_slot(a, q);
    if (m->a == a && m->q == q && a > 0) /* an empty slot holds a = 0 */
        return m->x;
    double lo = 0, hi = a + 12 * sqrt(a) + 40, lg = lgamma(a);
    for (int i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (gamma_p(a, lg, mid) < q)
            lo = mid;
        else
            hi = mid;
    }
    *m = (struct gq_memo){a, q, 0.5 * (lo + hi)};
    return m->x;
}

/* The normal interval's end est + z sqrt(var) (z < 0: the lower end). */
static double sym_end(struct est e, double z)
{
    return e.est + z * sqrt(e.var > 0 ? e.var : 0);
}

double est_sym_lo(struct est e)
{
    return sym_end(e, -Z95);
}

double est_sym_hi(struct est e)
{
    return sym_end(e, Z95);
}

/* The normal quantile of 1 - tail (tail in (0, 0.5]): Z95 itself at 2.5 %, so that the 95 %
 * ends are the same numbers whichever function gives them. */
static double z_upper(double tail)
{
    return tail == 0.025 ? Z95 : est_z(1 - 2 * tail);
}

double est_sym_lo_at(struct est e, double tail)
{
    return sym_end(e, -z_upper(tail));
}

/* The effective sample count, 0 when the interval is [est, est] (no variance), -1 when the
 * estimate is not a positive total (normal interval). */
static double est_n(struct est e)
{
    if (!(e.var > 0) || !isfinite(e.var))
        return 0;
    if (!(e.est > 0))
        return -1;
    return e.est * e.est / e.var;
}

/* The lower (hi 0) or upper (hi 1) end of the interval whose ends each leave out `tail` of
 * the distribution (0.025: the 95 % interval), z = z_upper(tail). */
static double est_end(struct est e, int hi, double tail, double z)
{
    double n = est_n(e);
    if (n == 0)
        return e.est;
    if (n < 0 && e.est == 0) /* a total of nothing seen: never below 0 */
        return hi ? sym_end(e, z) : 0;
    if (n < 0)
        return sym_end(e, hi ? z : -z);
    return e.est / n * (hi ? gamma_q(n + 1, 1 - tail, z) : gamma_q(n, tail, -z));
}

double est_lo(struct est e)
{
    return est_end(e, 0, 0.025, Z95);
}

double est_hi(struct est e)
{
    return est_end(e, 1, 0.025, Z95);
}

double est_lo_at(struct est e, double tail)
{
    return est_end(e, 0, tail, z_upper(tail));
}

/* Fay and Feuer's upper end for a weighted sum of Poisson counts whose weights are at most wmax:
 * the Gamma of the estimate and variance with one more sample of weight wmax added, E + w and
 * V + w^2 (its shape (E + w)^2 / (V + w^2), its scale (V + w^2) / (E + w)). With w = V/E, the
 * estimate's own mean weight, it is est_hi; a larger w is the weight of a sample the run may have
 * missed, and E = V = 0 gives w ln 40, the bound of what no sample hides (unseen.h). */
double est_hi_max(struct est e, double wmax)
{
    double n = est_n(e);
    if (!(wmax > 1) || !isfinite(wmax) || n < 0 || (n > 0 && wmax <= e.var / e.est))
        return est_hi(e);
    double y = (e.est > 0 ? e.est : 0) + wmax, v = (e.var > 0 ? e.var : 0) + wmax * wmax;
    double shape = y * y / v, scale = v / y;
    return scale * gamma_q(shape, 0.975, Z95);
}

struct est est_sub(struct est b, struct est a)
{
    struct est d = {b.est - a.est, b.var + a.var};
    return d;
}

double est_z(double coverage)
{
    /* The normal quantile by bisection on erfc: coverage in (0, 1). */
    double tail = 1 - coverage, lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = 0.5 * (lo + hi);
        if (erfc(mid / sqrt(2)) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double est_p_zero(struct est e)
{
    if (!(e.var > 0))
        return e.est == 0 ? 1 : 0;
    return erfc(fabs(e.est) / sqrt(2 * e.var));
}
