/*
 * drain's gdb: input (docs/RTT.md): reads msamp's SEGGER RTT up-channel through a GDB server
 * (gdbrsp.h), as a debug probe's RTT support does. The control block is found by the symbol
 * _SEGGER_RTT of the ELF given, or by scanning RAM for its id (the ELF's writable PT_LOAD
 * segments, or the range given). Each poll stops the target, reads the up-buffer's descriptor and
 * new bytes, advances RdOff, and lets it run; at most RTT_POLL_HZ polls a second (fewer while it
 * sends little). Everything read from the target is checked: a corrupted block is an error.
 */
#ifndef DRAIN_RTTPROBE_H
#define DRAIN_RTTPROBE_H

#include <stddef.h>
#include <sys/types.h>

struct rtt_probe;

/* Polls a second at most, while the up-buffer fills; while it is less than half full the poll
 * period is RTT_IDLE_MS. */
#define RTT_POLL_HZ 1000
#define RTT_IDLE_MS 10

/* spec: "gdb:HOST:PORT". elf: the firmware's ELF (NULL: none); scan: "ADDR:SIZE" (NULL: none).
 * NULL on failure with a message in err; *usage set when spec or scan is malformed. */
struct rtt_probe *rtt_open(const char *spec, const char *elf, const char *scan, int *usage,
                           char *err, size_t errlen);
/* As input_read: > 0 bytes, 0 none in time, -1 the end (the server went away or the target
 * exited: notice says which), -2 an error (err). */
ssize_t rtt_read(struct rtt_probe *p, void *buf, size_t len, int timeout_ms, int wake_fd,
                 char *notice, size_t noticelen, char *err, size_t errlen);
/* Writes len bytes into the down-buffer and advances its WrOff (waiting at most 1 s for room).
 * len, 0 when the control block is not found yet, -2 on error. */
ssize_t rtt_write(struct rtt_probe *p, const void *buf, size_t len, char *err, size_t errlen);
/* Halts and statistics: bytes read, seconds since open, polls. */
void rtt_stats(const struct rtt_probe *p, unsigned long long *bytes, double *seconds,
               unsigned long long *polls);
void rtt_close(struct rtt_probe *p);

#endif
