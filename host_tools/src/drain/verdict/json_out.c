/* --json (json_out.h): totals, sites, peak and leaks with 95 % intervals. */
#include "verdict/json_out.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/clock.h"
#include "verdict/ended.h"
#include "verdict/exhaust.h"
#include "verdict/growth.h"
#include "verdict/vprof.h"
#include "util.h"

#define JSON_MAX_LEAKS 4096

/* A member after the first: ", "key": " and its value (a number, a string or NULL, an estimate
 * with its symmetric interval). */
static void key_open(FILE *f, const char *key)
{
    jputs(", \"", f);
    jputs(key, f);
    jputs("\": ", f);
}

static void key_num(FILE *f, const char *key, double x)
{
    key_open(f, key);
    json_num(f, x);
}

static void key_str(FILE *f, const char *key, const char *x)
{
    key_open(f, key);
    json_str(f, x);
}

static void key_est(FILE *f, const char *key, struct est e)
{
    key_open(f, key);
    json_est_sym(f, e);
}

/* The four estimates of a site, task or the totals (all), marked where they are lower bounds
 * (docs/VERDICTS.md "Marks"), with the refused samples behind the mark when there are any. */
static void write_ests(FILE *f, const struct vprof *v, const struct est *e,
                       const struct vrefused *r, int all)
{
    for (int k = 0; k < E_COUNT; k++) {
        static const char *const quoted[E_COUNT] = {
            "\"inuse_bytes\": ", "\"alloc_bytes\": ", "\"inuse_objects\": ", "\"alloc_objects\": "};
        jputs(k ? ", " : "", f);
        jputs(quoted[k], f); /* vprof_est_name[k] as a JSON key */
        double add;
        int marked = vprof_marked(v, r, all, k, &add);
        json_est(f, v, k, e[k], marked, add);
    }
    if (r->samples) {
        jputs(", \"refused\": {\"samples\": ", f);
        json_u64(f, r->samples);
        jputs(", \"inuse_objects\": ", f);
        json_num(f, r->n);
        key_num(f, "inuse_bytes", r->b);
        putc_unlocked('}', f);
    }
}

static int by_task(const void *a, const void *b)
{
    return strcmp((*(const struct vsite *const *)a)->task, (*(const struct vsite *const *)b)->task);
}

void json_est_sym(FILE *f, struct est e)
{
    jputs("{\"est\": ", f);
    json_num(f, e.est);
    key_num(f, "lo", est_sym_lo(e));
    key_num(f, "hi", est_sym_hi(e));
    putc_unlocked('}', f);
}

/* The i-th entry of a list of growth verdicts: {"stack": [...], "task": ...} of the site of
 * profile sample sample, then (name not NULL) "name": e and the times t[] under tname[]. */
static void write_grown(FILE *f, const struct vprof *v, uint32_t sample, size_t i,
                        const char *name, struct est e, const char *const *tname, const double *t,
                        int nt)
{
    const struct vsite *s = &v->site[v->site_of[sample]];
    jputs(i ? ",\n    {\"stack\": " : "\n    {\"stack\": ", f);
    json_stack(f, v, s);
    key_str(f, "task", s->task);
    if (name)
        key_est(f, name, e);
    for (int k = 0; k < nt; k++)
        key_num(f, tname[k], t[k]);
    putc_unlocked('}', f);
}

void json_leak_sites(FILE *f, const struct vprof *v)
{
    struct growth_leak *lk = xmalloc(JSON_MAX_LEAKS * sizeof(*lk));
    size_t nl = growth_leaks_from_prof(v->p, lk, JSON_MAX_LEAKS);
    putc_unlocked('[', f);
    for (size_t i = 0; i < nl; i++)
        write_grown(f, v, lk[i].sample, i, NULL, lk[i].slope_bytes_per_s, NULL, NULL, 0);
    putc_unlocked(']', f);
    free(lk);
}

/* "exhaustion" (docs/VERDICTS.md "Time to exhaustion"): null when the profile holds no forecast;
 * seconds from the last HEAP record, null where unbounded (never at the present growth). */
static void write_exhaustion(FILE *f, const struct vprof *v)
{
    struct exhaustion e;
    jputs(",\n  \"exhaustion\": ", f);
    if (!exhaust_from_prof(v->p, &e)) {
        jputs("null", f);
        return;
    }
    if (!exhaust_json(f, &e))
        return;
    key_num(f, "at_s", e.at_s);
    key_est(f, "growth_bytes_per_s", e.rate);
    key_est(f, "overhead_bytes_per_block", e.overhead);
    fprintf(f, ", \"basis\": \"%s\", \"driver\": ", e.basis == EX_LEAKS ? "leaks" : "total");
    if (e.driver == UINT32_MAX) {
        jputs("null}", f);
        return;
    }
    const struct vsite *s = &v->site[v->site_of[e.driver]];
    jputs("{\"stack\": ", f);
    json_stack(f, v, s);
    key_str(f, "task", s->task);
    jputs("}}", f);
}

/* The session's header: its names and interval, whether variances are known, its marks
 * (docs/VERDICTS.md "Marks") and the clock's warning. */
static void write_about(FILE *f, const struct json_session *js, const struct vprof *v)
{
    jputs("{\"session\": ", f);
    json_str(f, js->session);
    key_str(f, "device", js->device);
    key_num(f, "interval", js->interval);
    fprintf(f, ", \"variance\": %s", v->has_var ? "\"known\"" : "\"unknown\"");
    fprintf(f, ", \"complete\": %s",
            !v->marks.known ? "null" : v->marks.complete ? "true" : "false");
    jputs(", \"marks\": ", f);
    if (v->marks.known) {
        fprintf(f, "{\"refused\": %llu, \"unattributed\": %llu, \"lost\": %llu",
                (unsigned long long)v->marks.refused, (unsigned long long)v->marks.unattributed,
                (unsigned long long)v->marks.lost);
        key_str(f, "note", v->marks.note[0] ? v->marks.note : NULL);
        putc_unlocked('}', f);
    } else {
        jputs("null", f);
    }
    struct clock_verdict cv;
    jputs(", \"clock_warning\": ", f);
    if (!clock_from_prof(js->p, &cv)) {
        jputs("null", f);
        return;
    }
    jputs("{\"device_s\": ", f);
    json_num(f, cv.device_s);
    key_num(f, "arrival_s", cv.arrival_s >= 0 ? cv.arrival_s : NAN);
    key_str(f, "note", cv.note);
    putc_unlocked('}', f);
}

/* The "sites" array's members. */
static void write_sites(FILE *f, const struct vprof *v)
{
    for (size_t i = 0; i < v->nsite; i++) {
        const struct vsite *s = &v->site[i];
        jputs(i ? ",\n    {\"stack\": " : "\n    {\"stack\": ", f);
        json_stack(f, v, s);
        key_str(f, "task", s->task);
        jputs(", \"samples\": ", f);
        if (v->has_var)
            json_u64(f, s->samples);
        else
            jputs("null", f);
        jputs(", ", f);
        write_ests(f, v, s->e, &s->refused, 0);
        putc_unlocked('}', f);
    }
}

/* The "tasks" array's members (an RTOS device's): the sums of each task's sites, by task name. */
static void write_tasks(FILE *f, const struct json_session *js, const struct vprof *v)
{
    size_t nt = 0, groups = 0;
    const struct vsite **ts = xmalloc((v->nsite + 1) * sizeof(*ts));
    for (size_t i = 0; i < v->nsite; i++)
        if (v->site[i].task)
            ts[nt++] = &v->site[i];
    qsort(ts, nt, sizeof(*ts), by_task);
    for (size_t i = 0; i < nt;) {
        const char *t = ts[i]->task;
        struct est sum[E_COUNT] = {{0, 0}};
        struct vrefused ref = {0, 0, 0};
        for (; i < nt && strcmp(ts[i]->task, t) == 0; i++) {
            for (int e = 0; e < E_COUNT; e++) {
                sum[e].est += ts[i]->e[e].est;
                sum[e].var += ts[i]->e[e].var;
            }
            ref.samples += ts[i]->refused.samples;
            ref.n += ts[i]->refused.n;
            ref.b += ts[i]->refused.b;
        }
        jputs(groups++ ? ",\n    {\"task\": " : "\n    {\"task\": ", f);
        json_str(f, t);
        jputs(", ", f);
        write_ests(f, v, sum, &ref, 0);
        if (js->task_extra)
            js->task_extra(f, js->ctx, t);
        putc_unlocked('}', f);
    }
    free(ts);
}

/* "peak": its interval, and its estimate and time when placed (docs/VERDICTS.md "The peak");
 * null when the profile holds none. */
static void write_peak(FILE *f, const struct json_session *js)
{
    struct growth_peak pk;
    double lo, hi;
    int marked;
    if (!growth_peak_interval(js->p, &pk, &lo, &hi, &marked)) {
        jputs("null", f);
        return;
    }
    jputs("{\"inuse_bytes\": ", f);
    json_interval(f, pk.known ? pk.inuse_bytes.est : NAN, lo, hi, marked);
    fprintf(f, ", \"placed\": %s", pk.known ? "true" : "false");
    key_num(f, "at_s", pk.known ? pk.at_s : NAN);
    key_str(f, "method", pk.method);
    key_str(f, "note", pk.note);
    putc_unlocked('}', f);
}

/* "leaks" and "steps": the growth verdicts the profile holds. */
static void write_growth(FILE *f, const struct json_session *js, const struct vprof *v)
{
    jputs(",\n  \"leaks\": [", f);
    struct growth_leak *lk = xmalloc(JSON_MAX_LEAKS * sizeof(*lk));
    size_t nl = growth_leaks_from_prof(js->p, lk, JSON_MAX_LEAKS);
    static const char *const since[] = {"since_s"}, *const from_to[] = {"from_s", "to_s"};
    for (size_t i = 0; i < nl; i++)
        write_grown(f, v, lk[i].sample, i, "growth_bytes_per_s", lk[i].slope_bytes_per_s, since,
                    &lk[i].since_s, 1);
    free(lk);
    jputs("],\n  \"steps\": [", f);
    struct growth_step *st = xmalloc(JSON_MAX_LEAKS * sizeof(*st));
    size_t ns = growth_steps_from_prof(js->p, st, JSON_MAX_LEAKS);
    for (size_t i = 0; i < ns; i++)
        write_grown(f, v, st[i].sample, i, "bytes", st[i].bytes, from_to,
                    (const double[]){st[i].from_s, st[i].to_s}, 2);
    free(st);
    putc_unlocked(']', f);
}

static void write_session(FILE *f, const struct json_session *js, const struct vprof *v)
{
    write_about(f, js, v);
    jputs(",\n  \"totals\": {", f);
    write_ests(f, v, v->total, &v->total_refused, 1);
    jputs("},\n  \"sites\": [", f);
    write_sites(f, v);
    jputs("],\n  \"tasks\": [", f);
    write_tasks(f, js, v);
    jputs("],\n  \"peak\": ", f);
    write_peak(f, js);
    write_growth(f, js, v);
    write_exhaustion(f, v);
    struct ended en;
    ended_from_prof(js->p, &en);
    ended_json(f, &en);
    if (js->extra)
        js->extra(f, js->ctx, js->p, v);
    putc_unlocked('}', f);
}

int json_write(const char *path, const struct json_session *s, size_t n, char *why,
               size_t whylen)
{
    struct out_file o = {stdout, path, NULL};
    if (strcmp(path, "-") != 0 && out_open(&o, path, why, whylen) != 0)
        return -1;
    FILE *f = o.f;
    int rc = 0;
    jputs("{\"sessions\": [", f);
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct vprof v;
        if (vprof_build(s[i].p, &v, why, whylen) != 0) {
            rc = -1;
            break;
        }
        jputs(i ? ",\n " : "\n ", f);
        write_session(f, &s[i], &v);
        vprof_free(&v);
    }
    jputs("]}\n", f);
    return out_close(&o, rc != 0, why, whylen);
}
