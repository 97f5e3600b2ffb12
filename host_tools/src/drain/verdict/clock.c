/* The device's clock against the stream's own pace (clock.h, docs/DRAIN.md "The device's
 * clock"). */
#include "verdict/clock.h"

#include <stdio.h>
#include <string.h>

#include "pprof/prof_model.h"
#include "model/session.h"
#include "pprof/vcomment.h"

#define CLOCK_HINT                                                                                 \
    "every time, rate and lifetime of the session is off by as much (a firmware that misreads "  \
    "its clock: on Cortex-M see MSAMP_ARM_CPU_HZ and msamp_arm_app_ticks, docs/FIRMWARE.md)"

int clock_judge(const struct session *s, struct clock_verdict *v)
{
    if (!s->ts_known || !s->tick_hz || session_events(s) < 2 || s->last_ts < s->first_ts)
        return 0;
    double d = (double)(s->last_ts - s->first_ts) / (double)s->tick_hz;
    double w = s->arrive_live && s->arrive_known ? s->arrive_last - s->arrive_first : -1;
    v->device_s = d;
    v->arrival_s = w;
    if (d == 0 && (session_events(s) >= CLOCK_FROZEN_RECORDS || w >= 1.0)) {
        if (w >= 0)
            snprintf(v->note, sizeof(v->note),
                     "the device's clock did not advance: %llu timed records (samples, frees, "
                     "snapshot entries), all at one time, "
                     "arrived over %.3f s; %s",
                     (unsigned long long)session_events(s), w, CLOCK_HINT);
        else
            snprintf(v->note, sizeof(v->note),
                     "the device's clock did not advance: %llu timed records (samples, frees, "
                     "snapshot entries), all at one time; %s",
                     (unsigned long long)session_events(s), CLOCK_HINT);
        return 1;
    }
    if (w < 0)
        return 0;
    int fast = d > CLOCK_FACTOR * w + CLOCK_FAST_SLACK_S;
    if (!fast && w <= CLOCK_FACTOR * d + CLOCK_SLOW_SLACK_S)
        return 0;
    double hi = fast ? d : w, lo = fast ? w : d;
    snprintf(v->note, sizeof(v->note),
             "the device's clock ran %.0fx too %s for the stream's pace: its records span %.3f s "
             "of device time but arrived over %.3f s; %s",
             lo > 0 ? hi / lo : hi, fast ? "fast" : "slow", d, w, CLOCK_HINT);
    return 1;
}

void clock_store(const struct session *s, struct prof *p)
{
    struct clock_verdict v;
    if (!clock_judge(s, &v))
        return;
    char line[CLOCK_NOTE_MAX + 96]; /* the prefix, two %.9g and the note */
    snprintf(line, sizeof(line), "%sclock|device_s=%.9g|arrival_s=%.9g|note=%s", GROWTH_COMMENT,
             v.device_s, v.arrival_s, v.note);
    prof_comment(p, line);
}

int clock_from_prof(const struct prof *p, struct clock_verdict *v)
{
    char buf[CLOCK_NOTE_MAX + 96];
    for (size_t i = 0; i < p->ncomment; i++) {
        const char *c = verdict_comment(p, i, "clock", buf, sizeof(buf));
        if (!c || verdict_num(c, "device_s", &v->device_s) ||
            verdict_num(c, "arrival_s", &v->arrival_s) ||
            !verdict_field(c, "note", v->note, sizeof(v->note), 1))
            continue;
        return 1;
    }
    return 0;
}
