/*
 * drain's inputs: a tty (raw mode, chosen baud, exclusive), a regular file (optionally followed
 * while it grows), a FIFO or other readable file, "-" for stdin, or "tcp:HOST:PORT".
 */
#ifndef DRAIN_INPUT_H
#define DRAIN_INPUT_H

#include <stddef.h>
#include <sys/types.h>

struct input {
    int fd;
    int is_tty, is_file, follow;
    char desc[256];
};

/* Opens spec. 0, or -1 with a message in err. baud is used for ttys only. */
int input_open(struct input *in, const char *spec, long baud, int follow, char *err,
               size_t errlen);
/* 1 when baud is a rate termios supports. */
int input_baud_ok(long baud);
/* Reads up to len bytes, waiting at most timeout_ms. Returns bytes read (> 0), 0 when nothing
 * arrived in time, -1 at end of input, -2 on error (message in err). */
ssize_t input_read(struct input *in, void *buf, size_t len, int timeout_ms, char *err,
                   size_t errlen);
void input_close(struct input *in);

#endif
