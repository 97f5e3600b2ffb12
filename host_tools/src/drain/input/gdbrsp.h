/*
 * A small GDB Remote Serial Protocol client: enough to stop a target, read and write its memory
 * and let it run again, through any GDB server (QEMU's -gdb tcp:..., OpenOCD's gdb port, the
 * J-Link GDB server, pyOCD's gdbserver). Packets $...#cs with +/- acknowledgements (no-ack mode
 * when the server offers it), run-length encoded replies decoded, every length bounded; a server
 * that sends garbage gets a clear error, one that closes the connection ends the session.
 *
 * Return values of the functions below: 0 done; GDB_EXITED the target exited or was killed (a W
 * or X reply); GDB_GONE the server closed the connection; GDB_ERR an error (message in err).
 */
#ifndef DRAIN_GDBRSP_H
#define DRAIN_GDBRSP_H

#include <stddef.h>
#include <stdint.h>

#define GDB_EXITED 1
#define GDB_GONE (-2)
#define GDB_ERR (-1)

/* The largest packet accepted from a server (after run-length decoding). */
#define GDB_PKT_MAX 65536

struct gdb {
    int fd;
    int noack;        /* QStartNoAckMode accepted */
    int vcont;        /* vCont;c supported */
    int running;      /* the target runs (only an interrupt may be sent) */
    size_t mem_chunk; /* bytes per m/M packet, from the server's PacketSize */
    int timeout_ms;   /* for every reply */
    char exit_kind;   /* 'W' or 'X' once the target exited */
    int exit_code;
    unsigned char in[4096];
    size_t in_len, in_pos;
    char pkt[GDB_PKT_MAX + 1]; /* the last packet received, NUL-terminated */
    size_t pkt_len;
    /* Statistics: packets sent, bytes of memory read and written, halts. */
    unsigned long long packets, bytes_read, bytes_written, halts;
};

/* Connects to HOST:PORT and shakes hands (qSupported, no-ack mode, vCont?, ?). On return 0 the
 * target is stopped (GDB servers stop it when a client attaches; QEMU -S starts stopped). */
int gdb_connect(struct gdb *g, const char *host, const char *port, int timeout_ms, char *err,
                size_t errlen);
/* Stops a running target (interrupt 0x03, waits for the stop reply); nothing when stopped. */
int gdb_halt(struct gdb *g, char *err, size_t errlen);
/* Lets a stopped target run (vCont;c, or c). */
int gdb_resume(struct gdb *g, char *err, size_t errlen);
/* While the target runs: waits up to timeout_ms (or until wake_fd is readable) for a stop reply
 * the target sent by itself. 0 when none came or the target stopped (running then 0), GDB_EXITED,
 * GDB_GONE, GDB_ERR. */
int gdb_wait_running(struct gdb *g, int timeout_ms, int wake_fd, char *err, size_t errlen);
/* Reads or writes len bytes of target memory at addr (the target stopped). */
int gdb_read_mem(struct gdb *g, uint64_t addr, void *buf, size_t len, char *err, size_t errlen);
int gdb_write_mem(struct gdb *g, uint64_t addr, const void *buf, size_t len, char *err,
                  size_t errlen);
void gdb_close(struct gdb *g);

#endif
