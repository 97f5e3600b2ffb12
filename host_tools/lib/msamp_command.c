/* Host side of the down-channel: command text to frame bytes (msamp_command.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msamp_command.h"
#include "msamp_decode.h"

static const char *const names[MSAMP_CMD_COUNT] = {
    [MSAMP_CMD_ENABLE] = "enable",       [MSAMP_CMD_DISABLE] = "disable",
    [MSAMP_CMD_SET_INTERVAL] = "interval", [MSAMP_CMD_SET_BOUNDS] = "bounds",
    [MSAMP_CMD_SNAPSHOT] = "snapshot",   [MSAMP_CMD_RESEND_IDENTITY] = "identity",
    [MSAMP_CMD_MARK] = "mark",
};

const char *msamp_command_name(unsigned cmd)
{
    return cmd < MSAMP_CMD_COUNT && names[cmd] ? names[cmd] : "?";
}

const char *msamp_command_status_name(unsigned status)
{
    static const char *const st[MSAMP_CMD_STATUSES] = {
        "ok", "invalid argument", "not initialised", "busy", "I/O error",
        "unsupported in this build", "unknown command",
        "out of order (not carried out)", "carried out earlier (status not kept)",
        "refused: a version-1 frame",
    };
    return status < MSAMP_CMD_STATUSES ? st[status] : "?";
}

/* A decimal number 1..UINT32_MAX ending at *end. */
static int number(const char *s, char **end, uint32_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, end, 10);
    if (errno || v == 0 || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int msamp_command_parse(const char *text, struct msamp_command *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    const char *eq = strchr(text, '=');
    size_t wl = eq ? (size_t)(eq - text) : strlen(text);
    unsigned cmd = 0;
    for (unsigned i = 1; i < MSAMP_CMD_COUNT; i++)
        if (strlen(names[i]) == wl && strncmp(text, names[i], wl) == 0)
            cmd = i;
    if (cmd == 0) {
        snprintf(err, errlen,
                 "unknown command '%s' (commands: enable, disable, snapshot, identity, "
                 "interval=N, bounds=MIN:MAX, mark=TEXT)", text);
        return -1;
    }
    int wants = cmd == MSAMP_CMD_SET_INTERVAL || cmd == MSAMP_CMD_SET_BOUNDS || cmd == MSAMP_CMD_MARK;
    if (wants != (eq != NULL)) {
        snprintf(err, errlen, "command '%s': %s", text,
                 wants ? "needs a value (interval=N, bounds=MIN:MAX, mark=TEXT)" : "takes no value");
        return -1;
    }
    c->cmd = cmd;
    char *end;
    if (cmd == MSAMP_CMD_SET_INTERVAL) {
        if (number(eq + 1, &end, &c->a) || *end) {
            snprintf(err, errlen, "command '%s': expected interval=N, N bytes in 1..4294967295", text);
            return -1;
        }
    } else if (cmd == MSAMP_CMD_SET_BOUNDS) {
        if (number(eq + 1, &end, &c->a) || *end != ':' || number(end + 1, &end, &c->b) || *end ||
            c->a > c->b) {
            snprintf(err, errlen, "command '%s': expected bounds=MIN:MAX, 1 <= MIN <= MAX", text);
            return -1;
        }
    } else if (cmd == MSAMP_CMD_MARK) {
        size_t n = strlen(eq + 1);
        if (n > MSAMP_WIRE_MAX_MARK) {
            snprintf(err, errlen, "command 'mark': text of %zu bytes, at most %u", n,
                     MSAMP_WIRE_MAX_MARK);
            return -1;
        }
        memcpy(c->text, eq + 1, n);
        c->text_len = n;
    }
    return 0;
}

static size_t put_varint(uint8_t *p, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80u) {
        p[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

size_t msamp_command_encode(const struct msamp_command *c, uint16_t series, uint16_t seq,
                            uint8_t *out, size_t cap)
{
    uint8_t body[MSAMP_CMD_MAX_BODY + 16];
    size_t n = 0;
    body[n++] = series ? MSAMP_CMD_VERSION : MSAMP_CMD_VERSION_1;
    if (series) {
        body[n++] = (uint8_t)series;
        body[n++] = (uint8_t)(series >> 8);
    }
    body[n++] = (uint8_t)seq;
    body[n++] = (uint8_t)(seq >> 8);
    body[n++] = (uint8_t)c->cmd;
    if (c->cmd == MSAMP_CMD_SET_INTERVAL) {
        n += put_varint(body + n, c->a);
    } else if (c->cmd == MSAMP_CMD_SET_BOUNDS) {
        n += put_varint(body + n, c->a);
        n += put_varint(body + n, c->b);
    } else if (c->cmd == MSAMP_CMD_MARK) {
        size_t t = c->text_len > MSAMP_WIRE_MAX_MARK ? MSAMP_WIRE_MAX_MARK : c->text_len;
        memcpy(body + n, c->text, t);
        n += t;
    }
    uint32_t crc = msamp_crc32(0, body, n);
    for (unsigned i = 0; i < 4u; i++)
        body[n++] = (uint8_t)(crc >> (8u * i));
    /* 0x00, COBS(body) (under 254 bytes: one group per zero), 0x00 */
    if (cap < n + 3u)
        return 0;
    size_t o = 0;
    out[o++] = 0;
    size_t code_at = o++;
    uint8_t code = 1;
    for (size_t i = 0; i < n; i++) {
        if (body[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = body[i];
            code++;
        }
    }
    out[code_at] = code;
    out[o++] = 0;
    return o;
}

long msamp_command_frame(const char *text, uint16_t series, uint16_t seq, uint8_t *out, size_t cap,
                         char *err, size_t errlen)
{
    struct msamp_command c;
    if (msamp_command_parse(text, &c, err, errlen) != 0)
        return -1;
    size_t n = msamp_command_encode(&c, series, seq, out, cap);
    if (n == 0) {
        snprintf(err, errlen, "command '%s': no room for its frame (%zu bytes)", text, cap);
        return -1;
    }
    return (long)n;
}
