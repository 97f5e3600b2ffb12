/*
 * drain's side of the down-channel (host_tools/src/drain/input/control.c) against the device's
 * parser (src/msamp_command.c on the fake port), over a simulated link in simulated time: drain's
 * frames go down through input_write() (defined here: the link), the device's stream comes back up
 * after a latency (a queue ahead of the acks, as on a slow UART), and its records reach
 * control_on_record(). Checks: every command carried out once and in order (the device's MARKs),
 * drain's resends pace themselves on the acks' round trip (no resend once it knows the link),
 * resends in order after a frame is lost (ORDER), a new series when another host took the device,
 * 5 sends then given up on a link that answers nothing, nothing sent to a device without
 * version-2 frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "input/control.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_command.h"
#include "msamp_decode.h"
#include "mark_list.h"

/* The link's down side: bytes written by drain, each with the time it reaches the device. */
static struct byte {
    uint8_t b;
    double at;
} down[1 << 16];
static size_t down_n, down_pos;
static double now, down_delay = 0.005;
static int frames_sent, drop_frame = -1; /* drop_frame: the index of a frame lost on the way */

ssize_t input_write(struct input *in, const void *buf, size_t len, char *err, size_t errlen)
{
    (void)in, (void)err, (void)errlen;
    const uint8_t *p = buf;
    int lost = frames_sent == drop_frame;
    frames_sent++;
    for (size_t i = 0; i < len && !lost && down_n < sizeof down / sizeof down[0]; i++)
        down[down_n++] = (struct byte){p[i], now + down_delay};
    return (ssize_t)len;
}

int msamp_transport_read(uint8_t *buf, size_t max)
{
    size_t n = 0;
    while (n < max && down_pos < down_n && down[down_pos].at <= now)
        buf[n++] = down[down_pos++].b;
    return (int)n;
}

/* The link's up side: the device's records, each reaching drain up_delay after it was sent. */
static struct up {
    struct msamp_record r;
    double at;
} up[4096];
static size_t up_n, up_pos, out_pos;
static double up_delay;
static struct mark_list marks;
static struct msamp_dec *dec;

static void on_rec(void *arg, const struct msamp_record *r)
{
    (void)arg;
    mark_list_add(&marks, r);
    if ((r->type == MSAMP_REC_CMD_ACK || r->type == MSAMP_REC_SESSION) &&
        up_n < sizeof up / sizeof up[0])
        up[up_n++] = (struct up){*r, now + up_delay};
}

/* Runs the device, the link and drain for secs of simulated time, 10 ms a step. */
static void run(struct control *c, struct input *in, double secs)
{
    for (double end = now + secs; now < end; now += 0.01) {
        control_tick(c, in, now);
        msamp_poll();
        msamp_dec_feed(dec, fake_out + out_pos, fake_out_len - out_pos);
        out_pos = fake_out_len;
        while (up_pos < up_n && up[up_pos].at <= now)
            control_on_record(c, &up[up_pos++].r, now);
    }
}

static void add(struct control *c, const char *text)
{
    char err[128];
    CHECK_EQ(control_add(c, text, err, sizeof err), 0);
}

static int marks_are(const char *const *want, int n, int from)
{
    if (marks.n - from != n)
        return 0;
    for (int i = 0; i < n; i++)
        if (strcmp(marks.text[from + i], want[i]) != 0)
            return 0;
    return 1;
}

static uint32_t done(void)
{
    struct msamp_stats st;
    msamp_get_stats(&st);
    return st.commands;
}

int main(void)
{
    fake_hz = 1000000;
    struct msamp_config cfg = {.interval = 4096, .seed = 1};
    CHECK_EQ(msamp_init(&cfg), 0);
    dec = msamp_dec_new(on_rec, NULL);
    struct input in;
    memset(&in, 0, sizeof in);

    /* A slow link: every ack 3 s late. The first commands go before any ack came: resent after
     * 1 s, then after 2 s (back-off); their acks teach drain the round trip, so the next ones go
     * once each. Each carried out once, in order. */
    up_delay = 3.0;
    struct control *c = control_new();
    const char *first[] = {"m0", "m1", "m2", "m3"};
    add(c, "mark=m0");
    add(c, "disable");
    add(c, "mark=m1");
    add(c, "enable");
    add(c, "mark=m2");
    add(c, "mark=m3");
    run(c, &in, 8.0);
    CHECK(marks_are(first, 4, 0));
    CHECK_EQ(done(), 6);
    CHECK_EQ(frames_sent, 6 * 3); /* sent at 0, 1 and 3 s; acks at 3 s */
    int f0 = frames_sent;
    add(c, "mark=m4");
    add(c, "interval=65536");
    add(c, "mark=m5");
    run(c, &in, 10.0);
    const char *second[] = {"m4", "m5"};
    CHECK(marks_are(second, 2, 4));
    CHECK_EQ(done(), 9);
    CHECK_EQ(frames_sent - f0, 3); /* the wait is the measured round trip and more: no resend */
    CHECK_EQ(control_finish(c), 0);
    struct msamp_stats st;
    msamp_get_stats(&st);
    CHECK_EQ(st.enabled, 1);
    CHECK_EQ(st.interval, 65536);
    control_free(c);

    /* A lost frame on a fast link: the commands after it are refused (out of order) and go again
     * at once, in order, after it. */
    up_delay = 0.05;
    c = control_new();
    frames_sent = 0;
    drop_frame = 1;
    int m0 = marks.n;
    uint32_t d0 = done();
    add(c, "mark=a");
    add(c, "mark=b");
    add(c, "mark=c");
    add(c, "mark=d");
    run(c, &in, 1.5);
    const char *abcd[] = {"a", "b", "c", "d"};
    CHECK(marks_are(abcd, 4, m0));
    CHECK_EQ(done() - d0, 4);
    CHECK_EQ(control_finish(c), 0);
    CHECK(frames_sent <= 4 + 3); /* b, c and d again, nothing more */

    /* Another host takes the device (its own series from seq 0): drain's next command is refused
     * as out of order with every earlier one acknowledged, so drain starts a new series. */
    drop_frame = -1;
    int sent;
    uint8_t f[MSAMP_COMMAND_FRAME_MAX];
    char err[128];
    long n = msamp_command_frame("mark=other", 0x7777, 0, f, sizeof f, err, sizeof err);
    CHECK(n > 0);
    input_write(&in, f, (size_t)n, err, sizeof err);
    run(c, &in, 0.2);
    add(c, "mark=e");
    add(c, "mark=f");
    run(c, &in, 1.5);
    const char *after[] = {"a", "b", "c", "d", "other", "e", "f"};
    CHECK(marks_are(after, 7, m0));
    CHECK_EQ(done() - d0, 7);
    CHECK_EQ(control_finish(c), 0);

    /* No ack ever (a link that carries nothing back): 5 sends, the waits 1, 2, 4 and 8 s (the
     * back-off of a fresh drain run), then given up, about 31 s after the first. */
    struct control *mute = control_new();
    up_delay = 1e6;
    sent = frames_sent;
    add(mute, "mark=mute");
    run(mute, &in, 30.5);
    CHECK_EQ(frames_sent - sent, 5);
    CHECK_EQ(control_finish(mute), 1);
    control_free(mute);
    up_delay = 0.05;

    /* A device whose SESSION lacks CMD_V2 (an older msamp): nothing more is sent, and said. */
    struct msamp_record s;
    memset(&s, 0, sizeof s);
    s.type = MSAMP_REC_SESSION;
    s.u.session.flags = MSAMP_SESSION_FLAG_ADDRESSES;
    control_on_record(c, &s, now);
    sent = frames_sent;
    add(c, "mark=never");
    run(c, &in, 1.0);
    CHECK_EQ(frames_sent, sent);
    CHECK_EQ(control_finish(c), 1);
    control_free(c);

    msamp_dec_finish(dec);
    CHECK_EQ(msamp_dec_stats(dec)->frames_bad, 0);
    msamp_dec_free(dec);
    return check_report("drain-control");
}
