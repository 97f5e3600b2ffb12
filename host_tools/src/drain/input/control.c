/* drain's down-channel: commands to the device, resent until acknowledged (control.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input/control.h"
#include "msamp_command.h"
#include "util.h"

/* Sends of one command before it is given up. */
#define CONTROL_TRIES 5
/* The wait for an ack before a resend (docs/CONTROL.md#resends), as TCP's (RFC 6298): the link's
 * round trip as the acks measure it (smoothed, plus 4 deviations), RTO_INIT before any ack, within
 * [RTO_MIN, RTO_MAX]; doubled each time the first command unacknowledged is resent (back-off),
 * kept so until an ack of a command sent once measures the round trip again. */
#define CONTROL_RTO_INIT_S 1.0
#define CONTROL_RTO_MIN_S 0.25
#define CONTROL_RTO_MAX_S 30.0
/* After a BUSY ack (the device's ring was full): sent again this soon. */
#define CONTROL_BUSY_S 0.2
/* Commands sent before the first of them is acknowledged: the statuses a device keeps. */
#define CONTROL_WINDOW MSAMP_CMD_KEPT

struct cmd {
    char text[MSAMP_WIRE_MAX_MARK + 32];
    struct msamp_command c;
    uint16_t seq; /* in the series (struct control) it is sent in */
    int sends;    /* frames sent so far */
    double sent;  /* when the last one went */
    int acked;    /* an ack that ends it came (not BUSY, not ORDER) */
    int gave_up; /* CONTROL_TRIES sends and no ack: said */
    unsigned status;
    double next; /* when to send (again) */
};

struct control {
    struct cmd *q;
    size_t n, cap, head; /* q[head] is the command in flight (or next) */
    uint16_t series;     /* this run's series of commands (docs/CONTROL.md): 1..65535 */
    size_t base;         /* q[base] is its seq 0 (a new series starts after a device reset) */
    double srtt, rttvar; /* the acks' round trip, smoothed, and its deviation (have_rtt) */
    int have_rtt;
    double rto;          /* the wait for an ack before a resend */
    int old_device;      /* the latest SESSION lacks MSAMP_SESSION_FLAG_CMD_V2: nothing sent */
    int said_old;        /* and that was said */
    const char *file;
    int file_fd;
    int read_stdin;
    int stdin_asked; /* --send-stdin: read stdin for commands even when it is no terminal */
    char line[256];
    size_t line_len;
    int line_long; /* the line being read outgrew line: dropped up to its newline */
    int failed_file; /* the --send-file error was said */
};

void control_set_stdin(struct control *c)
{
    c->stdin_asked = 1;
}

/* A series other than old (and 0), drawn from the clock: another drain run's is unlikely. */
static uint16_t new_series(uint16_t old)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint16_t s = (uint16_t)(((unsigned)ts.tv_nsec ^ (unsigned)getpid() * 2654435761u) >> 7);
    while (s == 0 || s == old)
        s = (uint16_t)(s * 40503u + 1u);
    return s;
}

struct control *control_new(void)
{
    struct control *c = xmalloc(sizeof(*c));
    memset(c, 0, sizeof(*c));
    c->file_fd = -1;
    c->series = new_series(0);
    c->rto = CONTROL_RTO_INIT_S;
    return c;
}

void control_free(struct control *c)
{
    if (!c)
        return;
    if (c->file_fd >= 0)
        close(c->file_fd);
    free(c->q);
    free(c);
}

int control_add(struct control *c, const char *text, char *err, size_t errlen)
{
    struct cmd k;
    memset(&k, 0, sizeof(k));
    if (msamp_command_parse(text, &k.c, err, errlen) != 0)
        return -1;
    snprintf(k.text, sizeof(k.text), "%s", text);
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 8;
        c->q = realloc(c->q, c->cap * sizeof(*c->q));
        if (!c->q)
            drain_oom();
    }
    k.seq = (uint16_t)(c->n - c->base);
    c->q[c->n++] = k;
    return 0;
}

void control_set_file(struct control *c, const char *path)
{
    c->file = path;
}

int control_start(struct control *c, const struct input *in, char *err, size_t errlen)
{
    int can_send = c->file || in->is_tty || in->is_sock || in->rtt != NULL; /* gdb: RTT down */
    if (c->n && !can_send) {
        snprintf(err, errlen,
                 "--send: %s cannot carry commands to the device (a tty or a tcp: input can; "
                 "for semihosting or the hosted port give --send-file PATH)", in->desc);
        return -1;
    }
    /* Typed commands: stdin must not be the input. By default only a terminal drain runs in the
     * foreground of (a background job reading it would be stopped by SIGTTIN; a script's or a
     * pipeline's stdin is not drain's to consume); --send-stdin reads any stdin. */
    int is_input = in->fd == 0 || strcmp(in->desc, "stdin") == 0;
    if (c->stdin_asked && (is_input || !can_send)) {
        snprintf(err, errlen, "--send-stdin: %s", is_input ? "stdin is the input"
                                                            : "the input cannot carry commands");
        return -1;
    }
    c->read_stdin = can_send && !is_input &&
                    (c->stdin_asked || (isatty(0) && tcgetpgrp(0) == getpgrp()));
    return 0;
}

static int write_file(struct control *c, const uint8_t *p, size_t n)
{
    if (c->file_fd < 0) {
        /* A FIFO without a reader refuses a non-blocking open (ENXIO): tried again later. */
        c->file_fd = open(c->file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
        if (c->file_fd < 0) {
            if (errno != ENXIO && !c->failed_file) {
                fprintf(stderr, "drain: --send-file %s: %s\n", c->file, strerror(errno));
                c->failed_file = 1;
            }
            return 0;
        }
    }
    ssize_t w = write(c->file_fd, p, n);
    if (w == (ssize_t)n)
        return 1;
    if (w < 0 && errno != EAGAIN && !c->failed_file) {
        fprintf(stderr, "drain: --send-file %s: write: %s\n", c->file, strerror(errno));
        c->failed_file = 1;
    }
    if (w < 0 && errno == EPIPE) { /* the FIFO's reader went away: open again later */
        close(c->file_fd);
        c->file_fd = -1;
    }
    return 0;
}

/* 1 when the frame went out. */
static int send_frame(struct control *c, struct input *in, const struct cmd *k)
{
    uint8_t frame[MSAMP_COMMAND_FRAME_MAX];
    size_t n = msamp_command_encode(&k->c, c->series, k->seq, frame, sizeof(frame));
    if (c->file)
        return write_file(c, frame, n);
    char err[512];
    ssize_t w = input_write(in, frame, n, err, sizeof(err));
    if (w == -2) {
        fprintf(stderr, "drain: command '%s': %s\n", k->text, err);
        return 0;
    }
    return w == (ssize_t)n;
}

static void read_typed(struct control *c)
{
    struct pollfd p = {.fd = 0, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP)))
        return;
    char buf[512];
    ssize_t n = read(0, buf, sizeof(buf));
    if (n <= 0) {
        c->read_stdin = 0; /* end of stdin (or an error): no more typed commands */
        return;
    }
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (c->line_len + 1 < sizeof(c->line))
                c->line[c->line_len++] = buf[i];
            else
                c->line_long = 1;
            continue;
        }
        c->line[c->line_len] = '\0';
        while (c->line_len && (c->line[c->line_len - 1] == '\r' || c->line[c->line_len - 1] == ' '))
            c->line[--c->line_len] = '\0';
        char err[512];
        if (c->line_long)
            fprintf(stderr, "drain: stdin: a line of over %zu bytes ignored\n", sizeof(c->line) - 1);
        else if (c->line_len && control_add(c, c->line, err, sizeof(err)) != 0)
            fprintf(stderr, "drain: stdin: %s\n", err);
        c->line_len = 0;
        c->line_long = 0;
    }
}

/* An ack came at now for k, last sent at k->sent. Sent once, the wait is a round trip: the
 * smoothed round trip and the wait before a resend follow it. Sent more often, the ack answers one
 * of the sends, so it says only that the round trip is at least the wait since the last one
 * (Karn's rule: such waits are no samples); the wait before a resend is raised to that. */
static void measure(struct control *c, const struct cmd *k, double now)
{
    double r = now - k->sent;
    if (r < 0)
        return;
    if (k->sends > 1) {
        if (r > c->rto)
            c->rto = r < CONTROL_RTO_MAX_S ? r : CONTROL_RTO_MAX_S;
        return;
    }
    if (!c->have_rtt) {
        c->srtt = r;
        c->rttvar = r / 2.0;
        c->have_rtt = 1;
    } else {
        double d = c->srtt > r ? c->srtt - r : r - c->srtt;
        c->rttvar = 0.75 * c->rttvar + 0.25 * d;
        c->srtt = 0.875 * c->srtt + 0.125 * r;
    }
    double rto = c->srtt + 4.0 * c->rttvar;
    c->rto = rto < CONTROL_RTO_MIN_S ? CONTROL_RTO_MIN_S : rto > CONTROL_RTO_MAX_S ? CONTROL_RTO_MAX_S : rto;
}

/* The device refused head's seq as out of order although every command before it in the series
 * was acknowledged: it lost the series (a reset) or took another host's. The commands from head
 * on go again as a new series, from seq 0. */
static void restart(struct control *c, double now)
{
    c->series = new_series(c->series);
    c->base = c->head;
    for (size_t i = c->head; i < c->n; i++) {
        c->q[i].seq = (uint16_t)(i - c->base);
        c->q[i].next = now;
    }
    fprintf(stderr, "drain: command '%s': the device does not hold this run's series of commands "
                    "(it reset, or another host sent it commands): sent again from it on as "
                    "series %u\n", c->q[c->head].text, c->series);
}

/* q[head]: the first command neither acknowledged nor given up. */
static void advance(struct control *c)
{
    while (c->head < c->n && (c->q[c->head].acked || c->q[c->head].gave_up))
        c->head++;
}

void control_tick(struct control *c, struct input *in, double now)
{
    if (c->read_stdin)
        read_typed(c);
    if (c->old_device) {
        if (c->n > 0 && !c->said_old)
            fprintf(stderr, "drain: the device reads no version-2 command frames (its msamp "
                            "predates ordered commands, or it was built without "
                            "MSAMP_CFG_CONTROL): no more commands sent; update its firmware\n");
        c->said_old |= c->n > 0;
        return;
    }
    advance(c);
    /* Up to CONTROL_WINDOW commands in flight, sent in order: an ack comes back through the
     * stream, behind what the device queued before it, so one at a time would be slow. */
    for (size_t i = c->head; i < c->n && i < c->head + CONTROL_WINDOW; i++) {
        struct cmd *k = &c->q[i];
        if (k->acked || k->gave_up || now < k->next)
            continue;
        if (k->sends == CONTROL_TRIES) {
            fprintf(stderr, "drain: command '%s' (seq %u): no acknowledgement after %d "
                            "sends; going on\n", k->text, k->seq, k->sends);
            k->gave_up = 1;
            continue;
        }
        if (!send_frame(c, in, k)) {
            k->next = now + 0.1; /* no connection or reader yet: soon again, not a send */
            return;              /* (and the later ones wait, to keep the order) */
        }
        if (k->sends > 0 && i == c->head) /* the first one timed out: back off */
            c->rto = 2.0 * c->rto < CONTROL_RTO_MAX_S ? 2.0 * c->rto : CONTROL_RTO_MAX_S;
        k->sends++;
        k->sent = now;
        k->next = now + c->rto;
    }
}

static void on_ack(struct control *c, const struct msamp_record *rec, double now)
{
    if (!rec->u.cmd_ack.has_series || rec->u.cmd_ack.series != c->series)
        return; /* another run's, or an ack of a version-1 frame: not this run's */
    advance(c);
    for (size_t i = c->head; i < c->n && i < c->head + CONTROL_WINDOW; i++) {
        struct cmd *k = &c->q[i];
        if (k->acked || k->sends == 0 || rec->u.cmd_ack.seq != k->seq ||
            rec->u.cmd_ack.cmd != k->c.cmd)
            continue;
        unsigned st = rec->u.cmd_ack.status > 255 ? 255u : (unsigned)rec->u.cmd_ack.status;
        measure(c, k, now);
        if (st == MSAMP_CMD_ERR_ORDER) {
            /* An earlier seq had not come when this one did: the head is lost if it went no
             * later than this one did; this one goes again after it. */
            if (i == c->head && !k->gave_up) {
                restart(c, now);
                return;
            }
            for (size_t j = c->head; j <= i; j++)
                if (!c->q[j].acked && c->q[j].sent <= k->sent && c->q[j].next > now)
                    c->q[j].next = now;
            return;
        }
        fprintf(stderr, "drain: command '%s' (seq %u): acknowledged: %s\n", k->text, k->seq,
                msamp_command_status_name(st));
        if (st == MSAMP_CMD_ERR_BUSY) {
            if (k->next > now + CONTROL_BUSY_S)
                k->next = now + CONTROL_BUSY_S;
            return;
        }
        k->acked = 1;
        k->status = st;
        return;
    }
}

void control_on_record(struct control *c, const struct msamp_record *rec, double now)
{
    if (!c) /* a RAM dump's records: no device to send to */
        return;
    if (rec->type == MSAMP_REC_CMD_ACK)
        on_ack(c, rec, now);
    else if (rec->type == MSAMP_REC_SESSION) /* the latest SESSION says */
        c->old_device = !(rec->u.session.flags & MSAMP_SESSION_FLAG_CMD_V2);
}

int control_finish(struct control *c)
{
    int lost = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct cmd *k = &c->q[i];
        if (k->acked)
            continue;
        lost++;
        if (k->sends)
            fprintf(stderr, "drain: command '%s' (seq %u): never acknowledged (sent %d time%s)\n",
                    k->text, k->seq, k->sends, k->sends == 1 ? "" : "s");
        else
            fprintf(stderr, "drain: command '%s': never sent (%s)\n", k->text,
                    c->old_device ? "the device reads no version-2 command frames"
                                  : "the input ended first");
    }
    return lost;
}
