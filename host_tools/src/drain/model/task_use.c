/* Per-task in-use over time and budget events (task_use.h). */
#include "task_use.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void json_bytes(FILE *f, double x)
{
    fprintf(f, "%.0f", x);
}

_Static_assert(offsetof(struct task_use, id) == 0, "id_pos: the id leads");
static struct task_use *get(struct session *s, uint32_t id)
{
    if (!s->task_use)
        s->task_use = xcalloc(1, sizeof(*s->task_use));
    struct task_use_model *m = s->task_use;
    size_t lo = id_pos(m->t, m->n, sizeof(m->t[0]), id);
    if (lo < m->n && m->t[lo].id == id)
        return &m->t[lo];
    if (m->n >= DRAIN_MAX_TASKS)
        return NULL;
    GROW(m->t, m->cap, m->n + 1);
    memmove(&m->t[lo + 1], &m->t[lo], (m->n - lo) * sizeof(m->t[0]));
    m->n++;
    memset(&m->t[lo], 0, sizeof(m->t[0]));
    m->t[lo].id = id;
    return &m->t[lo];
}

/* The variance of a weight-w entry's estimate of its block's bytes, size^2 (w^2 - w). */
static double var_of(double w, double size)
{
    return w > 1 ? (w * w - w) * size * size : 0;
}

void task_use_change(struct session *s, const struct slot *sl, double w_old, double w_new,
                     const double *c_old, const double *c_new)
{
    uint32_t id = s->sites[sl->site].task;
    if (id == 0)
        return;
    struct task_use *t = get(s, id);
    if (!t)
        return;
    double size = (double)sl->size;
    t->nlive += (w_new > 0) - (w_old > 0);
    t->est += (w_new - w_old) * size;
    t->var += var_of(w_new, size) - var_of(w_old, size);
    t->a += (c_new[0] - c_old[0]) * size;
    t->b += (c_new[1] - c_old[1]) * size;
    t->bvar += var_of(c_new[1], size) - var_of(c_old[1], size);
    if (t->nlive == 0) /* no drift left over once nothing is live */
        t->est = t->var = t->a = t->b = t->bvar = 0;
    if (c_new[0] > c_old[0] && t->a > t->peak_a) {
        t->peak_a = t->a;
        t->peak_b = t->b;
        t->peak_bvar = t->bvar;
        t->peak_ts = s->last_ts;
        t->peak_ts_valid = s->ts_known;
    }
    double sd = sqrt(t->var > 0 ? t->var : 0);
    if (t->est > t->max_est)
        t->max_est = t->est;
    if (t->est + 1.96 * sd > t->hi[0])
        t->hi[0] = t->est + 1.96 * sd;
    if (t->est + 4 * sd > t->hi[1])
        t->hi[1] = t->est + 4 * sd;
}

void task_use_on_record(struct session *s, const struct msamp_record *r)
{
    struct task_use *t = get(s, (uint32_t)r->u.task_budget.task);
    if (!t)
        return;
    if (t->events++ == 0) {
        t->first_in_use = r->u.task_budget.in_use;
        t->first_ts = r->ts;
        t->first_ts_valid = r->ts_valid;
    }
    t->budget = r->u.task_budget.budget;
    t->device_peak = r->u.task_budget.peak;
    if (r->u.task_budget.events > t->device_events)
        t->device_events = r->u.task_budget.events;
}

void task_use_free(struct task_use_model *m)
{
    if (!m)
        return;
    free(m->t);
    free(m);
}

static const char *label(const struct session *s, uint32_t id, char *buf, size_t n)
{
    struct site st = {.task = id};
    return session_site_task(s, &st, buf, n);
}

const struct task_use *task_use_find(const struct session *s, const char *name)
{
    const struct task_use_model *m = s->task_use;
    char buf[32];
    for (size_t i = 0; m && i < m->n; i++)
        if (strcmp(label(s, m->t[i].id, buf, sizeof(buf)), name) == 0)
            return &m->t[i];
    return NULL;
}

/* The peak's 95 % (z 1.96) or 4-standard-error (z 4) interval. */
static void peak_bounds(const struct task_use *t, int k, double *lo, double *hi)
{
    double z = k ? 4 : 1.96, l = t->peak_b - z * sqrt(t->peak_bvar > 0 ? t->peak_bvar : 0);
    *lo = l > 0 ? l : 0;
    *hi = t->hi[k] > t->peak_b ? t->hi[k] : t->peak_b;
}

static double secs(const struct session *s, uint64_t ts, int valid)
{
    return valid && s->tick_hz && ts >= s->first_ts ? (double)(ts - s->first_ts) / (double)s->tick_hz
                                                    : -1;
}

void task_use_top(FILE *f, const struct session *s)
{
    const struct task_use_model *m = s->task_use;
    if (!m || m->n == 0)
        return;
    fprintf(f, "peak in-use by task (half the samples find the moment, the other half estimate it; "
               "highest: the running estimate's maximum, biased up; budgets: the device's "
               "TASK_BUDGET records):\n  %12s  %-25s %10s %9s  %10s %7s  %s\n",
            "peak bytes", "(95 % interval)", "highest", "at s", "budget", "events", "task");
    char buf[32], ci[64], at[32];
    for (size_t i = 0; i < m->n; i++) {
        const struct task_use *t = &m->t[i];
        double lo, hi, when = secs(s, t->peak_ts, t->peak_ts_valid);
        peak_bounds(t, 0, &lo, &hi);
        snprintf(ci, sizeof(ci), "(%.0f-%.0f)", lo, hi);
        snprintf(at, sizeof(at), when >= 0 ? "%.3f" : "-", when);
        fprintf(f, "  %12.0f  %-25s %10.0f %9s  ", t->peak_b, ci, t->max_est, at);
        if (t->events)
            fprintf(f, "%10llu %7llu  ", (unsigned long long)t->budget,
                    (unsigned long long)t->device_events);
        else
            fprintf(f, "%10s %7s  ", "-", "-");
        fprintf(f, "%s\n", label(s, t->id, buf, sizeof(buf)));
    }
    for (size_t i = 0; i < m->n; i++) {
        const struct task_use *t = &m->t[i];
        if (!t->events)
            continue;
        double when = secs(s, t->first_ts, t->first_ts_valid);
        at[0] = '\0';
        if (when >= 0)
            snprintf(at, sizeof(at), " at %.3f s", when);
        fprintf(f, "budget: task %s passed its budget of %llu B %llu time(s) (%llu record(s) "
                   "received); first%s with %llu B in use by the device's estimate\n",
                label(s, t->id, buf, sizeof(buf)), (unsigned long long)t->budget,
                (unsigned long long)t->device_events, (unsigned long long)t->events, at,
                (unsigned long long)t->first_in_use);
    }
}

void task_use_json(FILE *f, const struct session *s, const char *name)
{
    const struct task_use *t = task_use_find(s, name);
    if (!t) {
        fputs(", \"peak\": null, \"budget\": null, \"events\": 0", f);
        return;
    }
    double lo, hi, lo4, hi4, when = secs(s, t->peak_ts, t->peak_ts_valid);
    peak_bounds(t, 0, &lo, &hi);
    peak_bounds(t, 1, &lo4, &hi4);
    fputs(", \"peak\": {\"inuse_bytes\": {\"est\": ", f);
    json_bytes(f, t->peak_b);
    fputs(", \"lo\": ", f);
    json_bytes(f, lo);
    fputs(", \"hi\": ", f);
    json_bytes(f, hi);
    fputs(", \"lo_4se\": ", f);
    json_bytes(f, lo4);
    fputs(", \"hi_4se\": ", f);
    json_bytes(f, hi4);
    fputs("}, \"max_estimate\": ", f);
    json_bytes(f, t->max_est);
    fputs(", \"at_s\": ", f);
    if (when >= 0)
        fprintf(f, "%.6f", when);
    else
        fputs("null", f);
    fputs("}, \"budget\": ", f);
    if (t->events)
        fprintf(f, "%llu", (unsigned long long)t->budget);
    else
        fputs("null", f);
    fprintf(f, ", \"events\": %llu, \"events_received\": %llu",
            (unsigned long long)t->device_events, (unsigned long long)t->events);
}

void task_use_comments(const struct session *s, void (*add)(void *ctx, const char *line),
                       void *ctx)
{
    const struct task_use_model *m = s->task_use;
    char buf[32], line[256];
    for (size_t i = 0; m && i < m->n; i++) {
        const struct task_use *t = &m->t[i];
        double lo, hi;
        peak_bounds(t, 0, &lo, &hi);
        int n = snprintf(line, sizeof(line), "task %s: peak in-use %.0f B (95 %%: %.0f-%.0f)",
                         label(s, t->id, buf, sizeof(buf)), t->peak_b, lo, hi);
        if (t->events && n > 0 && (size_t)n < sizeof(line))
            snprintf(line + n, sizeof(line) - (size_t)n, "; passed its budget of %llu B %llu time(s)",
                     (unsigned long long)t->budget, (unsigned long long)t->device_events);
        add(ctx, line);
    }
}
