/* Semihosting transport: msamp's stream into a file on the debug host, in chunks (one trap per
 * chunk costs about as much as one UART byte under QEMU). The down-channel (docs/CONTROL.md):
 * command frames the host appends to MSAMP_SEMIHOST_CMD_PATH (drain --send-file), read by
 * msamp_poll() every MSAMP_SEMIHOST_CMD_EVERY polls with one SYS_READ from where the last read
 * ended: on a regular file a read at its end returns at once with nothing, so it never waits.
 * (SYS_FLEN is not used: QEMU 7.2 answers it for host files from guest memory below the stack
 * pointer, a size that is often wrong.) The file is opened, created when missing, by
 * msamp_transport_init(), which reads past what it holds then (up to MSAMP_SEMIHOST_CMD_SKIP
 * bytes): commands left by an earlier run are not carried out again. The host only appends: a
 * file truncated while the device runs is not read again until the device restarts. */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_semihost.h"
#include "msamp_transport.h"

#ifndef MSAMP_SEMIHOST_PATH
#define MSAMP_SEMIHOST_PATH "msamp.bin"
#endif
#ifndef MSAMP_SEMIHOST_CHUNK
#define MSAMP_SEMIHOST_CHUNK 256
#endif

#ifndef MSAMP_SEMIHOST_CMD_PATH
#define MSAMP_SEMIHOST_CMD_PATH "msamp.cmd"
#endif
/* Polls between two looks at the command file (each look is one trap, two more when it grew). */
#ifndef MSAMP_SEMIHOST_CMD_EVERY
#define MSAMP_SEMIHOST_CMD_EVERY 8
#endif

/* Bytes of an existing command file skipped at start-up, at most. */
#ifndef MSAMP_SEMIHOST_CMD_SKIP
#define MSAMP_SEMIHOST_CMD_SKIP 4096
#endif

static intptr_t handle = -1;
static intptr_t cmd_handle = -1;
static unsigned cmd_polls;
static uint8_t chunk[MSAMP_SEMIHOST_CHUNK];
static size_t chunk_used;

int msamp_transport_init(void)
{
    if (handle < 0)
        handle = msamp_semihost_open_write(MSAMP_SEMIHOST_PATH);
    if (handle >= 0 && cmd_handle < 0 && MSAMP_SEMIHOST_CMD_EVERY > 0) {
        cmd_handle = msamp_semihost_open_append(MSAMP_SEMIHOST_CMD_PATH);
        /* What it holds already: read into the (still empty) chunk buffer and dropped. */
        for (unsigned skipped = 0; cmd_handle >= 0 && skipped < MSAMP_SEMIHOST_CMD_SKIP;
             skipped += MSAMP_SEMIHOST_CHUNK)
            if (msamp_semihost_read(cmd_handle, chunk, MSAMP_SEMIHOST_CHUNK) != 0)
                break;
    }
    return handle < 0 ? -1 : 0;
}

int msamp_transport_read(uint8_t *buf, size_t max)
{
    if (cmd_handle < 0 || ++cmd_polls < MSAMP_SEMIHOST_CMD_EVERY)
        return 0;
    cmd_polls = 0;
    size_t left = msamp_semihost_read(cmd_handle, buf, max);
    return left >= max ? 0 : (int)(max - left);
}

int msamp_transport_flush(void)
{
    if (handle < 0)
        return -1;
    if (chunk_used == 0)
        return 0;
    size_t left = msamp_semihost_write(handle, chunk, chunk_used);
    chunk_used = 0;
    return left == 0 ? 0 : -1;
}

int msamp_transport_write(const uint8_t *data, size_t len)
{
    if (handle < 0)
        return -1;
    if (len > (size_t)INT32_MAX)
        len = (size_t)INT32_MAX;
    for (size_t done = 0; done < len;) {
        size_t n = MSAMP_SEMIHOST_CHUNK - chunk_used;
        if (n > len - done)
            n = len - done;
        for (size_t i = 0; i < n; i++)
            chunk[chunk_used + i] = data[done + i];
        chunk_used += n;
        done += n;
        if (chunk_used == MSAMP_SEMIHOST_CHUNK && msamp_transport_flush() != 0)
            return -1;
    }
    return (int)len;
}

const char *msamp_transport_name(void)
{
    return "semihosting";
}
