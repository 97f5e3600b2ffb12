/* Per-task in-use over time and budget events (task_use.h). */
#include "model/task_use.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "model/growth_track.h"

static void json_bytes(FILE *f, double x)
{
    fprintf(f, "%.0f", x);
}

static void free_part(void *p)
{
    task_use_free(p);
}

_Static_assert(offsetof(struct task_use, id) == 0, "id_pos: the id leads");
static struct task_use *get(struct session *s, uint32_t id)
{
    if (!s->task_use) {
        s->task_use = xcalloc(1, sizeof(*s->task_use));
        session_attach(s, free_part, s->task_use);
    }
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
    for (int h = 0; h < 2; h++) {
        struct task_half *x = &t->half[h];
        x->n += (c_new[h] > 0) - (c_old[h] > 0);
        x->est += (c_new[h] - c_old[h]) * size;
        x->var += var_of(c_new[h], size) - var_of(c_old[h], size);
    }
    if (t->nlive == 0) /* no drift left over once nothing is live */
        t->est = t->var = t->half[0].est = t->half[1].est = t->half[0].var = t->half[1].var = 0;
    for (int h = 0; h < 2; h++) {
        if (!(c_new[h] > c_old[h] && t->half[h].est > t->max[h]))
            continue;
        t->max[h] = t->half[h].est;
        t->at[h] = t->half[1 - h];
        if (h == 0) { /* half A picks the moment */
            t->peak_ts = s->last_ts;
            t->peak_ts_valid = s->ts_known;
        }
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

void task_use_peak(const struct session *s, const struct task_use *t, struct task_peak *out)
{
    double est = (t->at[0].est + t->at[1].est) / 2, var = (t->at[0].var + t->at[1].var) / 4;
    out->est = est > 0 ? est : 0;
    out->var = var > 0 ? var : 0;
    out->blocks = t->at[0].n + t->at[1].n;
    /* The session's rule (growth_peak_of): enough blocks, or every one sampled surely (no
     * variance, and no moment's bound above the estimate). */
    out->placed = out->blocks >= GR_PEAK_SAMPLES || (out->var == 0 && t->hi[0] <= out->est + 0.5);
    double sd = sqrt(out->var), l = out->est - 1.96 * sd, l4 = out->est - 4 * sd;
    out->lo = out->placed && l > 0 ? l : 0;
    out->lo4 = out->placed && l4 > 0 ? l4 : 0;
    out->hi = t->hi[0] > out->est ? t->hi[0] : out->est;
    out->hi4 = t->hi[1] > out->est ? t->hi[1] : out->est;
    out->at_s = session_time_s(s, t->peak_ts, t->peak_ts_valid);
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
    char buf[32], ci[64], at[32], pk[32];
    int unplaced = 0;
    for (size_t i = 0; i < m->n; i++) {
        const struct task_use *t = &m->t[i];
        struct task_peak p;
        task_use_peak(s, t, &p);
        if (p.placed) {
            snprintf(pk, sizeof(pk), "%.0f", p.est);
            snprintf(ci, sizeof(ci), "(%.0f-%.0f)", p.lo, p.hi);
            snprintf(at, sizeof(at), p.at_s >= 0 ? "%.3f" : "-", p.at_s);
        } else { /* docs/VERDICTS.md "The peak": its bound only */
            unplaced++;
            snprintf(pk, sizeof(pk), "not placed");
            snprintf(ci, sizeof(ci), "(at most %.0f)", p.hi);
            snprintf(at, sizeof(at), "-");
        }
        fprintf(f, "  %12s  %-25s %10.0f %9s  ", pk, ci, t->max_est, at);
        if (t->events)
            fprintf(f, "%10llu %7llu  ", (unsigned long long)t->budget,
                    (unsigned long long)t->device_events);
        else
            fprintf(f, "%10s %7s  ", "-", "-");
        fprintf(f, "%s\n", label(s, t->id, buf, sizeof(buf)));
    }
    if (unplaced)
        fprintf(f, "  not placed: fewer than %d sampled blocks of the task live at the moments "
                   "chosen, too few to place its peak; it is at most the bound (95 %%)\n",
                GR_PEAK_SAMPLES);
    for (size_t i = 0; i < m->n; i++) {
        const struct task_use *t = &m->t[i];
        if (!t->events)
            continue;
        double when = session_time_s(s, t->first_ts, t->first_ts_valid);
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
    struct task_peak p;
    task_use_peak(s, t, &p);
    fputs(", \"peak\": {\"inuse_bytes\": {\"est\": ", f);
    if (p.placed)
        json_bytes(f, p.est);
    else
        fputs("null", f); /* not placed: its bounds only */
    const struct {
        const char *name;
        double bytes;
    } bound[4] = {{"lo", p.lo}, {"hi", p.hi}, {"lo_4se", p.lo4}, {"hi_4se", p.hi4}};
    for (int i = 0; i < 4; i++) {
        fprintf(f, ", \"%s\": ", bound[i].name);
        json_bytes(f, bound[i].bytes);
    }
    fprintf(f, "}, \"placed\": %s, \"blocks\": %llu, \"max_estimate\": ",
            p.placed ? "true" : "false", (unsigned long long)p.blocks);
    json_bytes(f, t->max_est);
    fputs(", \"at_s\": ", f);
    if (p.placed && p.at_s >= 0)
        fprintf(f, "%.6f", p.at_s);
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
        struct task_peak p;
        task_use_peak(s, t, &p);
        const char *name = label(s, t->id, buf, sizeof(buf));
        int n = p.placed ? snprintf(line, sizeof(line),
                                    "task %s: peak in-use %.0f B (95 %%: %.0f-%.0f)", name, p.est,
                                    p.lo, p.hi)
                         : snprintf(line, sizeof(line),
                                    "task %s: peak in-use not placed (%llu sampled blocks at the "
                                    "moments chosen), at most %.0f B (95 %%)",
                                    name, (unsigned long long)p.blocks, p.hi);
        if (t->events && n > 0 && (size_t)n < sizeof(line))
            snprintf(line + n, sizeof(line) - (size_t)n, "; passed its budget of %llu B %llu time(s)",
                     (unsigned long long)t->budget, (unsigned long long)t->device_events);
        add(ctx, line);
    }
}
