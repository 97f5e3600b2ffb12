/* Semihosting transport: msamp's stream into a file on the debug host, in chunks (one trap per
 * chunk costs about as much as one UART byte under QEMU). */
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

static intptr_t handle = -1;
static uint8_t chunk[MSAMP_SEMIHOST_CHUNK];
static size_t chunk_used;

int msamp_transport_init(void)
{
    if (handle < 0)
        handle = msamp_semihost_open_write(MSAMP_SEMIHOST_PATH);
    return handle < 0 ? -1 : 0;
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
