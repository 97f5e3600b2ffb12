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

/* The four estimates of a site, task or the totals (all), marked where they are lower bounds
 * (docs/VERDICTS.md "Marks"), with the refused samples behind the mark when there are any. */
static void write_ests(FILE *f, const struct vprof *v, const struct est *e,
                       const struct vrefused *r, int all)
{
    for (int k = 0; k < E_COUNT; k++) {
        fprintf(f, "%s", k ? ", " : "");
        json_str(f, vprof_est_name[k]);
        fputs(": ", f);
        double add;
        int marked = vprof_marked(v, r, all, k, &add);
        json_est(f, v, k, e[k], marked, add);
    }
    if (r->samples) {
        fprintf(f, ", \"refused\": {\"samples\": %llu, \"inuse_objects\": ",
                (unsigned long long)r->samples);
        json_num(f, r->n);
        fputs(", \"inuse_bytes\": ", f);
        json_num(f, r->b);
        fputc('}', f);
    }
}

static int by_task(const void *a, const void *b)
{
    return strcmp((*(const struct vsite *const *)a)->task, (*(const struct vsite *const *)b)->task);
}

void json_est_sym(FILE *f, struct est e)
{
    fputs("{\"est\": ", f);
    json_num(f, e.est);
    fputs(", \"lo\": ", f);
    json_num(f, est_sym_lo(e));
    fputs(", \"hi\": ", f);
    json_num(f, est_sym_hi(e));
    fputc('}', f);
}

/* The i-th entry of a list of growth verdicts: {"stack": [...], "task": ...} of the site of
 * profile sample sample, then (name not NULL) "name": e and the times t[] under tname[]. */
static void write_grown(FILE *f, const struct vprof *v, uint32_t sample, size_t i,
                        const char *name, struct est e, const char *const *tname, const double *t,
                        int nt)
{
    const struct vsite *s = &v->site[v->site_of[sample]];
    fputs(i ? ",\n    {\"stack\": " : "\n    {\"stack\": ", f);
    json_stack(f, v, s);
    fputs(", \"task\": ", f);
    json_str(f, s->task);
    if (name) {
        fprintf(f, ", \"%s\": ", name);
        json_est_sym(f, e);
    }
    for (int k = 0; k < nt; k++) {
        fprintf(f, ", \"%s\": ", tname[k]);
        json_num(f, t[k]);
    }
    fputc('}', f);
}

void json_leak_sites(FILE *f, const struct vprof *v)
{
    struct growth_leak *lk = xmalloc(JSON_MAX_LEAKS * sizeof(*lk));
    size_t nl = growth_leaks_from_prof(v->p, lk, JSON_MAX_LEAKS);
    fputc('[', f);
    for (size_t i = 0; i < nl; i++)
        write_grown(f, v, lk[i].sample, i, NULL, lk[i].slope_bytes_per_s, NULL, NULL, 0);
    fputc(']', f);
    free(lk);
}

/* "exhaustion" (docs/VERDICTS.md "Time to exhaustion"): null when the profile holds no forecast;
 * seconds from the last HEAP record, null where unbounded (never at the present growth). */
static void write_exhaustion(FILE *f, const struct vprof *v)
{
    struct exhaustion e;
    fputs(",\n  \"exhaustion\": ", f);
    if (!exhaust_from_prof(v->p, &e)) {
        fputs("null", f);
        return;
    }
    if (!exhaust_json(f, &e))
        return;
    fputs(", \"at_s\": ", f);
    json_num(f, e.at_s);
    fputs(", \"growth_bytes_per_s\": ", f);
    json_est_sym(f, e.rate);
    fputs(", \"overhead_bytes_per_block\": ", f);
    json_est_sym(f, e.overhead);
    fprintf(f, ", \"basis\": \"%s\", \"driver\": ", e.basis == EX_LEAKS ? "leaks" : "total");
    if (e.driver == UINT32_MAX) {
        fputs("null}", f);
        return;
    }
    const struct vsite *s = &v->site[v->site_of[e.driver]];
    fputs("{\"stack\": ", f);
    json_stack(f, v, s);
    fputs(", \"task\": ", f);
    json_str(f, s->task);
    fputs("}}", f);
}

static void write_session(FILE *f, const struct json_session *js, const struct vprof *v)
{
    fputs("{\"session\": ", f);
    json_str(f, js->session);
    fputs(", \"device\": ", f);
    json_str(f, js->device);
    fputs(", \"interval\": ", f);
    json_num(f, js->interval);
    fprintf(f, ", \"variance\": %s", v->has_var ? "\"known\"" : "\"unknown\"");
    fprintf(f, ", \"complete\": %s",
            !v->marks.known ? "null" : v->marks.complete ? "true" : "false");
    fputs(", \"marks\": ", f);
    if (v->marks.known) {
        fprintf(f, "{\"refused\": %llu, \"unattributed\": %llu, \"lost\": %llu, \"note\": ",
                (unsigned long long)v->marks.refused, (unsigned long long)v->marks.unattributed,
                (unsigned long long)v->marks.lost);
        json_str(f, v->marks.note[0] ? v->marks.note : NULL);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    struct clock_verdict cv;
    fputs(", \"clock_warning\": ", f);
    if (clock_from_prof(js->p, &cv)) {
        fputs("{\"device_s\": ", f);
        json_num(f, cv.device_s);
        fputs(", \"arrival_s\": ", f);
        json_num(f, cv.arrival_s >= 0 ? cv.arrival_s : NAN);
        fputs(", \"note\": ", f);
        json_str(f, cv.note);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"totals\": {", f);
    write_ests(f, v, v->total, &v->total_refused, 1);
    fputs("},\n  \"sites\": [", f);
    for (size_t i = 0; i < v->nsite; i++) {
        const struct vsite *s = &v->site[i];
        fputs(i ? ",\n    {\"stack\": " : "\n    {\"stack\": ", f);
        json_stack(f, v, s);
        fputs(", \"task\": ", f);
        json_str(f, s->task);
        fputs(", \"samples\": ", f);
        if (v->has_var)
            fprintf(f, "%llu", (unsigned long long)s->samples);
        else
            fputs("null", f);
        fputs(", ", f);
        write_ests(f, v, s->e, &s->refused, 0);
        fputc('}', f);
    }
    fputs("],\n  \"tasks\": [", f);
    /* per task (an RTOS device's): the sums of its sites, by task name */
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
        fputs(groups++ ? ",\n    {\"task\": " : "\n    {\"task\": ", f);
        json_str(f, t);
        fputs(", ", f);
        write_ests(f, v, sum, &ref, 0);
        if (js->task_extra)
            js->task_extra(f, js->ctx, t);
        fputc('}', f);
    }
    free(ts);
    fputs("],\n  \"peak\": ", f);
    struct growth_peak pk;
    double lo, hi;
    int marked;
    if (growth_peak_interval(js->p, &pk, &lo, &hi, &marked)) {
        /* not placed: no estimate, its interval only (docs/VERDICTS.md "The peak") */
        fputs("{\"inuse_bytes\": ", f);
        json_interval(f, pk.known ? pk.inuse_bytes.est : NAN, lo, hi, marked);
        fprintf(f, ", \"placed\": %s, \"at_s\": ", pk.known ? "true" : "false");
        json_num(f, pk.known ? pk.at_s : NAN);
        fputs(", \"method\": ", f);
        json_str(f, pk.method);
        fputs(", \"note\": ", f);
        json_str(f, pk.note);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputs(",\n  \"leaks\": [", f);
    struct growth_leak *lk = xmalloc(JSON_MAX_LEAKS * sizeof(*lk));
    size_t nl = growth_leaks_from_prof(js->p, lk, JSON_MAX_LEAKS);
    static const char *const since[] = {"since_s"}, *const from_to[] = {"from_s", "to_s"};
    for (size_t i = 0; i < nl; i++)
        write_grown(f, v, lk[i].sample, i, "growth_bytes_per_s", lk[i].slope_bytes_per_s, since,
                    &lk[i].since_s, 1);
    free(lk);
    fputs("],\n  \"steps\": [", f);
    struct growth_step *st = xmalloc(JSON_MAX_LEAKS * sizeof(*st));
    size_t ns = growth_steps_from_prof(js->p, st, JSON_MAX_LEAKS);
    for (size_t i = 0; i < ns; i++)
        write_grown(f, v, st[i].sample, i, "bytes", st[i].bytes, from_to,
                    (const double[]){st[i].from_s, st[i].to_s}, 2);
    free(st);
    fputc(']', f);
    write_exhaustion(f, v);
    struct ended en;
    ended_from_prof(js->p, &en);
    ended_json(f, &en);
    if (js->extra)
        js->extra(f, js->ctx, js->p, v);
    fputc('}', f);
}

int json_write(const char *path, const struct json_session *s, size_t n, char *why,
               size_t whylen)
{
    struct out_file o = {stdout, path, NULL};
    if (strcmp(path, "-") != 0 && out_open(&o, path, why, whylen) != 0)
        return -1;
    FILE *f = o.f;
    int rc = 0;
    fputs("{\"sessions\": [", f);
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct vprof v;
        if (vprof_build(s[i].p, &v, why, whylen) != 0) {
            rc = -1;
            break;
        }
        fputs(i ? ",\n " : "\n ", f);
        write_session(f, &s[i], &v);
        vprof_free(&v);
    }
    fputs("]}\n", f);
    return out_close(&o, rc != 0, why, whylen);
}
