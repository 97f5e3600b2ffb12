/*
 * drain's down-channel (docs/CONTROL.md): commands given with --send, and typed on stdin while
 * drain follows a tty or a TCP stream, sent to the device as command frames
 * (host_tools/lib/msamp_command.h) through the input (a tty, a TCP connection) or a file
 * (--send-file: a semihosting command file, appended to, or the hosted port's MSAMP_CONTROL FIFO).
 * Commands go out in order as one series (seq 0, 1, ... of a random series id), up to 8 before the
 * first is acknowledged; each is resent (same series and seq: the device carries each seq out once
 * and in order) until the device's CMD_ACK record for it arrives in the stream, at most 5 sends,
 * the wait between two from the acks' measured round trip, doubled at each resend. Acks are
 * reported on stderr; a command never acknowledged is reported at the end. The exit status does
 * not depend on them.
 */
#ifndef DRAIN_CONTROL_H
#define DRAIN_CONTROL_H

#include <stddef.h>

#include "input/input.h"
#include "msamp_decode.h"

struct control;

/* A new, empty control; never NULL (exits on out of memory). */
struct control *control_new(void);
void control_free(struct control *c);
/* --send TEXT: 0; -1 with a message in err when TEXT is no command. */
int control_add(struct control *c, const char *text, char *err, size_t errlen);
/* --send-file PATH: frames go to PATH (appended; a FIFO is opened when it has a reader). */
void control_set_file(struct control *c, const char *path);
/* --send-stdin: commands are read from stdin (one a line) even when it is no terminal. */
void control_set_stdin(struct control *c);
/* Once the input is open: checks the commands can be sent (0; -1 with a message in err: the
 * input is a file or stdin and no --send-file), and decides whether stdin is read for commands
 * (it is not the input, and is a terminal drain runs in the foreground of, or --send-stdin). */
int control_start(struct control *c, const struct input *in, char *err, size_t errlen);
/* From the read loop, at time now (s): reads typed commands, sends what is due, resends. */
void control_tick(struct control *c, struct input *in, double now);
/* A record from the stream, read at time now (s): a CMD_ACK (of this run's series: a command
 * acknowledged, or refused out of order and sent again), a SESSION (the device reads version-2
 * command frames, or nothing more is sent); others are ignored, and all of them when c is NULL
 * (a RAM dump: no device to send to). */
void control_on_record(struct control *c, const struct msamp_record *rec, double now);
/* End of the run: reports the commands never acknowledged; returns their number. */
int control_finish(struct control *c);

#endif
