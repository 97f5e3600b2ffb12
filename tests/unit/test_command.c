/*
 * The down-channel's parser (src/msamp_command.c) on the fake port, fed through a test
 * msamp_transport_read() by msamp_poll(): frames from the host encoder (host_tools/lib/
 * msamp_command.c) carried out and acknowledged (CMD_ACK records read back by the host decoder),
 * and hostile bytes: random noise, cut frames, bad CRCs, frames far longer than the buffer, another
 * format version, unknown commands, bad arguments, replays. Nothing but a whole valid frame is
 * ever carried out; every malformed frame is counted once; the read per poll is bounded. Order:
 * each seq of a series carried out once and in order (repeats acknowledged with their kept status,
 * seqs ahead refused, a new series from its seq 0, version-1 frames refused), and a lossy channel
 * that drops, duplicates and delays frames over many seeds never runs a command twice or early.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_command.h"
#include "msamp_decode.h"
#include "msamp_internal.h"
#include "mark_list.h"

/* The down-channel's bytes, and what each read was asked for. */
static uint8_t rx[1 << 16];
static size_t rx_len, rx_pos, read_max_seen;
static unsigned reads;

int msamp_transport_read(uint8_t *buf, size_t max)
{
    reads++;
    if (max > read_max_seen)
        read_max_seen = max;
    size_t n = rx_len - rx_pos < max ? rx_len - rx_pos : max;
    memcpy(buf, rx + rx_pos, n);
    rx_pos += n;
    return (int)n;
}

static void rx_put(const void *p, size_t n)
{
    if (rx_len + n > sizeof rx) {
        rx_len = rx_pos = 0; /* all read by now */
    }
    memcpy(rx + rx_len, p, n);
    rx_len += n;
}

/* Polls until every byte queued was read. */
static void drain_rx(void)
{
    for (int i = 0; i < 100000 && rx_pos < rx_len; i++)
        msamp_poll();
    msamp_poll();
}

#define SERIES 0x4d21u
/* A version-2 body's head in SERIES, seq under 256, before its command byte. */
#define HEAD(seq) MSAMP_CMD_VERSION, SERIES & 0xff, SERIES >> 8, seq, 0

static void send_series(const char *text, uint16_t series, uint16_t seq)
{
    uint8_t f[MSAMP_COMMAND_FRAME_MAX];
    char err[256];
    long n = msamp_command_frame(text, series, seq, f, sizeof f, err, sizeof err);
    CHECK(n > 0);
    if (n > 0)
        rx_put(f, (size_t)n);
}

static void send_text(const char *text, uint16_t seq)
{
    send_series(text, SERIES, seq);
}

/* A frame of any body (version, seq, command, args as given; CRC computed, or wrong). */
static void send_body(const uint8_t *body, size_t n, int bad_crc)
{
    uint8_t b[512], out[600];
    memcpy(b, body, n);
    uint32_t crc = msamp_crc32(0, b, n) ^ (bad_crc ? 1u : 0u);
    for (unsigned i = 0; i < 4; i++)
        b[n++] = (uint8_t)(crc >> (8 * i));
    size_t o = 0, code_at = 0;
    out[o++] = 0;
    code_at = o++;
    uint8_t code = 1;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = b[i];
            code++;
        }
    }
    out[code_at] = code;
    out[o++] = 0;
    rx_put(out, o);
}

/* The acks in the stream so far, decoded. */
static struct ack {
    uint64_t seq, cmd, status, series;
} acks[256];
static int nacks;
static int marks;
static char last_mark[80];

static void on_rec(void *arg, const struct msamp_record *r)
{
    (void)arg;
    if (r->type == MSAMP_REC_CMD_ACK && nacks < 256)
        acks[nacks++] = (struct ack){r->u.cmd_ack.seq, r->u.cmd_ack.cmd, r->u.cmd_ack.status,
                                     r->u.cmd_ack.has_series ? r->u.cmd_ack.series : 0};
    if (r->type == MSAMP_REC_MARK) {
        marks++;
        size_t n = r->u.mark.len < sizeof last_mark - 1 ? r->u.mark.len : sizeof last_mark - 1;
        memcpy(last_mark, r->u.mark.text, n);
        last_mark[n] = '\0';
    }
}

static void decode(void)
{
    nacks = marks = 0;
    struct msamp_dec *d = msamp_dec_new(on_rec, NULL);
    msamp_dec_feed(d, fake_out, fake_out_len);
    msamp_dec_finish(d);
    CHECK_EQ(msamp_dec_stats(d)->frames_bad, 0);
    msamp_dec_free(d);
}

static struct msamp_stats stats(void)
{
    struct msamp_stats st;
    CHECK_EQ(msamp_get_stats(&st), 0);
    return st;
}

/* The order rules, from the state main leaves: SERIES expects seq 14. */
static void order_rules(void)
{
    decode();
    int a = nacks;
    uint32_t done = stats().commands, rep = stats().commands_repeated;
    uint32_t refused = stats().commands_refused;
    send_text("mark=o16", 16); /* ahead of 14: refused, not carried out */
    send_text("mark=o15", 15);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, done);
    CHECK_EQ(stats().commands_refused, refused + 2);
    CHECK_EQ(nacks, a + 2);
    CHECK_EQ(acks[a].status, MSAMP_CMD_ERR_ORDER);
    CHECK_EQ(acks[a + 1].status, MSAMP_CMD_ERR_ORDER);
    CHECK_EQ(acks[a].seq, 16);
    send_text("mark=o14", 14); /* in order: each carried out */
    send_text("mark=o15", 15);
    send_text("mark=o16", 16);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, done + 3);
    CHECK(strcmp(last_mark, "o16") == 0);
    for (int i = a + 2; i < a + 5; i++)
        CHECK_EQ(acks[i].status, MSAMP_CMD_OK);
    const uint8_t zero_interval[] = {HEAD(17), MSAMP_CMD_SET_INTERVAL, 0};
    send_body(zero_interval, sizeof zero_interval, 0); /* carried out: invalid */
    send_text("mark=o15", 15);                         /* repeats: their kept status... */
    send_body(zero_interval, sizeof zero_interval, 0);
    send_text("interval=65536", 10);                   /* ...8 back: kept (invalid) */
    send_text("mark=ninth", 9);                        /* 9 back: done earlier */
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, done + 4);
    CHECK_EQ(stats().commands_repeated, rep + 4);
    CHECK_EQ(marks, 5); /* hello, after noise, o14..o16: no repeat left one */
    CHECK_EQ(nacks, a + 10);
    CHECK_EQ(acks[a + 5].status, MSAMP_CMD_ERR_INVAL);
    CHECK_EQ(acks[a + 6].status, MSAMP_CMD_OK);
    CHECK_EQ(acks[a + 7].status, MSAMP_CMD_ERR_INVAL);
    CHECK_EQ(acks[a + 8].status, MSAMP_CMD_ERR_INVAL);
    CHECK_EQ(acks[a + 9].status, MSAMP_CMD_DONE_EARLIER);
    CHECK_EQ(stats().interval, 16384);
    /* A version-1 frame (an older host): refused, its ack without series. */
    send_series("disable", 0, 18);
    /* Another series: not from its seq 0, refused; from it, the device takes it. */
    send_series("mark=s3", SERIES + 1, 3);
    send_series("mark=s0", SERIES + 1, 0);
    send_text("mark=old", 18);      /* the old series' next: no longer held */
    send_series("mark=s1", SERIES + 1, 1);
    send_series("mark=s0", SERIES + 1, 0xFFFF); /* before the series began: done earlier */
    const uint8_t no_series[] = {MSAMP_CMD_VERSION, 0, 0, 2, 0, MSAMP_CMD_DISABLE};
    send_body(no_series, sizeof no_series, 0); /* series 0: malformed */
    uint32_t bad = stats().commands_bad;
    drain_rx();
    decode();
    CHECK_EQ(stats().commands_bad, bad + 1);
    CHECK_EQ(stats().commands_refused, refused + 5); /* the version-1, s3 and old frames */
    CHECK_EQ(stats().enabled, 1);
    CHECK_EQ(stats().commands, done + 6);
    CHECK(strcmp(last_mark, "s1") == 0);
    CHECK_EQ(nacks, a + 16);
    CHECK_EQ(acks[a + 10].status, MSAMP_CMD_ERR_VERSION);
    CHECK_EQ(acks[a + 10].series, 0);
    CHECK_EQ(acks[a + 10].seq, 18);
    CHECK_EQ(acks[a + 11].status, MSAMP_CMD_ERR_ORDER);
    CHECK_EQ(acks[a + 12].status, MSAMP_CMD_OK);
    CHECK_EQ(acks[a + 12].series, SERIES + 1);
    CHECK_EQ(acks[a + 13].status, MSAMP_CMD_ERR_ORDER);
    CHECK_EQ(acks[a + 13].series, SERIES);
    CHECK_EQ(acks[a + 14].status, MSAMP_CMD_OK);
    CHECK_EQ(acks[a + 15].status, MSAMP_CMD_DONE_EARLIER);
}

/* A channel that drops, duplicates and delays frames, and a host that resends every command not
 * yet acknowledged (up to MSAMP_CMD_KEPT from the first) each round, over many seeds: the device
 * carries out each command of the series once and in order, whatever arrives. */
static struct mark_list lmarks;
static int lacked[64], lorder;
static uint16_t lseries;

static void on_lossy(void *arg, const struct msamp_record *r)
{
    (void)arg;
    mark_list_add(&lmarks, r);
    if (r->type == MSAMP_REC_CMD_ACK && r->u.cmd_ack.has_series && r->u.cmd_ack.series == lseries &&
        r->u.cmd_ack.seq < 64) {
        if (r->u.cmd_ack.status == MSAMP_CMD_OK)
            lacked[r->u.cmd_ack.seq] = 1;
        else if (r->u.cmd_ack.status == MSAMP_CMD_ERR_ORDER)
            lorder++;
        else /* a straggler more than MSAMP_CMD_KEPT back: not carried out */
            CHECK_EQ(r->u.cmd_ack.status, MSAMP_CMD_DONE_EARLIER);
    }
}

static void lossy_channel(void)
{
    uint32_t rnd = 777;
#define RND(n) ((rnd = rnd * 1664525u + 1013904223u) >> 8) % (n)
    int orders = 0, rounds_all = 0, dups = 0;
    for (int seed = 0; seed < 300; seed++) {
        struct msamp_dec *d = msamp_dec_new(on_lossy, NULL);
        fake_out_len = 0;
        size_t pos = 0;
        lseries = (uint16_t)(0x100 + seed);
        lmarks.n = lorder = 0;
        memset(lacked, 0, sizeof lacked);
        int n = 4 + (int)RND(40);
        uint32_t done = stats().commands;
        uint8_t late[64][MSAMP_COMMAND_FRAME_MAX];
        size_t late_len[64];
        int nlate = 0, round;
        for (round = 0; round < 2000; round++) {
            int head = 0;
            while (head < n && lacked[head])
                head++;
            if (head == n)
                break;
            for (int i = head; i < n && i < head + (int)MSAMP_CMD_KEPT; i++) {
                char text[32], err[64];
                uint8_t f[MSAMP_COMMAND_FRAME_MAX];
                snprintf(text, sizeof text, "mark=L%d", i);
                long len = msamp_command_frame(text, lseries, (uint16_t)i, f, sizeof f, err,
                                               sizeof err);
                unsigned fate = RND(10);
                if (fate < 3)
                    continue; /* dropped */
                if (fate < 5 && nlate < 64) { /* delayed: it comes in a later round */
                    memcpy(late[nlate], f, (size_t)len);
                    late_len[nlate++] = (size_t)len;
                    continue;
                }
                rx_put(f, (size_t)len);
                if (fate == 5) {
                    rx_put(f, (size_t)len); /* duplicated */
                    dups++;
                }
            }
            while (nlate > 0 && RND(3) == 0) { /* a delayed one arrives, after later ones */
                int k = (int)RND((unsigned)nlate);
                rx_put(late[k], late_len[k]);
                memmove(late[k], late[k + 1], (size_t)(nlate - k - 1) * sizeof late[0]);
                memmove(&late_len[k], &late_len[k + 1], (size_t)(nlate - k - 1) * sizeof late_len[0]);
                nlate--;
            }
            drain_rx();
            msamp_dec_feed(d, fake_out + pos, fake_out_len - pos);
            pos = fake_out_len;
        }
        for (int k = 0; k < nlate; k++) /* the stragglers after the end: repeats */
            rx_put(late[k], late_len[k]);
        drain_rx();
        msamp_dec_feed(d, fake_out + pos, fake_out_len - pos);
        msamp_dec_finish(d);
        CHECK_EQ(msamp_dec_stats(d)->frames_bad, 0);
        msamp_dec_free(d);
        CHECK(round < 2000);
        CHECK_EQ(stats().commands - done, (uint32_t)n);
        CHECK_EQ(lmarks.n, n);
        for (int i = 0; i < lmarks.n; i++) {
            char want[16];
            snprintf(want, sizeof want, "L%d", i);
            if (strcmp(lmarks.text[i], want) != 0) {
                fprintf(stderr, "seed %d: mark %d is %s, not %s\n", seed, i, lmarks.text[i], want);
                CHECK(0);
                break;
            }
        }
        orders += lorder;
        rounds_all += round;
    }
    /* The channel did what it says: refusals of seqs ahead, duplicates, many rounds. */
    CHECK(orders > 300);
    CHECK(dups > 300);
    printf("unit-command: lossy channel: 300 series, %d rounds, %d duplicates, %d refused ahead\n",
           rounds_all, dups, orders);
#undef RND
}

int main(void)
{
    fake_hz = 1000000;
    struct msamp_config cfg = {.interval = 4096, .seed = 1};
    CHECK_EQ(msamp_init(&cfg), 0);

    /* A mark, carried out once and acknowledged; its replay acknowledged again, not done. */
    send_text("mark=hello", 0);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, 1);
    CHECK_EQ(marks, 1);
    CHECK(strcmp(last_mark, "hello") == 0);
    CHECK_EQ(nacks, 1);
    CHECK_EQ(acks[0].seq, 0);
    CHECK_EQ(acks[0].series, SERIES);
    CHECK_EQ(acks[0].cmd, MSAMP_CMD_MARK);
    CHECK_EQ(acks[0].status, MSAMP_CMD_OK);
    send_text("mark=hello", 0);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, 1);
    CHECK_EQ(stats().commands_repeated, 1);
    CHECK_EQ(marks, 1);
    CHECK_EQ(nacks, 2);
    CHECK_EQ(acks[1].seq, 0);
    CHECK_EQ(acks[1].status, MSAMP_CMD_OK);

    /* Each read asks for at most MSAMP_CFG_CONTROL_READ bytes, one read per poll. */
    CHECK_EQ(read_max_seen, MSAMP_CFG_CONTROL_READ);
    unsigned r0 = reads;
    msamp_poll();
    CHECK_EQ(reads - r0, 1);

    /* The interval, its bounds, enable and disable, snapshot, identity. */
    send_text("interval=65536", 1);
    send_text("bounds=1024:1048576", 2);
    send_text("disable", 3);
    drain_rx();
    struct msamp_stats st = stats();
    CHECK_EQ(st.interval, 65536);
    CHECK_EQ(st.interval_min, 1024);
    CHECK_EQ(st.interval_max, 1048576);
    CHECK_EQ(st.enabled, 0);
    send_text("enable", 4);
    send_text("snapshot", 5);
    send_text("identity", 6);
    drain_rx();
    decode();
    CHECK_EQ(stats().enabled, 1);
    CHECK_EQ(stats().commands, 7);
    CHECK_EQ(nacks, 8);
    for (int i = 2; i < nacks; i++) {
        CHECK_EQ(acks[i].seq, (uint64_t)(i - 1));
        CHECK_EQ(acks[i].status, MSAMP_CFG_SNAPSHOTS || acks[i].cmd != MSAMP_CMD_SNAPSHOT
                                     ? MSAMP_CMD_OK : MSAMP_CMD_ERR_UNSUPPORTED);
    }
    uint32_t bad0 = stats().commands_bad;
    CHECK_EQ(bad0, 0);

    /* Unknown command and bad arguments: acknowledged with their status, nothing done. */
    const uint8_t unknown[] = {HEAD(7), 200};
    const uint8_t zero_interval[] = {HEAD(8), MSAMP_CMD_SET_INTERVAL, 0};
    const uint8_t cut_interval[] = {HEAD(9), MSAMP_CMD_SET_INTERVAL, 0x80};
    const uint8_t huge_interval[] = {HEAD(10), MSAMP_CMD_SET_INTERVAL, 0xff, 0xff, 0xff, 0xff, 0x7f};
    const uint8_t bounds_reversed[] = {HEAD(11), MSAMP_CMD_SET_BOUNDS, 100, 10};
    send_body(unknown, sizeof unknown, 0);
    send_body(zero_interval, sizeof zero_interval, 0);
    send_body(cut_interval, sizeof cut_interval, 0);
    send_body(huge_interval, sizeof huge_interval, 0);
    send_body(bounds_reversed, sizeof bounds_reversed, 0);
    drain_rx();
    decode();
    CHECK_EQ(nacks, 13);
    CHECK_EQ(acks[8].status, MSAMP_CMD_ERR_UNKNOWN);
    for (int i = 9; i < 13; i++)
        CHECK_EQ(acks[i].status, MSAMP_CMD_ERR_INVAL);
    CHECK_EQ(stats().interval, 65536);
    CHECK_EQ(stats().commands_bad, 0);

    /* Malformed frames: ignored and counted, one each; the next good frame still works. */
    const uint8_t good[] = {HEAD(12), MSAMP_CMD_SET_INTERVAL, 0x80, 0x40};
    send_body(good, sizeof good, 1);                       /* bad CRC */
    const uint8_t v3[] = {3, 31, 0, 12, 0, MSAMP_CMD_ENABLE};
    send_body(v3, sizeof v3, 0);                           /* another version */
    const uint8_t short_body[] = {MSAMP_CMD_VERSION};
    send_body(short_body, sizeof short_body, 0);           /* too short for a command */
    const uint8_t bad_cobs[] = {0x09, 0x01, 0x02, 0x00};    /* a group past the frame's end */
    rx_put(bad_cobs, sizeof bad_cobs);
    uint8_t big[5000];
    memset(big, 0x41, sizeof big);
    rx_put(big, sizeof big);                               /* far longer than the buffer... */
    rx_put("", 1);                                         /* ...ended: one bad frame */
    uint8_t f[MSAMP_COMMAND_FRAME_MAX];
    char err[128];
    long n = msamp_command_frame("interval=8192", SERIES, 12, f, sizeof f, err, sizeof err);
    rx_put(f + 1, (size_t)n - 5);                          /* cut: its CRC's end missing... */
    send_text("interval=16384", 12);                       /* ...the next frame's ends it */
    drain_rx();
    CHECK_EQ(stats().commands_bad, 6);
    CHECK_EQ(stats().interval, 16384);
    CHECK_EQ(stats().commands, 13);

    /* Random noise (some zeros, some not): never carried out, never a crash. */
    uint32_t seed = 12345;
    uint8_t noise[4096];
    for (int round = 0; round < 64; round++) {
        for (size_t i = 0; i < sizeof noise; i++) {
            seed = seed * 1103515245u + 12345u;
            noise[i] = (uint8_t)(seed >> 16);
            if (round & 1)
                noise[i] |= (noise[i] == 0 ? 0 : 1); /* odd rounds: fewer zeros */
        }
        rx_put(noise, sizeof noise);
        drain_rx();
    }
    st = stats();
    CHECK_EQ(st.commands, 13);
    CHECK(st.commands_bad > 6 + 64);
    CHECK_EQ(st.interval, 16384);
    /* A 0x00 ends whatever noise came before: the next frame is read whole. */
    send_text("mark=after noise", 13);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, 14);
    CHECK(strcmp(last_mark, "after noise") == 0);

    /* Host side: text that is no command is refused. */
    const char *badtext[] = {"", "snap", "interval", "interval=0", "interval=-1", "interval=4294967296",
                             "bounds=5", "bounds=10:5", "enable=1", "mark=" "0123456789012345678901234567890123456789012345678901234567890123456789"};
    for (size_t i = 0; i < sizeof badtext / sizeof badtext[0]; i++)
        CHECK(msamp_command_frame(badtext[i], 1, 1, f, sizeof f, err, sizeof err) < 0);
    CHECK(msamp_command_frame("mark=", 1, 1, f, sizeof f, err, sizeof err) > 0);
    CHECK(msamp_command_frame("snapshot", 1, 1, f, 4, err, sizeof err) < 0);

    order_rules();
    lossy_channel();
    CHECK_EQ(fake_lock_errors, 0);
    return check_report("unit-command");
}
