/*
 * Host side of the down-channel (docs/CONTROL.md): a command in text ("snapshot",
 * "interval=65536", "bounds=4096:1048576", "mark=TEXT", "enable", "disable", "identity") parsed
 * and encoded as the frame a device's msamp_poll() reads (include/msamp_wire.h: COBS, CRC-32).
 * For any tool that sends commands: drain over a tty, TCP, a semihosting file or the hosted port's
 * control socket, and other inputs (a debugger's RTT down-buffer).
 */
#ifndef MSAMP_COMMAND_H
#define MSAMP_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "msamp_wire.h"

/* Bytes of the longest frame msamp_command_encode writes: a leading 0x00 (ends any bytes the
 * device received before), COBS(body), the closing 0x00. */
#define MSAMP_COMMAND_FRAME_MAX (MSAMP_CMD_MAX_FRAME + 1u)

struct msamp_command {
    unsigned cmd;  /* enum msamp_wire_cmd */
    uint32_t a, b; /* SET_INTERVAL: a; SET_BOUNDS: a = min, b = max */
    size_t text_len;
    char text[MSAMP_WIRE_MAX_MARK]; /* MARK */
};

/* Parses one command in text. 0; -1 with a message in err (an unknown command, a bad number, a
 * mark longer than MSAMP_WIRE_MAX_MARK bytes). */
int msamp_command_parse(const char *text, struct msamp_command *c, char *err, size_t errlen);

/* Writes the frame of c, command seq of the host's series (1..65535: a version-2 frame; 0: a
 * version-1 frame, seq alone, as a host before series sent) into out[cap]; returns its length
 * (at most MSAMP_COMMAND_FRAME_MAX), or 0 when cap is too small. */
size_t msamp_command_encode(const struct msamp_command *c, uint16_t series, uint16_t seq,
                            uint8_t *out, size_t cap);

/* Both in one: text in, frame bytes out. The frame's length; -1 with a message in err. */
long msamp_command_frame(const char *text, uint16_t series, uint16_t seq, uint8_t *out, size_t cap,
                         char *err, size_t errlen);

/* The command's text form ("snapshot", ... the word before '='), and a status's name ("ok",
 * "busy", "unsupported", ...); "?" for a value this host does not know. */
const char *msamp_command_name(unsigned cmd);
const char *msamp_command_status_name(unsigned status);

#endif
