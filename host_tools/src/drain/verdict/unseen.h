/*
 * No live sample (docs/VERDICTS.md "No live sample"): sampling is a Poisson process over bytes
 * with mean interval R, so L bytes in use hold no live sample with probability exp(-L/R), however
 * they are split into blocks (a thinning keeps this law at its raised interval). A set of sites
 * none of whose blocks is a live sample (a site, a function's or a task's sum, the sites of no
 * sample at all) then holds at most R ln 40 bytes with 97.5 %: the upper end of its in-use where
 * its estimate, 0, would claim [0, 0]. R is the largest interval any of its entries could have
 * been sampled at: the session's largest (session.interval_max); 0 bytes at interval 1, where
 * every block is sampled. No such bound holds for objects (blocks of 0 bytes are never sampled).
 *
 * The profile holds R in a comment, "msamp-verdict unseen|interval=R|bound=B" (B the bytes);
 * `drain merge` keeps the largest R of its inputs (none when an input has none).
 */
#ifndef DRAIN_UNSEEN_H
#define DRAIN_UNSEEN_H

#include <stdint.h>

struct prof;

/* The 97.5 % bound of the bytes a set with no live sample holds at largest interval R. */
double unseen_bound(double interval);
/* Writes the comment of interval R (>= 1; a session whose interval never became known has no
 * bound: none is written) into p. */
void unseen_write(struct prof *p, double interval);
/* The bound p holds (bytes), NAN when it holds none (a drain before it wrote p); *interval R (may
 * be NULL). */
double unseen_from_prof(const struct prof *p, double *interval);

#endif
