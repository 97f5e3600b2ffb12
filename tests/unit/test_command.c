/*
 * The down-channel's parser (src/msamp_command.c) on the fake port, fed through a test
 * msamp_transport_read() by msamp_poll(): frames from the host encoder (host_tools/lib/
 * msamp_command.c) carried out and acknowledged (CMD_ACK records read back by the host decoder),
 * and hostile bytes: random noise, cut frames, bad CRCs, frames far longer than the buffer, another
 * format version, unknown commands, bad arguments, replays. Nothing but a whole valid frame is
 * ever carried out; every malformed frame is counted once; the read per poll is bounded.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "msamp.h"
#include "msamp_command.h"
#include "msamp_decode.h"
#include "msamp_internal.h"

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

static void send_text(const char *text, uint16_t seq)
{
    uint8_t f[MSAMP_COMMAND_FRAME_MAX];
    char err[256];
    long n = msamp_command_frame(text, seq, f, sizeof f, err, sizeof err);
    CHECK(n > 0);
    if (n > 0)
        rx_put(f, (size_t)n);
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
    uint64_t seq, cmd, status;
} acks[256];
static int nacks;
static int marks;
static char last_mark[80];

static void on_rec(void *arg, const struct msamp_record *r)
{
    (void)arg;
    if (r->type == MSAMP_REC_CMD_ACK && nacks < 256)
        acks[nacks++] = (struct ack){r->u.cmd_ack.seq, r->u.cmd_ack.cmd, r->u.cmd_ack.status};
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

int main(void)
{
    fake_hz = 1000000;
    struct msamp_config cfg = {.interval = 4096, .seed = 1};
    CHECK_EQ(msamp_init(&cfg), 0);

    /* A mark, carried out once and acknowledged; its replay acknowledged again, not done. */
    send_text("mark=hello", 7);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, 1);
    CHECK_EQ(marks, 1);
    CHECK(strcmp(last_mark, "hello") == 0);
    CHECK_EQ(nacks, 1);
    CHECK_EQ(acks[0].seq, 7);
    CHECK_EQ(acks[0].cmd, MSAMP_CMD_MARK);
    CHECK_EQ(acks[0].status, MSAMP_CMD_OK);
    send_text("mark=hello", 7);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, 1);
    CHECK_EQ(stats().commands_repeated, 1);
    CHECK_EQ(marks, 1);
    CHECK_EQ(nacks, 2);
    CHECK_EQ(acks[1].seq, 7);

    /* Each read asks for at most MSAMP_CFG_CONTROL_READ bytes, one read per poll. */
    CHECK_EQ(read_max_seen, MSAMP_CFG_CONTROL_READ);
    unsigned r0 = reads;
    msamp_poll();
    CHECK_EQ(reads - r0, 1);

    /* The interval, its bounds, enable and disable, snapshot, identity. */
    send_text("interval=65536", 8);
    send_text("bounds=1024:1048576", 9);
    send_text("disable", 10);
    drain_rx();
    struct msamp_stats st = stats();
    CHECK_EQ(st.interval, 65536);
    CHECK_EQ(st.interval_min, 1024);
    CHECK_EQ(st.interval_max, 1048576);
    CHECK_EQ(st.enabled, 0);
    send_text("enable", 11);
    send_text("snapshot", 12);
    send_text("identity", 13);
    drain_rx();
    decode();
    CHECK_EQ(stats().enabled, 1);
    CHECK_EQ(stats().commands, 7);
    CHECK_EQ(nacks, 8);
    for (int i = 2; i < nacks; i++) {
        CHECK_EQ(acks[i].seq, (uint64_t)(6 + i));
        CHECK_EQ(acks[i].status, MSAMP_CFG_SNAPSHOTS || acks[i].cmd != MSAMP_CMD_SNAPSHOT
                                     ? MSAMP_CMD_OK : MSAMP_CMD_ERR_UNSUPPORTED);
    }
    uint32_t bad0 = stats().commands_bad;
    CHECK_EQ(bad0, 0);

    /* Unknown command and bad arguments: acknowledged with their status, nothing done. */
    const uint8_t unknown[] = {MSAMP_CMD_VERSION, 20, 0, 200};
    const uint8_t zero_interval[] = {MSAMP_CMD_VERSION, 21, 0, MSAMP_CMD_SET_INTERVAL, 0};
    const uint8_t cut_interval[] = {MSAMP_CMD_VERSION, 22, 0, MSAMP_CMD_SET_INTERVAL, 0x80};
    const uint8_t huge_interval[] = {MSAMP_CMD_VERSION, 23, 0, MSAMP_CMD_SET_INTERVAL,
                                     0xff, 0xff, 0xff, 0xff, 0x7f};
    const uint8_t bounds_reversed[] = {MSAMP_CMD_VERSION, 24, 0, MSAMP_CMD_SET_BOUNDS, 100, 10};
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
    const uint8_t good[] = {MSAMP_CMD_VERSION, 30, 0, MSAMP_CMD_SET_INTERVAL, 0x80, 0x40};
    send_body(good, sizeof good, 1);                       /* bad CRC */
    const uint8_t v2[] = {2, 31, 0, MSAMP_CMD_ENABLE};
    send_body(v2, sizeof v2, 0);                           /* another version */
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
    long n = msamp_command_frame("interval=8192", 32, f, sizeof f, err, sizeof err);
    rx_put(f + 1, (size_t)n - 5);                          /* cut: its CRC's end missing... */
    send_text("interval=16384", 33);                       /* ...the next frame's ends it */
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
    send_text("mark=after noise", 40);
    drain_rx();
    decode();
    CHECK_EQ(stats().commands, 14);
    CHECK(strcmp(last_mark, "after noise") == 0);

    /* Host side: text that is no command is refused. */
    const char *badtext[] = {"", "snap", "interval", "interval=0", "interval=-1", "interval=4294967296",
                             "bounds=5", "bounds=10:5", "enable=1", "mark=" "0123456789012345678901234567890123456789012345678901234567890123456789"};
    for (size_t i = 0; i < sizeof badtext / sizeof badtext[0]; i++)
        CHECK(msamp_command_frame(badtext[i], 1, f, sizeof f, err, sizeof err) < 0);
    CHECK(msamp_command_frame("mark=", 1, f, sizeof f, err, sizeof err) > 0);
    CHECK(msamp_command_frame("snapshot", 1, f, 4, err, sizeof err) < 0);
    CHECK_EQ(fake_lock_errors, 0);
    return check_report("unit-command");
}
