/* Per-task in-use over time and budget events (RTOS devices, docs/HEALTH.md#task-budgets): each
 * task's running in-use estimate from its live sampled entries, its peak with an interval, and the
 * TASK_BUDGET records of the device. */
#ifndef DRAIN_TASK_USE_H
#define DRAIN_TASK_USE_H

#include <stdio.h>

#include "model/session.h"

/* One task's figures. The peak is estimated as the session's is (docs/VERDICTS.md "The peak"):
 * half A of the samples picks the moment (its maximum), half B's estimate then is unbiased for the
 * task's in-use at that moment, which is at most its true peak; the same the other way round, and
 * the peak is the mean of the two. It is placed only when the blocks of the other half live at
 * those moments are GR_PEAK_SAMPLES or more (or every block was sampled surely): else "not
 * placed", with its upper bound. Any moment's estimate plus z standard errors bounds the in-use
 * then from above, the true peak's moment's too: the largest such sum over the session (hi[0]:
 * z = 1.96, hi[1]: z = 4) is an upper bound. */
struct task_use {
    uint32_t id;
    uint64_t nlive;
    double est, var; /* in-use bytes now (all samples) and its variance */
    /* Each half's (h: 0 for A, 1 for B) in-use bytes now, its variance and its live entries; its
     * maximum so far, and the other half's figures at that maximum (at[h]). */
    struct task_half {
        double est, var;
        uint64_t n;
    } half[2], at[2];
    double max[2];
    double max_est, hi[2];
    uint64_t peak_ts; /* the time of half A's maximum */
    int peak_ts_valid;
    /* TASK_BUDGET records: how many came, the latest one's budget and the device's count of
     * crossings (more than came: some were lost), the first's time, its estimate and peak then. */
    uint64_t events, device_events, budget, first_in_use, device_peak, first_ts;
    int first_ts_valid;
};

/* A task's peak: the estimate (the mean of both ways round) and its variance, the 95 % and
 * 4-standard-error intervals, the sampled blocks at the moments chosen, whether they place it
 * (placed 0: the peak is at most hi, 95 %), its time (-1: unknown). */
struct task_peak {
    double est, var, lo, hi, lo4, hi4, at_s;
    uint64_t blocks;
    int placed;
};
void task_use_peak(const struct session *s, const struct task_use *t, struct task_peak *out);

struct task_use_model {
    struct task_use *t; /* by id */
    size_t n, cap;
};

/* A live entry's weight changed (w_old -> w_new; 0: not live), its half weights c_old, c_new. */
void task_use_change(struct session *s, const struct slot *sl, double w_old, double w_new,
                     const double *c_old, const double *c_new);
void task_use_on_record(struct session *s, const struct msamp_record *r);
void task_use_free(struct task_use_model *m);
/* The task whose label (session_site_task) is name, or NULL. */
const struct task_use *task_use_find(const struct session *s, const char *name);
/* --top: the peak in-use by task and the budget events (nothing without tasks). */
void task_use_top(FILE *f, const struct session *s);
/* --json: the members of a tasks[] entry (each preceded by ", "): peak, budget, events. */
void task_use_json(FILE *f, const struct session *s, const char *name);
/* The profile's comments: one line per task with a peak or budget events. */
void task_use_comments(const struct session *s, void (*add)(void *ctx, const char *line),
                       void *ctx);

#endif
