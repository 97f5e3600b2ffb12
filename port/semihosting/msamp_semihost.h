/*
 * Semihosting: host file I/O, console text and exit, for boards run under a debugger or under QEMU
 * with -semihosting-config enable=on,target=native (files open relative to QEMU's working
 * directory). Without semihosting enabled on the host the trap stops or faults the core: use these
 * only on such boards. Two implementations of the same functions, one linked per firmware
 * (port/<arch>/port.mk names it):
 *   semihost.c + semihost_trap.c   ARM semihosting, on AArch64, ARM, Cortex-M and RISC-V
 *   uhi.c                          MIPS UHI
 * port/transport/semihosting.c, the transport that writes msamp's stream to a host file, runs on
 * either.
 */
#ifndef MSAMP_SEMIHOST_H
#define MSAMP_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

/* ARM semihosting's trap (semihost_trap.c: AArch64 `hlt #0xf000`, ARM `svc 0x123456`, ...):
 * performs operation `op` with parameter block `arg` and returns the host's result. */
uintptr_t msamp_semihost_call(uintptr_t op, uintptr_t arg);

/* Open `path` for writing in binary mode (created or truncated). Returns a handle >= 0 or -1. */
intptr_t msamp_semihost_open_write(const char *path);

/* Write len bytes to handle; returns the number NOT written (0 on success), as the host does. */
size_t msamp_semihost_write(intptr_t handle, const void *data, size_t len);

/* The down-channel's file (port/transport/semihosting.c): open `path` for reading and appending,
 * created when missing (handle >= 0 or -1); read up to len bytes from where the last read ended:
 * returns the number NOT read, as the host does (len at the end of the file, or on error). */
intptr_t msamp_semihost_open_append(const char *path);
size_t msamp_semihost_read(intptr_t handle, void *data, size_t len);

/* Close a handle. 0 on success, -1 on failure. */
int msamp_semihost_close(intptr_t handle);

/* Print a NUL-terminated string on the host's console (QEMU: its stdout/stderr). */
void msamp_semihost_console(const char *text);

/* Stop the run: QEMU exits with status (0..255). Never returns on a host that supports it. */
void msamp_semihost_exit(int status);

#endif
