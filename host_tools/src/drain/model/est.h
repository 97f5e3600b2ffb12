/*
 * An estimate with its variance, and its 95 % interval. drain's estimates are Horvitz-Thompson
 * sums: each sampled block of size s stands for w = 1/P blocks (P its inclusion probability,
 * thinning included), and contributes s*w to a bytes estimate and s*s*(w*w - w) to its variance
 * (w and w*w - w for objects). docs/VERDICTS.md has the formulas and the interval's method.
 */
#ifndef DRAIN_EST_H
#define DRAIN_EST_H

struct est {
    double est, var;
};

/* The 95 % interval of an estimate of a non-negative total (bytes, objects, a peak): a scaled
 * Poisson (Garwood) interval on the estimate's effective sample count n = est^2 / var, which is
 * exact for n equal-weight samples and becomes the normal interval as n grows; [est, est] when
 * var is 0 (every block counted), never below 0 ([0, 1.96 sqrt(var)] for an estimate of 0). An
 * estimate below 0 (a slope, a change) gets the normal interval, as est_sym_lo/est_sym_hi. */
double est_lo(struct est e);
double est_hi(struct est e);

/* The upper end of the 95 % interval of a sum of samples none of which may weigh more than
 * wmax (bytes: the largest sampling interval of the session, a sample a run may have missed):
 * Fay and Feuer's gamma interval, est_hi widened where wmax exceeds the estimate's own mean
 * weight V/E (a site seen only at low intervals in a session whose interval rose), and
 * wmax * ln 40 for an estimate of 0. wmax <= 1 (every byte sampled) or unknown (NAN): est_hi. */
double est_hi_max(struct est e, double wmax);

/* The low end at another level: it leaves out `tail` (in (0, 0.5]) of the distribution below,
 * a one-sided lower confidence bound at level 1 - tail (est_lo_at(e, 0.025) is est_lo(e)).
 * drain check judges a family of budgets with it (docs/VERDICTS.md "Budgets as a family"). */
double est_lo_at(struct est e, double tail);

/* The normal 95 % interval est -/+ 1.96 sqrt(var): for quantities that can be negative (the
 * change between two profiles, a slope). */
double est_sym_lo(struct est e);
double est_sym_hi(struct est e);
/* Its lower end at another level, as est_lo_at. */
double est_sym_lo_at(struct est e, double tail);

/* The difference b - a (variances add: independent samples). */
struct est est_sub(struct est b, struct est a);

/* z for a two-sided interval of this coverage (0.95 -> 1.96), and the two-sided normal p-value
 * of an estimate against 0. */
double est_z(double coverage);
double est_p_zero(struct est e);

#endif
