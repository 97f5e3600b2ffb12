/* The table of drain's views (views.h): one entry a view. */
#include "views/views.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "views/flame.h"
#include "model/heap.h"
#include "views/health.h"
#include "views/heapmap.h"
#include "views/leaks.h"
#include "input/heapwalk.h"
#include "pprof/prof_file.h"
#include "views/report.h"
#include "views/timeline.h"
#include "util.h"
#include "verdict/json_out.h"
#include "model/growth_track.h"
#include "model/task_use.h"

/* The views' options (views[]). */
static int check_top(const char *arg, long *val, char *msg, size_t msglen)
{
    double v;
    if (parse_num(arg, 1, 1e6, &v) || v != (long)v) {
        snprintf(msg, msglen, "--top %s: expected a count >= 1", arg);
        return -1;
    }
    *val = (long)v;
    return 0;
}

static int check_peak(const char *arg, long *val, char *msg, size_t msglen)
{
    (void)val;
    if (!*arg) {
        snprintf(msg, msglen, "empty --peak");
        return -1;
    }
    return 0;
}

static int check_flame_type(const char *arg, long *val, char *msg, size_t msglen)
{
    if (strcmp(arg, "inuse") && strcmp(arg, "alloc")) {
        snprintf(msg, msglen, "--flame-type %s: expected inuse or alloc", arg);
        return -1;
    }
    *val = arg[0] == 'a';
    return 0;
}

/* The views' writers (views[]). */
static int write_top(const struct view_run *r, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    report_top(stdout, r->s, r->b, (size_t)r->val, 1);
    if (hw_current) /* a dump whose heap was walked: its sampled blocks' reachability */
        heapmap_sites(stdout, hw_current, r->s, r->b);
    return 0;
}

static int write_lifetimes(const struct view_run *r, char *why, size_t whylen)
{
    (void)why, (void)whylen;
    report_lifetimes(stdout, r->s, r->b, r->top > 0 ? (size_t)r->top : 10);
    return 0;
}

static int write_folded(const struct view_run *r, char *why, size_t whylen)
{
    return report_folded(r->b, r->path[0], why, whylen);
}

/* --peak: the session's in-use profile at its peak (named as -o names sessions). */
static int write_peak(const struct view_run *r, char *why, size_t whylen)
{
    if (r->s->dump) {
        snprintf(why, whylen, "a dump (--ram, --core) has no peak: it holds what was in use when "
                              "it was taken, no history");
        return -1;
    }
    struct built b;
    if (build_peak_profile(r->s, r->elves, r->dec, &b, why, whylen) != 0)
        return -1;
    int rc = prof_write_file(&b.prof, r->path[0], why, whylen);
    built_free(&b);
    if (rc == 0 && heap_peak_is_device(r->s, NULL)) { /* docs/HEALTH.md */
        char low[160];
        heap_low_text(r->s, low, sizeof(low));
        fprintf(stderr, "drain: session %d: --peak %s: the device's last low-watermark snapshot "
                        "(%s), not the peak of drain's incomplete estimate\n",
                r->s->index, r->path[0], low);
    }
    return rc;
}

/* --leaks: the sites whose in-use keeps growing, as the profile stores them. */
static int write_leaks(const struct view_run *r, char *why, size_t whylen)
{
    if (r->s->dump) {
        snprintf(why, whylen, "a dump (--ram, --core) shows no growth: it holds what was in use "
                              "when it was taken, no history");
        return -1;
    }
    growth_print_leaks(stdout, &r->b->prof);
    return 0;
}

static void *new_timeline(void)
{
    return timeline_new();
}

static void free_timeline(void *state)
{
    timeline_free(state);
}

static void record_timeline(void *state, const struct session *s, const struct msamp_record *rec)
{
    timeline_record(state, s, rec);
}

static int write_timeline(const struct view_run *r, char *why, size_t whylen)
{
    return timeline_write(r->state, r->s, r->b, r->path[0], r->path[1], why, whylen);
}

static int write_flame(const struct view_run *r, char *why, size_t whylen)
{
    return flame_write(r->b, r->s, (int)r->val, r->path[0], why, whylen);
}

/* The session's "heap" member (docs/HEALTH.md): the allocator's figures, their series and the
 * verdict, from the HEAP records (null when there were none). "ended" and "reset" come from the
 * profile (verdict/ended.h). */
static void json_heap(FILE *f, const void *ctx, const struct prof *p, const struct vprof *v)
{
    (void)p;
    const struct view_run *r = ctx;
    const struct session *s = built_session(r->b, r->s);
    fputs(", ", f);
    heap_json_write(f, s, r->b->site_prof, v);
}

/* A tasks[] entry's peak, budget and budget events (model/task_use.c). */
static void json_task(FILE *f, const void *ctx, const char *name)
{
    const struct view_run *r = ctx;
    task_use_json(f, built_session(r->b, r->s), name);
}

/* --json: the session's estimates with 95 % intervals (docs/VERDICTS.md), and heap health. */
static int write_json(const struct view_run *r, char *why, size_t whylen)
{
    const struct session *s = built_session(r->b, r->s);
    char id[16], dev[2 * MSAMP_DEC_MAX_DEVICE_ID + 1];
    snprintf(id, sizeof(id), "0x%08x", s->session_id);
    int printable = 1;
    for (size_t i = 0; i < s->device_id_len; i++)
        printable &= s->device_id[i] >= 0x20 && s->device_id[i] < 0x7f;
    if (printable) {
        memcpy(dev, s->device_id, s->device_id_len);
        dev[s->device_id_len] = 0;
    } else {
        for (size_t i = 0; i < s->device_id_len; i++)
            snprintf(dev + 2 * i, 3, "%02x", s->device_id[i]);
    }
    struct json_session js = {&r->b->prof, s->have_header ? id : NULL,
                              s->device_id_len ? dev : NULL, (double)s->interval, json_heap, r,
                              json_task};
    return json_write(r->path[0], &js, 1, why, whylen);
}

static int write_heap_map(const struct view_run *r, char *why, size_t whylen)
{
    if (!hw_current) {
        snprintf(why, whylen, "%s", hw_current_why[0] ? hw_current_why
                                                       : "--heap-map needs a dump (--ram, --core) "
                                                         "and its firmware's --elf");
        return -1;
    }
    return heapmap_write(hw_current, r->s, r->b, r->path[0], why, whylen);
}

/* The views' lines in drain --help (views[].help), in its order. --min-lifetime is the session
 * model's (driver/options.c), said beside --lifetimes. */
static const char help_top[] =
    "  -t, --top N          print the top N sites by in-use and by allocated bytes\n";
static const char help_folded[] =
    "  -s, --folded FILE    write folded stacks (in-use bytes) for flame-graph tools, frames\n"
    "                       as func@file.c:LINE, one line per distinct stack\n";
static const char help_lifetimes[] =
    "      --lifetimes      print, per top site (--top N, default 10), how long its sampled\n"
    "                       allocations lived (freed) and how old the live ones are\n"
    "      --min-lifetime T leave allocations freed younger than T (10us, 5ms, 2s, 1m, 1h, 1d)\n"
    "                       out of the allocated and freed values (said in the comments)\n";
static const char help_leaks[] =
    "      --leaks          print the sites whose in-use still grows over the session's\n"
    "                       recent half (leak suspects): slope with its 95 % interval, since\n";
static const char help_peak[] =
    "      --peak FILE      also write the in-use profile at the peak: the moment half of the\n"
    "                       samples peaked, estimated on the other half (not biased upward)\n";
static const char help_timeline[] =
    "      --timeline FILE  write in-use bytes over device time (total, top sites, marks) as\n"
    "                       an HTML page with an SVG chart; --timeline-csv FILE: as CSV\n";
static const char help_flame[] =
    "      --flame FILE     write an interactive flame graph (SVG); --flame-type inuse|alloc\n"
    "                       (default inuse: in-use bytes; alloc: allocated bytes)\n";
static const char help_json[] =
    "      --json FILE      write the estimates with their 95 % intervals (totals, sites,\n"
    "                       peak, leaks) as JSON (docs/VERDICTS.md)\n";
static const char help_heap_map[] =
    "      --heap-map FILE  of a dump (--ram, --core) with --elf: write the heap walked from\n"
    "                       the allocator's free list (FreeRTOS heap_4/heap_5, newlib-nano,\n"
    "                       newlib) as an HTML page: free holes, sampled live blocks reachable or\n"
    "                       unreachable by site\n";

/* The table: one entry a view, in the order of --help and of writing. */
const struct view views[] = {
    {{{"top", 't', VIEW_VALUE, 1, check_top}}, help_top, 0, "top sites not printed", NULL, NULL,
     NULL, write_top}, /* VIEW_TOP */
    {{{"folded", 's', VIEW_FILE, 1, NULL}}, help_folded, 0, "folded stacks not written", NULL,
     NULL, NULL, write_folded},
    {{{"lifetimes", 0, VIEW_FLAG, 1, NULL}}, help_lifetimes, 0, "lifetimes not printed", NULL,
     NULL, NULL, write_lifetimes},
    {{{"leaks", 0, VIEW_FLAG, 1, NULL}}, help_leaks, 0, "leaks not printed", NULL, NULL, NULL,
     write_leaks},
    {{{"peak", 0, VIEW_FILE, 1, check_peak}}, help_peak, VIEW_SITE_PEAKS,
     "peak profile not written", NULL, NULL, NULL, write_peak},
    {{{"timeline", 0, VIEW_FILE, 1, NULL}, {"timeline-csv", 0, VIEW_FILE, 1, NULL}}, help_timeline,
     VIEW_RECORDS, "timeline not written", new_timeline, free_timeline, record_timeline,
     write_timeline},
    {{{"flame", 0, VIEW_FILE, 1, NULL}, {"flame-type", 0, VIEW_VALUE, 0, check_flame_type}},
     help_flame, 0, "flame graph not written", NULL, NULL, NULL, write_flame},
    {{{"json", 0, VIEW_FILE, 1, NULL}}, help_json, VIEW_NO_AGG, "JSON not written", NULL, NULL, NULL,
     write_json},
    {{{"heap-map", 0, VIEW_FILE, 1, NULL}}, help_heap_map, 0, "heap map not written", NULL, NULL,
     NULL, write_heap_map},
};
const size_t nviews = sizeof(views) / sizeof(views[0]);
_Static_assert(sizeof(views) / sizeof(views[0]) <= VIEW_MAX, "VIEW_MAX: too small");
