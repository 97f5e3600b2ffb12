/* The down-channel (docs/CONTROL.md): command frames from the host, read by msamp_poll() from the
 * transport (msamp_transport_read()), never on the allocation path. A fixed buffer holds the frame
 * being received (COBS-encoded, up to its 0x00); a whole frame is decoded in place, its CRC-32 and
 * version checked, the command carried out through the public API, and a CMD_ACK record queued.
 * Anything else (bad COBS or CRC, a frame longer than the buffer, a cut one, another version) is
 * ignored and counted. Commands come in a series (the host's run) numbered from 0: the device
 * carries out only the seq it expects next, so each once and in order; a repeat is acknowledged
 * again with the status kept for it (the last MSAMP_CMD_KEPT), a seq ahead is refused (ORDER). */
#include "msamp_internal.h"

#if MSAMP_CFG_CONTROL

#define G msamp_core

/* The parser's state, owned by the drainer (msamp_poll() calls never overlap). */
static struct {
    uint8_t buf[MSAMP_CMD_MAX_FRAME];
    uint8_t len;      /* encoded bytes of the frame being received */
    uint8_t overflow; /* the frame outgrew buf: dropped up to its 0x00 */
    uint16_t series; /* the series being carried out (0: none yet) */
    uint16_t next;   /* its seq expected next */
    uint32_t kept;   /* statuses of seq next-1, next-2, ...: a nibble each, the newest lowest */
    uint32_t done, repeated, bad, refused;
} P;

_Static_assert(MSAMP_CMD_MAX_FRAME <= 255u, "the command buffer's length is a uint8_t");
_Static_assert(MSAMP_CMD_STATUSES <= 16u && MSAMP_CMD_KEPT * 4u <= 32u,
               "a kept status is a nibble of P.kept");
_Static_assert(MSAMP_CFG_CONTROL_READ >= 1 && MSAMP_CFG_CONTROL_READ <= 256,
               "MSAMP_CFG_CONTROL_READ: 1..256 (a stack buffer of msamp_poll())");

/* CRC-32/IEEE bit by bit: a command is a few bytes, the code stays small. */
static uint32_t crc32(const uint8_t *p, uint32_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < n; i++) {
        c ^= p[i];
        for (unsigned k = 0; k < 8u; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* COBS-decodes buf[0..len) in place (the output never overtakes the input). -1 when malformed. */
static int32_t cobs_in_place(uint8_t *b, uint32_t len)
{
    uint32_t i = 0, o = 0;
    while (i < len) {
        uint32_t code = b[i++];
        if (code == 0 || code - 1u > len - i)
            return -1;
        for (uint32_t k = 1; k < code; k++)
            b[o++] = b[i++];
        if (code != 0xFFu && i < len)
            b[o++] = 0;
    }
    return (int32_t)o;
}

/* An unsigned LEB128 varint of at most 32 bits from *p (n bytes left). 0 when cut or too large. */
static int varint32(const uint8_t **p, uint32_t *n, uint32_t *out)
{
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 35u && *n > 0; shift += 7u) {
        uint8_t b = **p;
        (*p)++;
        (*n)--;
        if (shift == 28u && (b & 0x70u) != 0)
            return 0;
        v |= (uint32_t)(b & 0x7Fu) << shift;
        if ((b & 0x80u) == 0) {
            *out = v;
            return 1;
        }
    }
    return 0;
}

static unsigned status_of(int rc)
{
    return rc >= 0 ? MSAMP_CMD_OK : (unsigned)-rc;
}

/* RESEND_IDENTITY: the identity goes out in this very poll (msamp_report_duties), as the periodic
 * one does, with the next resend_seq. */
static int resend_identity(void)
{
#if MSAMP_CFG_RESEND_BYTES
    msamp_port_lock_t key = msamp_port_lock();
    G.w.identity_due = 1;
    msamp_port_unlock(key);
    return MSAMP_OK;
#else
    return MSAMP_ERR_UNSUPPORTED;
#endif
}

static unsigned run(unsigned cmd, const uint8_t *a, uint32_t n)
{
    uint32_t x, y;
    switch (cmd) {
    case MSAMP_CMD_ENABLE:
        return status_of(msamp_enable());
    case MSAMP_CMD_DISABLE:
        return status_of(msamp_disable());
    case MSAMP_CMD_SET_INTERVAL:
        if (!varint32(&a, &n, &x))
            return MSAMP_CMD_ERR_INVAL;
        return status_of(msamp_set_interval(x));
    case MSAMP_CMD_SET_BOUNDS:
        if (!varint32(&a, &n, &x) || !varint32(&a, &n, &y))
            return MSAMP_CMD_ERR_INVAL;
        return status_of(msamp_set_interval_bounds(x, y));
    case MSAMP_CMD_SNAPSHOT:
        return status_of(msamp_snapshot());
    case MSAMP_CMD_RESEND_IDENTITY:
        return status_of(resend_identity());
    case MSAMP_CMD_MARK:
        return status_of(msamp_mark((const char *)a, n));
    default:
        return MSAMP_CMD_ERR_UNKNOWN;
    }
}

static void ack(uint32_t seq, unsigned cmd, unsigned status, uint32_t series)
{
    struct msamp_writer ev;
    msamp_port_lock_t key = msamp_port_lock();
    msamp_event_begin(&ev);
    msamp_rec_cmd_ack(seq, cmd, status, series);
    /* No room: the ack is lost, the host resends, the repeat is acknowledged. */
    (void)msamp_event_end(&ev, 0);
    msamp_port_unlock(key);
}

static uint16_t u16le(const uint8_t *b)
{
    return (uint16_t)(b[0] | b[1] << 8);
}

/* A whole frame (its 0x00 just received) in P.buf[0..P.len). */
static void frame(void)
{
    int32_t n = cobs_in_place(P.buf, P.len);
    const uint8_t *b = P.buf;
    uint32_t head = n > 0 && b[0] == MSAMP_CMD_VERSION ? MSAMP_CMD_HEAD
                    : n > 0 && b[0] == MSAMP_CMD_VERSION_1 ? 4u : 0u;
    if (head == 0 || n < (int32_t)(head + MSAMP_WIRE_CRC_SIZE)) {
        P.bad++;
        return;
    }
    uint32_t body = (uint32_t)n - MSAMP_WIRE_CRC_SIZE;
    uint32_t crc = (uint32_t)b[body] | (uint32_t)b[body + 1u] << 8 | (uint32_t)b[body + 2u] << 16 |
                   (uint32_t)b[body + 3u] << 24;
    if (crc32(b, body) != crc) {
        P.bad++;
        return;
    }
    unsigned cmd = b[head - 1u];
    if (head == 4u) { /* version 1: a host older than this device; nothing carried out */
        P.refused++;
        ack(u16le(b + 1), cmd, MSAMP_CMD_ERR_VERSION, 0);
        return;
    }
    uint16_t series = u16le(b + 1), seq = u16le(b + 3);
    if (series == 0) {
        P.bad++;
        return;
    }
    if (series != P.series) {
        if (seq != 0) { /* not a series' start: the device reset, or the start was lost */
            P.refused++;
            ack(seq, cmd, MSAMP_CMD_ERR_ORDER, series);
            return;
        }
        P.series = series;
        P.next = 0;
        P.kept = MSAMP_CMD_DONE_EARLIER * 0x11111111u;
    }
    uint16_t ahead = (uint16_t)(seq - P.next);
    unsigned status;
    if (ahead == 0) {
        status = run(cmd, b + head, body - head);
        if (status != MSAMP_CMD_ERR_BUSY) { /* BUSY: not done, its resend is carried out */
            P.done++;
            P.next++;
            P.kept = P.kept << 4 | status;
        }
    } else if (ahead < 0x8000u) {
        status = MSAMP_CMD_ERR_ORDER; /* an earlier seq has not come: the host resends in order */
        P.refused++;
    } else {
        uint32_t back = 0x10000u - ahead; /* done back commands ago */
        P.repeated++;
        status = back <= MSAMP_CMD_KEPT ? (P.kept >> (4u * (back - 1u))) & 0xFu
                                        : MSAMP_CMD_DONE_EARLIER;
    }
    ack(seq, cmd, status, series);
}

void msamp_command_feed(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c != 0) {
            if (P.len < sizeof P.buf)
                P.buf[P.len++] = c;
            else if (!P.overflow) {
                P.overflow = 1;
                P.bad++;
            }
            continue;
        }
        if (!P.overflow && P.len > 0) /* a lone 0x00 is line filler */
            frame();
        P.len = 0;
        P.overflow = 0;
    }
}

void msamp_command_poll(void)
{
    uint8_t in[MSAMP_CFG_CONTROL_READ];
    int n = msamp_transport_read(in, sizeof in);
    if (n <= 0)
        return;
    msamp_command_feed(in, (size_t)n > sizeof in ? sizeof in : (size_t)n);
}

void msamp_command_counts(uint32_t *done, uint32_t *repeated, uint32_t *bad, uint32_t *refused)
{
    *refused = P.refused;
    *done = P.done;
    *repeated = P.repeated;
    *bad = P.bad;
}

#else
/* MSAMP_CFG_CONTROL 0: no parser (a translation unit must declare something). */
typedef int msamp_command_left_out;
#endif
