/*
 * drain's inputs: a tty (raw mode, chosen baud, exclusive), a regular file (optionally followed
 * while it grows, across truncation, rotation and replacement), a FIFO or other readable file, "-"
 * for stdin, "tcp:HOST:PORT" (drain connects) or "tcp-listen:[HOST:]PORT" (drain listens, on
 * 127.0.0.1 unless HOST is given, and reads the connection it accepts; followed, it accepts the
 * next one after each disconnect), "gdb:HOST:PORT" (msamp's SEGGER RTT channel read through a GDB
 * server: rttprobe.h, docs/RTT.md).
 */
#ifndef DRAIN_INPUT_H
#define DRAIN_INPUT_H

#include <stddef.h>
#include <sys/types.h>

struct input {
    int fd;        /* -1 while a tcp-listen input waits for a connection */
    int is_tty, is_file, is_sock, follow;
    int wake_fd;   /* readable when the caller must return at once (a signal's self-pipe); -1 */
    char desc[256];
    /* tcp-listen: the listening socket (-1 for other inputs, and once the one connection of an
     * unfollowed input was accepted: later clients are refused), the address it is bound to
     * ("127.0.0.1:5555", "[::1]:5555": the port the kernel chose for port 0) and the number of
     * connections accepted so far. */
    int listen_fd;
    char where[128];
    int connections;
    /* --follow: the path, the followed file's identity and the offset read so far; awaiting:
     * the path does not exist yet (no fd until it does, as tail -F). */
    char *path;
    int awaiting;
    dev_t dev;
    ino_t ino;
    off_t off;
    /* Set by input_read when the input started over (the file was truncated, or the path now
     * names another file): what follows is new data, not a continuation. The caller clears it.
     * notice says what happened. */
    int restarted;
    /* Set by input_read when notice holds news that is no restart (a connection accepted). The
     * caller clears it. */
    int announce;
    char notice[512];
    /* gdb:HOST:PORT: the RTT reader (NULL for other inputs). */
    struct rtt_probe *rtt;
};

/* For gdb: inputs, before input_open: the firmware's ELF (its symbol _SEGGER_RTT, or its RAM to
 * scan) and a RAM range to scan, "ADDR:SIZE" (--rtt-scan); either may be NULL. */
void input_gdb_options(const char *elf, const char *rtt_scan);

/* Opens spec. 0; -1 with a message in err when the input cannot be opened (a missing file, a
 * refused connection, a port in use); -2 when spec itself is malformed (tcp:HOST without a port).
 * baud is used for ttys only; follow for regular files and tcp-listen. Followed, a file that
 * does not exist yet is waited for (input_read opens it once it appears; notice says so). */
int input_open(struct input *in, const char *spec, long baud, int follow, char *err,
               size_t errlen);
/* 1 when baud is a rate termios supports. */
int input_baud_ok(long baud);
/* Reads up to len bytes, waiting at most timeout_ms (less when wake_fd becomes readable).
 * Returns bytes read (> 0), 0 when nothing arrived in time, -1 at end of input, -2 on error
 * (message in err). A tcp-listen input first waits for its connection (accepting it sets
 * announce); the peer closing it (or resetting it) ends the input, or, followed, sets restarted
 * and waits for the next connection. A followed file at its end is checked for truncation (its size below the
 * offset read: read again from the start) and for replacement (the path names another inode,
 * after a rotation or an atomic rename: the new file is opened and read from its start); either
 * sets restarted. */
ssize_t input_read(struct input *in, void *buf, size_t len, int timeout_ms, char *err,
                   size_t errlen);
/* Sends len bytes to the device (commands on the down-channel): a tty, a TCP connection, or the
 * RTT down-buffer of a gdb: input (written while the target is stopped, then its WrOff).
 * Returns len; 0 when the input has no connection yet (tcp-listen waiting); -2 with a message in
 * err when the input cannot send (a file, stdin, a FIFO) or the write fails. Waits at most 1 s
 * without the device making room (a gdb: input reads the up-channel meanwhile, for the reads after:
 * a firmware whose up-writes block takes its commands only once its bytes went out). */
ssize_t input_write(struct input *in, const void *buf, size_t len, char *err, size_t errlen);
void input_close(struct input *in);

#endif
