/*
 * drain's driver: reads an msamp byte stream (tty, file, stdin, TCP as client or server), rebuilds
 * each device session and writes gzip-compressed pprof profiles, symbolized with --elf; prints top
 * sites and folded stacks; or reads a dump (--ram, --core) the same way. Its command line is
 * options.c's. `drain merge` merges profiles; `drain check` and `drain diff` judge them
 * (verdict/); `drain push` and `drain fleet` store and query them (fleet/). See docs/DRAIN.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "driver/options.h"
#include "fleet/fleet.h"
#include "input/control.h"
#include "input/heapwalk.h"
#include "input/input.h"
#include "input/postmortem.h"
#include "input/rttprobe.h"
#include "model/session.h"
#include "msamp_decode.h"
#include "verdict/merge.h"
#include "pprof/prof_file.h"
#include "pprof/profile.h"
#include "pprof/symbolize.h"
#include "util.h"
#include "verdict/check.h"
#include "verdict/diff.h"
#include "verdict/stamp.h"
#include "verdict/clock.h"
#include "model/growth_track.h"
#include "views/report.h"
#include "views/views.h"

/* Input is read in chunks of READ_CHUNK bytes and fed to the decoder FEED_PIECE bytes at a time,
 * with the clock (partial profiles, status line) checked between pieces. After SIGINT/SIGTERM the
 * records of the chunk being decoded are still applied for STOP_BUDGET_S seconds; the rest of it
 * is skipped (and counted), so the final profile starts within that budget whatever the stream. */
#define READ_CHUNK (256u << 10)
#define FEED_PIECE 4096u
#define STOP_BUDGET_S 0.05
#define MAX_FAIL_KINDS 16

struct drain {
    struct opts o;
    struct elf_set elves;
    struct msamp_dec *dec;
    struct session *cur;
    /* The views that see every record, and their states. */
    const struct view *rec_view[VIEW_MAX];
    void *rec_state[VIEW_MAX];
    size_t nrec;
    int nsessions, partials, failed, written;
    int live;      /* the input has a pace (not a file): the clock's check (verdict/clock.h) */
    double feed_t; /* when the bytes being decoded were read */
    int elves_checked; /* the current session's ELFs were checked against its identity */
    int elves_ok;      /* ... and matched it */
    int elves_doubt;   /* a mismatch while frames were being lost: checked again at a re-send */
    uint64_t id_losses; /* the decoder's loss counters summed at the latest SESSION */
    int final_failed;  /* a session's final profile (or its reports) could not be written */
    /* Partial profiles not written: in all, since the last one written, and the kinds of failure
     * (errno values; -1 for a profile that could not be built) already reported. */
    int part_failed, part_failed_run, part_kinds[MAX_FAIL_KINDS];
    size_t npart_kinds;
    int restarts; /* a followed file started over */
    uint64_t bytes;
    uint64_t headers; /* SESSION records seen, in all sessions */
    int dump;         /* reading a dump (--ram, --core): its profile is written, even empty */
    struct pm_magic_scan magic; /* the heapdump block's magic in an input without frames */
    /* The first bytes read, to say what the input held when no frame was found. */
    uint8_t head[4096];
    size_t head_len;
    double decode_s, write_s; /* --stats */
    double stop_t;            /* when a record was first seen after the stop signal */
    uint64_t skipped;         /* records not applied: the stop budget ran out */
    int status;               /* status line on */
    double next_part, next_status, last_t, loop_end;
    uint64_t last_bytes;
};

static volatile sig_atomic_t stop_signal;
static int wake_wr = -1;         /* the self-pipe's write end: wakes a poll at once */
static struct timespec stop_ts; /* when the stop signal arrived */

static void on_signal(int sig)
{
    int e = errno;
    if (!stop_signal)
        clock_gettime(CLOCK_MONOTONIC, &stop_ts); /* async-signal-safe */
    stop_signal = sig;
    if (wake_wr >= 0) {
        ssize_t r = write(wake_wr, "", 1);
        (void)r;
    }
    errno = e;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The views turned on, written for the current session (its final profile b): 0, or -1 with the
 * first failure's message in err. */
static int write_views(struct drain *d, const struct built *b, char *err, size_t errlen)
{
    int bad = 0;
    long top = d->o.view[VIEW_TOP].on ? d->o.view[VIEW_TOP].val : 0;
    for (size_t v = 0; v < nviews; v++) {
        const struct view_conf *c = &d->o.view[v];
        if (!c->on)
            continue;
        struct view_run r = {d->cur, b, {NULL}, c->val, c->state, top, &d->elves,
                              msamp_dec_stats(d->dec)};
        char *paths[VIEW_OPTS] = {NULL};
        for (size_t i = 0; i < VIEW_OPTS; i++)
            if (views[v].opt[i].arg == VIEW_FILE && c->arg[i])
                r.path[i] = paths[i] = derived_name(c->arg[i], d->cur->index, 0);
        char why[1024];
        if (views[v].write(&r, why, sizeof(why)) != 0 && !bad++)
            snprintf(err, errlen, "%s: %s", views[v].fail, why);
        for (size_t i = 0; i < VIEW_OPTS; i++)
            free(paths[i]);
    }
    return bad ? -1 : 0;
}

/* The views' states, made once for the run (the views turned on that need every record). */
static void drain_views_open(struct drain *d)
{
    for (size_t v = 0; v < nviews; v++) {
        struct view_conf *c = &d->o.view[v];
        if (c->on && (views[v].needs & VIEW_RECORDS)) {
            c->state = views[v].new();
            d->rec_view[d->nrec] = &views[v];
            d->rec_state[d->nrec++] = c->state;
        }
    }
}

static void drain_views_close(struct drain *d)
{
    for (size_t v = 0; v < nviews; v++)
        if (d->o.view[v].state)
            views[v].free(d->o.view[v].state);
}

/* The next session, with the options its model takes. */
static struct session *new_session(struct drain *d)
{
    struct session *s = session_new(++d->nsessions, msamp_dec_stats(d->dec));
    session_set_min_lifetime(s, d->o.min_life);
    s->arrive_live = d->live;
    if (d->dump) { /* one moment: no peak, no growth (docs/POSTMORTEM.md) */
        session_set_dump(s);
        return s;
    }
    for (size_t v = 0; v < nviews; v++)
        if (d->o.view[v].on && (views[v].needs & VIEW_SITE_PEAKS))
            session_keep_site_peaks(s);
    growth_attach(s);
    return s;
}

/* Writes the profile (and, for the final one, the views) of the current session. part 0: final.
 * 0; -1 when the profile was not written, -2 when it was but a view was not: the message in err
 * and the kind of failure in *kind (an errno value, or -1 when the profile could not be built). */
static int write_session(struct drain *d, int part, char *err, size_t errlen, int *kind)
{
    struct session *s = d->cur;
    char what[32], why[1024];
    if (part)
        snprintf(what, sizeof(what), "partial %d", part);
    else
        snprintf(what, sizeof(what), "final");
    struct built b;
    double t0 = now_s();
    *kind = -1;
    /* The samples and per-site totals only for the views that read them (a partial profile has
     * none). */
    int keep = BUILT_ENCODED;
    for (size_t v = 0; v < nviews && !part; v++)
        if (d->o.view[v].on && keep != BUILT_AGG)
            keep = views[v].needs & VIEW_NO_AGG ? BUILT_SAMPLES : BUILT_AGG;
    if (build_profile(s, &d->elves, what, msamp_dec_stats(d->dec), keep, &b, why, sizeof(why)) !=
        0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    char *path = derived_name(d->o.output, s->index, part);
    int rc = 0;
    if (prof_write_file(&b.prof, path, why, sizeof(why)) != 0) {
        *kind = errno;
        snprintf(err, errlen, "%s", why);
        rc = -1;
    }
    /* --push: the profile is on disk whatever the store says; a failure is reported only. */
    if (rc == 0 && d->o.push && fleet_push_file(d->o.push, path, why, sizeof(why)) != 0)
        fprintf(stderr, "drain: --push: %s (the profile is kept in %s)\n", why, path);
    if (rc == 0 && !part) {
        if (write_views(d, &b, err, errlen) != 0) {
            *kind = errno;
            rc = -2;
        }
        if (!d->o.quiet)
            report_summary(stderr, s, &b, msamp_dec_stats(d->dec), path);
        report_site_limit(stderr, built_session(&b, s));
    }
    free(path);
    built_free(&b);
    d->write_s += now_s() - t0;
    return rc;
}

/* last: end of input; a run that received a valid frame always leaves a profile, even an empty
 * one (a run without any leaves none: its exit status says so). A
 * session whose profile cannot be written is reported and the capture goes on (later sessions
 * are still written); the exit status says so. */
static void end_session(struct drain *d, int last)
{
    int want = session_has_data(d->cur) ||
               (last && !d->written && (msamp_dec_stats(d->dec)->frames_ok > 0 || d->dump));
    char err[1100];
    int kind;
    if (d->elves_doubt && !d->elves_ok)
        fprintf(stderr, "drain: session %d: no --elf matched its images to the end (some of its "
                        "MAPPINGs may have been lost); addresses left unsymbolized\n",
                d->cur->index);
    struct clock_verdict cv;
    if (want && clock_judge(d->cur, &cv))
        fprintf(stderr, "drain: warning: session %d: %s\n", d->cur->index, cv.note);
    int rc = want ? write_session(d, 0, err, sizeof(err), &kind) : 0;
    if (rc == -2)
        fprintf(stderr, "drain: session %d: %s\n", d->cur->index, err);
    else if (rc != 0)
        fprintf(stderr, "drain: session %d: final profile not written: %s\n", d->cur->index, err);
    if (rc != 0)
        d->final_failed = 1;
    if (want && rc != -1)
        d->written++;
    session_free(d->cur);
    d->cur = NULL;
}

/* A partial profile (--every). One that cannot be written (a full disk, its path taken by a
 * directory) does not stop the capture: each kind of failure is reported once. */
static void write_partial(struct drain *d)
{
    if (!session_has_data(d->cur))
        return;
    int part = ++d->partials, kind;
    char err[1100];
    if (write_session(d, part, err, sizeof(err), &kind) == 0) {
        if (d->part_failed_run)
            fprintf(stderr, "drain: partial profile %d written (the %d before it were not)\n",
                    part, d->part_failed_run);
        d->part_failed_run = 0;
        return;
    }
    d->part_failed++;
    d->part_failed_run++;
    for (size_t i = 0; i < d->npart_kinds; i++)
        if (d->part_kinds[i] == kind)
            return;
    if (d->npart_kinds < MAX_FAIL_KINDS)
        d->part_kinds[d->npart_kinds++] = kind;
    fprintf(stderr,
            "drain: partial profile %d not written: %s (the capture goes on; later partial "
            "profiles failing the same way are not reported)\n",
            part, err);
}

/* The decoder's loss counters, summed: they move when frames are lost or damaged. */
static uint64_t stream_losses(const struct drain *d)
{
    const struct msamp_dec_stats *st = msamp_dec_stats(d->dec);
    return st->frames_bad + st->frames_lost + st->bytes_discarded;
}

/* on_record's rare cases, out of its way: stopping (1: the record is skipped), a command's ack, a
 * session header. */
static __attribute__((noinline)) int on_record_rare(struct drain *d,
                                                    const struct msamp_record *rec)
{
    if (stop_signal) {
        /* Stopping: what was read is applied while the budget lasts, so a stream slow to apply
         * cannot hold the final profile back. */
        double t = now_s();
        if (d->stop_t == 0)
            d->stop_t = t;
        else if (t - d->stop_t > STOP_BUDGET_S) {
            d->skipped += rec->type >= 0;
            return 1;
        }
    }
    if (rec->type == MSAMP_REC_CMD_ACK || rec->type == MSAMP_REC_SESSION)
        control_on_record(d->o.ctl, rec, now_s());
    if (rec->type == MSAMP_REC_SESSION) {
        d->headers++;
        if (session_is_new(d->cur, rec)) {
            if (session_events(d->cur)) /* its last timed records came in this piece */
                session_arrived(d->cur, d->feed_t);
            end_session(d, 0);
            d->cur = new_session(d);
            d->elves_checked = d->elves_ok = d->elves_doubt = 0;
        } else if (!d->elves_ok) {
            d->elves_checked = 0; /* a re-send: its MAPPINGs may hold what was lost */
        }
        d->id_losses = stream_losses(d);
    }
    return 0;
}

/* A wrong --elf is reported as soon as the session's header and mappings are in, not at the end
 * of a long capture. On a line that lost frames since the header, a MAPPING may be what was lost:
 * the ELFs are checked again after the next re-send, and a mismatch that stands to the end is
 * said then (the profile is written, unsymbolized where nothing matched). */
static __attribute__((noinline)) void on_record_elves(struct drain *d)
{
    char err[1024];
    d->elves_checked = 1;
    if (check_elves(d->cur, &d->elves, err, sizeof(err)) == 0) {
        d->elves_ok = 1;
        d->elves_doubt = 0;
    } else if (stream_losses(d) != d->id_losses) {
        if (!d->elves_doubt && !d->o.quiet)
            fprintf(stderr, "drain: %s (frames were lost since the session's header: "
                            "checking again at its next re-send)\n", err);
        d->elves_doubt = 1;
    } else {
        fprintf(stderr, "drain: %s\n", err);
        d->failed = 1;
    }
}

static void on_record(void *arg, const struct msamp_record *rec)
{
    struct drain *d = arg;
    if (d->failed)
        return;
    if ((stop_signal || rec->type == MSAMP_REC_CMD_ACK || rec->type == MSAMP_REC_SESSION) &&
        on_record_rare(d, rec))
        return;
    if (!d->cur->first_seen && rec->type >= 0)
        session_first_record(d->cur, msamp_dec_stats(d->dec));
    session_record(d->cur, rec);
    for (size_t i = 0; i < d->nrec; i++)
        d->rec_view[i]->record(d->rec_state[i], d->cur, rec);
    if (!d->elves_checked && d->elves.n && d->cur->have_header && rec->type >= 0 &&
        rec->type != MSAMP_REC_SESSION && rec->type != MSAMP_REC_MAPPING)
        on_record_elves(d);
}

static void status_line(struct drain *d, double rate)
{
    const struct msamp_dec_stats *st = msamp_dec_stats(d->dec);
    const struct session *s = d->cur;
    fprintf(stderr, "\rdrain: session %d  %llu samples  %.1f KB/s  drops %llu  crc errors %llu  "
                    "lost frames %llu   ",
            s->index, (unsigned long long)s->n.samples, rate / 1024.0,
            (unsigned long long)session_device_drops(s), (unsigned long long)st->frames_bad,
            (unsigned long long)st->frames_lost);
}

/* Partial profiles and the status line, when due at time t. */
static void timers(struct drain *d, double t)
{
    if (d->o.every && t >= d->next_part) {
        d->next_part = t + d->o.every;
        write_partial(d);
    }
    if (d->status && t >= d->next_status) {
        status_line(d, (double)(d->bytes - d->last_bytes) / (t - d->last_t));
        d->last_bytes = d->bytes;
        d->last_t = t;
        d->next_status = t + 0.5;
    }
}

/* 1 when everything written to stdout (--top, --help) got out; otherwise says so on stderr. */
static int stdout_ok(void)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 1;
    fprintf(stderr, "drain: cannot write to standard output%s%s\n", errno ? ": " : "",
            errno ? strerror(errno) : "");
    return 0;
}

/* What the bytes of an input without any msamp frame looked like. */
static const char *bytes_look(const uint8_t *p, size_t n)
{
    size_t zero = 0, text = 0;
    for (size_t i = 0; i < n; i++) {
        zero += p[i] == 0;
        text += (p[i] >= 0x20 && p[i] < 0x7f) || p[i] == '\n' || p[i] == '\r' || p[i] == '\t';
    }
    if (zero == n)
        return "all zero bytes";
    if (text * 10 >= n * 9)
        return "mostly text: a console or log, not the msamp stream?";
    return "binary data";
}

/* The input held no valid msamp frame: one line saying what was read and what to check. */
static void no_frame_message(const struct drain *d, const struct input *in)
{
    static const char causes[] =
        "the wrong port, file or address, the firmware not calling msamp_init() and "
        "msamp_poll() (or not running), or its transport (UART, MSAMP_OUTPUT) not set up";
    if (d->bytes == 0) {
        fprintf(stderr,
                "drain: no data received from %s%s%s; no profile written. Likely causes: %s\n",
                in->desc, in->is_sock && in->where[0] && !in->connections
                              ? " (no connection came)" : "",
                stop_signal ? " before the stop signal" : "", causes);
        return;
    }
    char baud[96] = "";
    if (in->is_tty)
        snprintf(baud, sizeof(baud), "a wrong baud rate (--baud %ld), ", d->o.baud);
    else if (!in->is_sock)
        snprintf(baud, sizeof(baud), "a wrong baud rate where it was captured, ");
    fprintf(stderr,
            "drain: no valid msamp frame in the %llu bytes read from %s (%s); no profile "
            "written. Likely causes: %s%s\n",
            (unsigned long long)d->bytes, in->desc, bytes_look(d->head, d->head_len), baud,
            causes);
}

/* The dump's heap walked (input/heapwalk.c) for --heap-map and --top: said on stderr when the ELF
 * names an allocator drain knows, a warning when its walk fails. */
static void heap_walk(struct drain *d, const struct pm_dump *pm)
{
    hw_current_why[0] = 0;
    if (!d->o.nelf)
        return;
    hw_current = hw_walk(pm, d->o.elf_paths[0], hw_current_why, sizeof(hw_current_why));
    char what[1024];
    if (hw_current && !d->o.quiet) {
        hw_describe(hw_current, what, sizeof(what));
        fprintf(stderr, "drain: heap: %s\n", what);
    } else if (!hw_current && strncmp(hw_current_why, "no allocator known", 18) != 0)
        fprintf(stderr, "drain: warning: heap walk: %s\n", hw_current_why);
}

/* --ram, --core: the in-use profile from the dump's msamp_heapdump block, through the session
 * model and the outputs a stream goes through (input/postmortem.h, docs/POSTMORTEM.md). */
static int run_dump(struct drain *d)
{
    char err[1024];
    struct pm_dump *pm = pm_new();
    int rc = 0;
    for (size_t i = 0; i < d->o.nram && rc == 0; i++)
        rc = pm_add_ram(pm, d->o.ram[i], err, sizeof(err));
    if (rc == 0 && d->o.core)
        rc = pm_add_core(pm, d->o.core, err, sizeof(err));
    if (rc == 0 && d->o.nelf) /* the first ELF is the firmware: the block's symbol */
        rc = pm_set_elf(pm, d->o.elf_paths[0], err, sizeof(err));
    if (rc == 0)
        rc = pm_find(pm, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "drain: %s\n", err);
        pm_free(pm);
        return rc == -2 ? EXIT_USAGE : EXIT_FAIL;
    }
    if (!d->o.quiet) {
        char what[512];
        pm_describe(pm, what, sizeof(what));
        fprintf(stderr, "drain: %s: %s\n", d->o.core ? d->o.core : d->o.ram[0], what);
    }
    if (pm_warnings(pm)[0])
        fprintf(stderr, "drain: warning: %s\n", pm_warnings(pm));
    heap_walk(d, pm);
    d->dump = 1;
    d->dec = msamp_dec_new(on_record, d); /* no bytes: its counters stay 0 in the comments */
    if (!d->dec)
        drain_oom();
    d->cur = new_session(d);
    pm_emit(pm, on_record, d);
    if (!d->failed)
        end_session(d, 1);
    else
        session_free(d->cur);
    msamp_dec_free(d->dec);
    hw_free(hw_current);
    hw_current = NULL;
    pm_free(pm);
    int out_ok = stdout_ok();
    return d->failed || d->final_failed || !out_ok ? EXIT_FAIL : 0;
}

/* The stop signals (SIGINT, SIGTERM) handled, waking in's poll through a self-pipe (wake[]: its
 * ends, -1 when it could not be made); SIGPIPE ignored. */
static void capture_signals(struct input *in, int wake[2])
{
    if (pipe2(wake, O_NONBLOCK | O_CLOEXEC) == 0) {
        wake_wr = wake[1];
        in->wake_fd = wake[0];
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal; /* no SA_RESTART: a blocked read returns at once */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* Said even with --quiet, once SIGINT and SIGTERM are handled: a script waits for this line
     * before it starts the program that connects (and reads the port chosen for port 0). */
    if (in->listen_fd >= 0)
        fprintf(stderr, "drain: listening on %s\n", in->where);
}

/* What the input says happened before its latest read: a followed file that started over, a
 * connection accepted or closed. */
static void input_notices(struct drain *d, struct input *in)
{
    if (in->restarted) {
        /* A followed file started over: its bytes are a new stream. The frame cut short is
         * dropped (counted as discarded); the new stream's SESSION decides whether a new
         * session begins (a restarted program's does). */
        in->restarted = 0;
        d->restarts++;
        msamp_dec_finish(d->dec);
        if (!d->o.quiet)
            fprintf(stderr, "%sdrain: %s\n", d->status ? "\n" : "", in->notice);
    }
    if (in->announce) {
        in->announce = 0;
        if (!d->o.quiet)
            fprintf(stderr, "%sdrain: %s\n", d->status ? "\n" : "", in->notice);
    }
}

/* n bytes read: kept at the head (for the no-frame message), watched for a dump's block, decoded
 * FEED_PIECE bytes at a time with the timers run between pieces. */
static void feed_chunk(struct drain *d, const uint8_t *buf, size_t n)
{
    if (d->head_len < sizeof(d->head)) {
        size_t k = sizeof(d->head) - d->head_len < n ? sizeof(d->head) - d->head_len : n;
        memcpy(d->head + d->head_len, buf, k);
        d->head_len += k;
    }
    d->bytes += (uint64_t)n;
    if (msamp_dec_stats(d->dec)->frames_ok <= msamp_dec_stats(d->dec)->frames_bad)
        pm_magic_feed(&d->magic, buf, n); /* a RAM dump given as INPUT? */
    for (size_t off = 0; off < n && !d->failed; off += FEED_PIECE) {
        size_t k = n - off < FEED_PIECE ? n - off : FEED_PIECE;
        double tf = now_s();
        d->feed_t = tf;
        uint64_t events = session_events(d->cur);
        msamp_dec_feed(d->dec, buf + off, k);
        if (session_events(d->cur) != events)
            session_arrived(d->cur, tf);
        double t = now_s();
        d->decode_s += t - tf;
        if (!stop_signal)
            timers(d, t);
    }
}

/* Reads in until its end, an error or a stop signal (or a session fails): 0, or 1 after a read
 * error (said). */
static int read_loop(struct drain *d, struct input *in)
{
    char err[1024];
    uint8_t *buf = xmalloc(READ_CHUNK);
    int io_error = 0;
    while (!stop_signal && !d->failed) {
        control_tick(d->o.ctl, in, now_s());
        ssize_t n = input_read(in, buf, READ_CHUNK, 200, err, sizeof(err));
        input_notices(d, in);
        if (n > 0) {
            feed_chunk(d, buf, (size_t)n);
        } else if (n == -1) {
            break;
        } else if (n == -2) {
            fprintf(stderr, "drain: %s\n", err);
            io_error = 1;
            break;
        } else {
            timers(d, now_s());
        }
    }
    free(buf);
    return io_error;
}

/* --stats: the decode and write times, peak memory, the gdb: input's rate and the stop's timing. */
static void print_stats(const struct drain *d, const struct input *in)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const struct msamp_dec_stats *st = msamp_dec_stats(d->dec);
    fprintf(stderr,
            "drain stats: %llu bytes, %llu records, decode+model %.3f s (%.1f MB/s), "
            "profiles %.3f s, peak RSS %ld KiB\n",
            (unsigned long long)d->bytes, (unsigned long long)st->records, d->decode_s,
            d->decode_s > 0 ? (double)d->bytes / d->decode_s / 1e6 : 0.0, d->write_s,
            ru.ru_maxrss);
    if (in->rtt) {
        unsigned long long rb, polls;
        double secs;
        rtt_stats(in->rtt, &rb, &secs, &polls);
        fprintf(stderr, "drain stats: gdb RTT: %llu bytes in %.2f s (%.0f B/s), %llu polls\n",
                rb, secs, secs > 0 ? (double)rb / secs : 0.0, polls);
    }
    if (stop_signal) {
        double sig_t = (double)stop_ts.tv_sec + (double)stop_ts.tv_nsec / 1e9;
        fprintf(stderr,
                "drain stats: %s handled: decoding stopped %.1f ms after it, profiles "
                "written %.1f ms after it\n",
                strsignal(stop_signal), (d->loop_end - sig_t) * 1e3, (now_s() - sig_t) * 1e3);
    }
}

/* The end of the reading: the stop said, the decoder and the down-channel finished, the last
 * session's profile written (not for a RAM dump given as INPUT: 1 returned then). */
static int end_capture(struct drain *d)
{
    if (d->status)
        fputc('\n', stderr);
    if (stop_signal && !d->o.quiet)
        fprintf(stderr, "drain: %s: %s\n", strsignal(stop_signal),
                msamp_dec_stats(d->dec)->frames_ok ? "writing the final profile" : "stopping");
    if (d->skipped)
        fprintf(stderr,
                "drain: %llu records read before the signal were not applied (applying them "
                "took longer than %.0f ms)\n",
                (unsigned long long)d->skipped, STOP_BUDGET_S * 1e3);
    msamp_dec_finish(d->dec);
    control_finish(d->o.ctl); /* reported; the exit status does not depend on it */
    control_free(d->o.ctl);
    d->o.ctl = NULL;
    /* Bytes that are mostly not frames and hold the heapdump block: a RAM dump, whose few frames
     * (the ring's) are no profile. */
    const struct msamp_dec_stats *fin = msamp_dec_stats(d->dec);
    int ram_dump = d->magic.seen && fin->frames_ok <= fin->frames_bad;
    if (!d->failed && !ram_dump)
        end_session(d, 1);
    else
        session_free(d->cur);
    if (d->part_failed)
        fprintf(stderr, "drain: %d of %d partial profiles were not written\n", d->part_failed,
                d->partials);
    return ram_dump;
}

/* The exit status of a capture that read `frames_ok` valid frames (said on stderr when no profile
 * came of them). */
static int capture_status(const struct drain *d, const struct input *in, int io_error,
                          int ram_dump, uint64_t frames_ok)
{
    int out_ok = stdout_ok();
    if (d->failed || d->final_failed || io_error || !out_ok)
        return EXIT_FAIL;
    if (ram_dump) {
        fprintf(stderr, "drain: %llu valid msamp frames in the %llu bytes read from %s, but they "
                "hold the msamp_heapdump block: this looks like a RAM dump: use --ram FILE@ADDR "
                "(the address the image starts at) or --core FILE, with --elf (docs/POSTMORTEM.md); "
                "no profile written\n", (unsigned long long)frames_ok,
                (unsigned long long)d->bytes, in->desc);
        return EXIT_NODATA;
    }
    if (frames_ok == 0) {
        no_frame_message(d, in);
        return EXIT_NODATA;
    }
    if (d->headers == 0 && !d->o.quiet)
        fprintf(stderr,
                "drain: no session header (SESSION record) in the %llu valid frames read: drain "
                "joined mid-stream and no re-send of it came, or its frames were lost; the "
                "records were replayed with defaults (samples unweighted unless an INTERVAL "
                "record gave the interval; see \"Records before the header\" in docs/DRAIN.md)\n",
                (unsigned long long)frames_ok);
    return 0;
}

/* A stream: read from in until its end, an error or a stop signal, decoded, the sessions' profiles
 * and views written; the exit status. */
static int capture(struct drain *d, struct input *in)
{
    int wake[2] = {-1, -1};
    capture_signals(in, wake);
    d->dec = msamp_dec_new(on_record, d);
    if (!d->dec)
        drain_oom();
    d->live = !in->is_file;
    d->cur = new_session(d);
    d->status = isatty(2) && !d->o.quiet;
    double t0 = now_s();
    d->next_part = t0 + d->o.every;
    d->next_status = t0 + 0.5;
    d->last_t = t0;
    int io_error = read_loop(d, in);
    d->loop_end = now_s();
    int ram_dump = end_capture(d);
    if (d->o.stats)
        print_stats(d, in);
    uint64_t frames_ok = msamp_dec_stats(d->dec)->frames_ok;
    msamp_dec_free(d->dec);
    if (wake_wr >= 0) {
        wake_wr = -1;
        in->wake_fd = -1;
        close(wake[0]);
        close(wake[1]);
    }
    return capture_status(d, in, io_error, ram_dump, frames_ok);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return drain_merge(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "check") == 0)
        return drain_check(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return drain_diff(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "push") == 0)
        return drain_push(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "fleet") == 0)
        return drain_fleet(argc - 1, argv + 1);
    struct drain d;
    memset(&d, 0, sizeof(d));
    d.o.ctl = control_new();
    struct sym_elf *elves[MAX_ELVES];
    size_t nelves = 0;
    struct input in;
    int in_open = 0;
    char err[1024];
    int rc = parse_args(&d.o, argc, argv);
    if (rc < 0) { /* --help, --version */
        rc = stdout_ok() ? 0 : EXIT_FAIL;
        goto out;
    }
    if (rc != 0)
        goto out;
    for (; nelves < d.o.nelf; nelves++) {
        elves[nelves] = sym_open(d.o.elf_paths[nelves], err, sizeof(err));
        if (!elves[nelves]) {
            fprintf(stderr, "drain: --elf %s\n", err);
            rc = EXIT_FAIL;
            goto out;
        }
    }
    d.elves = (struct elf_set){elves, d.o.nelf, d.o.force};
    drain_views_open(&d);
    if (d.o.nram || d.o.core) {
        control_free(d.o.ctl); /* a dump is not a device: nothing to send to */
        d.o.ctl = NULL;
        rc = run_dump(&d);
        goto out;
    }
    input_gdb_options(d.o.nelf ? d.o.elf_paths[0] : NULL, d.o.rtt_scan);
    rc = input_open(&in, d.o.input, d.o.baud, d.o.follow, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "drain: %s\n", err);
        rc = rc == -2 ? EXIT_USAGE : EXIT_FAIL;
        goto out;
    }
    in_open = 1;
    if (control_start(d.o.ctl, &in, err, sizeof(err)) != 0) {
        fprintf(stderr, "drain: %s\n", err);
        rc = EXIT_USAGE;
        goto out;
    }
    rc = capture(&d, &in);
out:
    control_free(d.o.ctl);
    drain_views_close(&d);
    if (in_open)
        input_close(&in);
    while (nelves > 0)
        sym_close(elves[--nelves]);
    sym_library_close_all();
    return rc;
}
