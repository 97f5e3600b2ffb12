/*
 * What the session lost and how complete it is (session.h): the device's drops, the line's
 * losses, the marks on its estimates (refused, unattributed, records lost), the frees received as
 * the device counts them, and whether the stream was complete.
 */
#include "model/session.h"

#include <stdio.h>
#include <string.h>

uint64_t session_device_drops(const struct session *s)
{
    return s->drops[MSAMP_DROP_RING_RECORDS] + s->drops[MSAMP_DROP_LIVE_FULL] +
           s->drops[MSAMP_DROP_STACK_FULL] + s->drops[MSAMP_DROP_REENTRANT];
}

double session_line_loss(const struct session *s)
{
    uint64_t all = s->line_frames + s->line_frames_lost;
    double q = all ? (double)s->line_frames_lost / (double)all : 0.0;
    return q < 0.9 ? q : 0.9;
}

struct msamp_dec_stats session_stream_losses(const struct session *s,
                                             const struct msamp_dec_stats *now)
{
    const struct msamp_dec_stats *b = &s->dec_start;
    return (struct msamp_dec_stats){
        .bytes_in = now->bytes_in - b->bytes_in,
        .frames_ok = now->frames_ok - b->frames_ok,
        .frames_bad = now->frames_bad - b->frames_bad,
        .frames_lost = now->frames_lost - b->frames_lost,
        .frames_repeated = now->frames_repeated - b->frames_repeated,
        .bytes_discarded = now->bytes_discarded - b->bytes_discarded,
        .records = now->records - b->records,
        .records_malformed = now->records_malformed - b->records_malformed,
        .records_unknown = now->records_unknown - b->records_unknown,
    };
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void session_marks_of(const struct session *s, const struct msamp_dec_stats *dec_now,
                      struct session_marks *m)
{
    memset(m, 0, sizeof(*m));
    m->refused = max_u64(s->n.refused, s->drops[MSAMP_DROP_LIVE_FULL]);
    m->unattributed = max_u64(s->n.stack_full, s->drops[MSAMP_DROP_STACK_FULL]);
    m->ring_records = s->drops[MSAMP_DROP_RING_RECORDS];
    m->reentrant = s->drops[MSAMP_DROP_REENTRANT];
    m->frames_lost = s->line_frames_lost;
    if (dec_now) {
        struct msamp_dec_stats l = session_stream_losses(s, dec_now);
        uint64_t bad = l.frames_bad > s->bad_before ? l.frames_bad - s->bad_before : 0;
        m->frames_lost = max_u64(m->frames_lost, l.frames_lost + (s->first_seen ? bad : 0));
    } else if (s->n.dec_losses > m->frames_lost) {
        m->frames_lost = s->n.dec_losses;
    }
    if (s->have_end) {
        uint64_t frees = session_frees_received(s);
        m->events_lost = (s->end_samples > s->n.samples ? s->end_samples - s->n.samples : 0) +
                         (s->end_frees > frees ? s->end_frees - frees : 0);
    }
}

int session_marks_lost(const struct session_marks *m)
{
    return m->ring_records || m->reentrant || m->frames_lost || m->events_lost;
}

int session_marks_any(const struct session_marks *m)
{
    return m->refused || m->unattributed || session_marks_lost(m);
}

void session_marks_text(const struct session_marks *m, char *text, size_t n)
{
    int len = 0;
    text[0] = 0;
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (len >= 0 && (size_t)len < n)                                                           \
            len += snprintf(text + len, n - (size_t)len, __VA_ARGS__);                             \
    } while (0)
    if (m->refused)
        APPEND("%llu samples refused by the live table (their sites' in-use a lower bound)",
               (unsigned long long)m->refused);
    if (m->unattributed)
        APPEND("%s%llu samples under [stack table full] (every site's estimates a lower bound)",
               len ? "; " : "", (unsigned long long)m->unattributed);
    if (session_marks_lost(m)) {
        APPEND("%srecords lost (", len ? "; " : "");
        const char *sep = "";
        if (m->ring_records) {
            APPEND("%llu dropped by the ring", (unsigned long long)m->ring_records);
            sep = ", ";
        }
        if (m->reentrant) {
            APPEND("%s%llu reentrant allocations not sampled", sep,
                   (unsigned long long)m->reentrant);
            sep = ", ";
        }
        if (m->frames_lost) {
            APPEND("%s%llu frames lost on the line", sep, (unsigned long long)m->frames_lost);
            sep = ", ";
        }
        if (m->events_lost)
            APPEND("%s%llu events of END's totals not received", sep,
                   (unsigned long long)m->events_lost);
        APPEND("): every estimate may be low");
    }
#undef APPEND
}

uint64_t session_frees_received(const struct session *s)
{
    /* The device counts a FREE record (of a live block, moved, or of a slot the reader does not
     * know live) and a REALLOC's old block as frees. */
    return s->n.frees + s->n.chains_moved + s->n.unknown_frees + s->n.drop_frees + s->n.reallocs;
}

void session_frees_text(const struct session *s, char *text, size_t n)
{
    const uint64_t part[4] = {s->n.frees, s->n.reallocs, s->n.chains_moved,
                              s->n.unknown_frees + s->n.drop_frees};
    static const char *const what[4] = {"FREE records of live sampled blocks",
                                        "reallocs that moved a sampled block",
                                        "FREE records of chains moved to unsampled blocks",
                                        "FREE records of slots not known live"};
    int len = snprintf(text, n, "%llu frees", (unsigned long long)session_frees_received(s));
    if (part[0] == session_frees_received(s))
        return;
    const char *sep = " (";
    for (int k = 0; k < 4 && len >= 0 && (size_t)len < n; k++) {
        if (part[k] == 0)
            continue;
        len += snprintf(text + len, n - (size_t)len, "%s%llu %s", sep, (unsigned long long)part[k],
                        what[k]);
        sep = " + ";
    }
    if (len >= 0 && (size_t)len < n)
        snprintf(text + len, n - (size_t)len, ")");
}

int session_completeness(const struct session *s, int final, char *text, size_t n)
{
    if (s->dump) {
        snprintf(text, n, "post-mortem dump: what was in use when it was taken; no stream, so no "
                          "history (no allocations, frees, peak or growth)");
        return 0;
    }
    if (!s->have_end && s->have_reset) {
        snprintf(text, n, "ended by a reset at %.3f s (cause: %s): in use is the device's own "
                          "live set then, kept across the reset and sent by its next boot; the "
                          "device's totals then: %llu samples, %llu frees",
                 session_time_s(s, s->reset_ts, s->reset_ts_valid), session_reset_cause(s),
                 (unsigned long long)s->reset_samples, (unsigned long long)s->reset_frees);
        return 0;
    }
    if (!s->have_end) {
        snprintf(text, n, final ? "stream ended without END: incomplete (the device's totals "
                                  "never came: the stream was cut short or the device reset)"
                                : "no END yet (the stream goes on)");
        return 0;
    }
    uint64_t samples = s->n.samples, frees = session_frees_received(s);
    struct session_marks m;
    session_marks_of(s, NULL, &m);
    uint64_t lost = m.events_lost; /* produced by the device (END) - received */
    if (lost == 0 && session_marks_any(&m)) {
        /* Every record arrived, but the device did not sample or track all it should have. */
        char why[384];
        session_marks_text(&m, why, sizeof(why));
        snprintf(text, n, "stream incomplete: END received, all %llu samples and %llu frees of "
                          "the device arrived, but %s",
                 (unsigned long long)s->end_samples, (unsigned long long)s->end_frees, why);
        return 0;
    }
    if (lost == 0) {
        snprintf(text, n, "stream complete: END received, all %llu samples and %llu frees of the "
                          "device",
                 (unsigned long long)s->end_samples, (unsigned long long)s->end_frees);
        return 1;
    }
    snprintf(text, n, "stream incomplete: END received; %llu events lost (produced - received): "
                      "%llu of %llu samples and %llu of %llu frees received; the device's ring "
                      "dropped %llu records",
             (unsigned long long)lost, (unsigned long long)(samples < s->end_samples ? samples : s->end_samples),
             (unsigned long long)s->end_samples, (unsigned long long)(frees < s->end_frees ? frees : s->end_frees),
             (unsigned long long)s->end_frees, (unsigned long long)s->end_dropped);
    return 0;
}
