/*
 * The sampling interval's record (session.h): each change as the model logged it (live.c replays
 * them: INTERVAL records, a header that shows one, the thinning a raise makes), the commands'
 * acks that say a host made a SET, and the interval's story in words for the reports.
 */
#include "model/interval.h"

#include <stdint.h>
#include <stdio.h>

#include "model/session.h"

void interval_log(struct session *s, const struct interval_change *c)
{
    int reason = c->reason;
    if (reason == MSAMP_INTERVAL_SET) { /* its command's ack, if any, comes next */
        s->set_pending = 1;
        s->set_log = s->ninterval_log < DRAIN_MAX_INTERVAL_LOG ? s->ninterval_log : SIZE_MAX;
    }
    if (s->ninterval_log < DRAIN_MAX_INTERVAL_LOG)
        s->interval_log[s->ninterval_log++] = *c;
    s->n.interval_changes++;
    if (reason == DRAIN_REASON_HEADER)
        s->n.interval_by_header++;
    else
        s->n.interval_by_reason[reason < MSAMP_INTERVAL_REASONS ? reason
                                                                : MSAMP_INTERVAL_REASONS]++;
}

/* A command's ack (docs/CONTROL.md): the device carried out an interval or bounds command right
 * before it, so an interval SET since the previous ack was the host's. */
void interval_on_cmd_ack(struct session *s, const struct msamp_record *r)
{
    unsigned cmd = (unsigned)r->u.cmd_ack.cmd;
    if (s->set_pending && r->u.cmd_ack.status == 0 &&
        (cmd == MSAMP_CMD_SET_INTERVAL || cmd == MSAMP_CMD_SET_BOUNDS)) {
        if (s->set_log < s->ninterval_log)
            s->interval_log[s->set_log].by_command = 1;
        s->n.interval_by_command++;
    }
    s->set_pending = 0;
}

const char *session_reason_name(int reason)
{
    switch (reason) {
    case MSAMP_INTERVAL_SET: return "set by the application";
    case MSAMP_INTERVAL_LIVE_HIGH: return "live table high water";
    case MSAMP_INTERVAL_STACK_HIGH: return "stack table high water";
    case MSAMP_INTERVAL_BUCKET_FULL: return "live-table bucket full";
    case MSAMP_INTERVAL_LOWER: return "tables below low water";
    case MSAMP_INTERVAL_RING_HIGH: return "ring high water (the link is slower than the samples)";
    case DRAIN_REASON_HEADER: return "seen in a session header (its INTERVAL record was lost)";
    default: return "unknown reason";
    }
}

/* "12.345 s" since the session's first record, "tick N" without tick_hz (ticks since it), or
 * "an unknown time". */
static void when_text(const struct session *s, const struct interval_change *c, char *out,
                      size_t n)
{
    double t = session_time_s(s, c->ts, c->ts_valid);
    if (t >= 0)
        snprintf(out, n, "%.3f s", t);
    else if (c->ts_valid && s->ts_known && c->ts >= s->first_ts)
        snprintf(out, n, "tick %llu", (unsigned long long)(c->ts - s->first_ts));
    else
        snprintf(out, n, "an unknown time");
}

void session_interval_change_text(const struct session *s, const struct interval_change *c,
                                  const struct interval_change *prev, char *out, size_t n)
{
    char when[64];
    when_text(s, c, when, sizeof(when));
    int raise = MSAMP_INTERVAL_THINS(c->reason);
    const char *who = c->reason == MSAMP_INTERVAL_SET && c->by_command
                          ? "set by a command from the host (acknowledged)"
                      : raise                              ? "raised by the device: "
                      : c->reason == MSAMP_INTERVAL_LOWER ? "lowered by the device: "
                                                           : "";
    int len = snprintf(out, n, "interval %llu -> %llu at %s: %s%s", (unsigned long long)c->from,
                       (unsigned long long)c->to, when, who,
                       c->reason == MSAMP_INTERVAL_SET && c->by_command
                           ? ""
                           : session_reason_name(c->reason));
    if (c->reason > MSAMP_INTERVAL_RING_HIGH && len >= 0 && (size_t)len < n)
        len += snprintf(out + len, n - (size_t)len, " %d", c->reason);
    if (len < 0 || (size_t)len >= n)
        return;
    if (c->thinned_live)
        len += snprintf(out + len, n - (size_t)len, ", %llu of %llu live entries thinned",
                        (unsigned long long)c->thinned, (unsigned long long)c->live);
    else if (c->unreplayed == 2)
        len += snprintf(out + len, n - (size_t)len,
                        ", thinning not replayed (beyond drain's work bound)");
    else if (c->unreplayed)
        len += snprintf(out + len, n - (size_t)len,
                        ", thinning not replayed (session id not yet known)");
    /* The device's own change right after a set one: a set interval goes on adapting. */
    if (prev && prev->reason == MSAMP_INTERVAL_SET &&
        (raise || c->reason == MSAMP_INTERVAL_LOWER) && len >= 0 && (size_t)len < n) {
        when_text(s, prev, when, sizeof(when));
        snprintf(out + len, n - (size_t)len,
                 " (after the interval %s at %s: the device adapts a set interval within its "
                 "bounds; bounds=N:N, or msamp_set_interval_bounds(N, N), pins it)",
                 prev->by_command ? "a command set" : "the application set", when);
    }
}

int session_interval_adapted(const struct session *s)
{
    const uint64_t *by = s->n.interval_by_reason;
    return by[MSAMP_INTERVAL_LIVE_HIGH] + by[MSAMP_INTERVAL_STACK_HIGH] +
               by[MSAMP_INTERVAL_BUCKET_FULL] + by[MSAMP_INTERVAL_LOWER] +
               by[MSAMP_INTERVAL_RING_HIGH] != 0;
}

void session_interval_summary(const struct session *s, char *out, size_t n)
{
    const struct session_counts *c = &s->n;
    const uint64_t *by = c->interval_by_reason;
    if (s->dump) { /* one moment: no history of its changes */
        snprintf(out, n, "interval %llu bytes when the dump was taken",
                 (unsigned long long)s->interval);
        return;
    }
    if (c->interval_changes == 0) {
        snprintf(out, n, "interval %llu bytes, fixed", (unsigned long long)s->interval);
        return;
    }
    uint64_t raises = by[MSAMP_INTERVAL_LIVE_HIGH] + by[MSAMP_INTERVAL_STACK_HIGH] +
                      by[MSAMP_INTERVAL_BUCKET_FULL] + by[MSAMP_INTERVAL_RING_HIGH];
    size_t len = (size_t)snprintf(out, n, "interval %llu bytes now (first %llu), %s:",
                                  (unsigned long long)s->interval,
                                  (unsigned long long)s->first_interval,
                                  session_interval_adapted(s) ? "adapted" : "not adapted");
    const char *sep = " ";
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (len < n)                                                                               \
            len += (size_t)snprintf(out + len, n - len, __VA_ARGS__);                              \
    } while (0)
    if (raises) {
        APPEND("%s%llu raise%s (", sep, (unsigned long long)raises, raises == 1 ? "" : "s");
        const char *in = "";
        for (int r = MSAMP_INTERVAL_LIVE_HIGH; r < MSAMP_INTERVAL_REASONS; r++) {
            if (by[r] && MSAMP_INTERVAL_THINS(r)) {
                APPEND("%s%llu %s", in, (unsigned long long)by[r], session_reason_name(r));
                in = ", ";
            }
        }
        APPEND(")");
        sep = ", ";
    }
    if (by[MSAMP_INTERVAL_LOWER]) {
        APPEND("%s%llu lower%s", sep, (unsigned long long)by[MSAMP_INTERVAL_LOWER],
               by[MSAMP_INTERVAL_LOWER] == 1 ? "" : "s");
        sep = ", ";
    }
    uint64_t by_app = by[MSAMP_INTERVAL_SET] - c->interval_by_command;
    if (by_app) {
        APPEND("%s%llu set by the application", sep, (unsigned long long)by_app);
        sep = ", ";
    }
    if (c->interval_by_command) {
        APPEND("%s%llu set by a command from the host", sep,
               (unsigned long long)c->interval_by_command);
        sep = ", ";
    }
    if (by[MSAMP_INTERVAL_REASONS]) {
        APPEND("%s%llu for reasons this drain does not know", sep,
               (unsigned long long)by[MSAMP_INTERVAL_REASONS]);
        sep = ", ";
    }
    if (c->interval_by_header)
        APPEND("%s%llu seen only in a session header", sep,
               (unsigned long long)c->interval_by_header);
    if (raises)
        APPEND("; %llu live entries thinned", (unsigned long long)c->thinned);
    if (c->thin_unreplayed)
        APPEND(" (%llu thinnings not replayed)", (unsigned long long)c->thin_unreplayed);
#undef APPEND
}
