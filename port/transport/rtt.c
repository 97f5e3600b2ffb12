/* SEGGER RTT transport: msamp's stream into an up-buffer in RAM that a debug probe reads (OpenOCD,
 * J-Link, pyOCD, probe-rs, or drain itself through any GDB server: drain gdb:HOST:PORT), and the
 * down-channel's bytes from the matching down-buffer (docs/RTT.md).
 *
 * The control block _SEGGER_RTT has SEGGER's layout, which every RTT tool expects: the id
 * "SEGGER RTT", the numbers of up and down buffers, then the up-buffer descriptors and the
 * down-buffer descriptors. msamp's stream goes to up-channel MSAMP_RTT_CHANNEL (default 1: channel
 * 0 is the "Terminal" of RTT viewers, which would show binary; it is described with no buffer) and
 * its commands come on down-channel MSAMP_RTT_CHANNEL. Both channels are named "msamp".
 *
 * Build-time settings (-D):
 *   MSAMP_RTT_CHANNEL     0 or 1 (default 1)
 *   MSAMP_RTT_UP_SIZE     bytes of the up-buffer (default 1024; at least 2: one byte stays empty)
 *   MSAMP_RTT_DOWN_SIZE   bytes of the down-buffer (default 16; 0: no down-channel)
 *   MSAMP_RTT_BLOCK       1: msamp_transport_write() waits for the probe to make room, as a UART
 *                         waits for its FIFO, and msamp_transport_flush() waits until the probe has
 *                         read everything (SEGGER's BLOCK_IF_FIFO_FULL: without a probe reading,
 *                         the caller hangs). 0 (default): it takes what fits and returns the
 *                         count, the core keeps the rest (and drops whole events once its ring is
 *                         full).
 *
 * Ordering with a probe that reads memory while the core runs: the bytes are stored, then a fence,
 * then WrOff; RdOff (the probe's) is loaded once per call. The id is written last at init, one
 * byte at a time from immediates, so the string "SEGGER RTT" is nowhere in the image: a probe that
 * scans RAM for it finds only the live block.
 */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"
#include "msamp_transport.h"

#ifndef MSAMP_RTT_CHANNEL
#define MSAMP_RTT_CHANNEL 1
#endif
#ifndef MSAMP_RTT_UP_SIZE
#define MSAMP_RTT_UP_SIZE 1024
#endif
#ifndef MSAMP_RTT_DOWN_SIZE
#define MSAMP_RTT_DOWN_SIZE 16
#endif
#ifndef MSAMP_RTT_BLOCK
#define MSAMP_RTT_BLOCK 0
#endif

#if MSAMP_RTT_CHANNEL != 0 && MSAMP_RTT_CHANNEL != 1
#error "MSAMP_RTT_CHANNEL must be 0 or 1"
#endif
#if MSAMP_RTT_UP_SIZE < 2 || MSAMP_RTT_UP_SIZE > 0x40000000
#error "MSAMP_RTT_UP_SIZE must be at least 2 (one byte of the buffer always stays empty)"
#endif
#if MSAMP_RTT_DOWN_SIZE != 0 && (MSAMP_RTT_DOWN_SIZE < 2 || MSAMP_RTT_DOWN_SIZE > 0x40000000)
#error "MSAMP_RTT_DOWN_SIZE must be 0 (no down-channel) or at least 2"
#endif

#define RTT_CHANNELS (MSAMP_RTT_CHANNEL + 1)

/* SEGGER_RTT_BUFFER_UP / _DOWN: the probe writes RdOff of an up-buffer and WrOff of a
 * down-buffer, the target the other. */
struct msamp_rtt_buffer {
    const char *sName;
    char *pBuffer;
    unsigned SizeOfBuffer;
    unsigned WrOff;
    volatile unsigned RdOff;
    unsigned Flags;
};

struct msamp_rtt_cb {
    char acID[16];
    int MaxNumUpBuffers;
    int MaxNumDownBuffers;
    struct msamp_rtt_buffer aUp[RTT_CHANNELS];
    struct msamp_rtt_buffer aDown[RTT_CHANNELS];
};

/* The name tools look up (in .bss: zero until msamp_transport_init()). */
extern struct msamp_rtt_cb _SEGGER_RTT;
struct msamp_rtt_cb _SEGGER_RTT __attribute__((aligned(8)));

static char up_buf[MSAMP_RTT_UP_SIZE];
#if MSAMP_RTT_DOWN_SIZE > 0
static char down_buf[MSAMP_RTT_DOWN_SIZE];
#endif
static const char channel_name[] = "msamp";
#if MSAMP_RTT_CHANNEL == 1
static const char terminal_name[] = "Terminal";
#endif
/* The target's own offsets: what it wrote last (the up-buffer's WrOff) and read last (the
 * down-buffer's RdOff), kept here so a probe that scribbles over them cannot make the transport
 * write outside its buffers. */
static unsigned up_wr, down_rd;
static int ready;

#define UP (&_SEGGER_RTT.aUp[MSAMP_RTT_CHANNEL])
#define DOWN (&_SEGGER_RTT.aDown[MSAMP_RTT_CHANNEL])

static unsigned load(const volatile unsigned *p)
{
    return *p;
}

static void store(volatile unsigned *p, unsigned v)
{
    *p = v;
}

int msamp_transport_init(void)
{
    if (ready)
        return 0;
    volatile struct msamp_rtt_cb *cb = &_SEGGER_RTT;
    cb->MaxNumUpBuffers = RTT_CHANNELS;
    cb->MaxNumDownBuffers = RTT_CHANNELS;
#if MSAMP_RTT_CHANNEL == 1
    cb->aUp[0].sName = terminal_name;
    cb->aDown[0].sName = terminal_name;
#endif
    cb->aUp[MSAMP_RTT_CHANNEL].sName = channel_name;
    cb->aUp[MSAMP_RTT_CHANNEL].pBuffer = up_buf;
    cb->aUp[MSAMP_RTT_CHANNEL].SizeOfBuffer = MSAMP_RTT_UP_SIZE;
    cb->aUp[MSAMP_RTT_CHANNEL].WrOff = 0;
    cb->aUp[MSAMP_RTT_CHANNEL].RdOff = 0;
    cb->aUp[MSAMP_RTT_CHANNEL].Flags = MSAMP_RTT_BLOCK ? 2u : 0u; /* SEGGER's mode numbers */
    cb->aDown[MSAMP_RTT_CHANNEL].sName = channel_name;
#if MSAMP_RTT_DOWN_SIZE > 0
    cb->aDown[MSAMP_RTT_CHANNEL].pBuffer = down_buf;
    cb->aDown[MSAMP_RTT_CHANNEL].SizeOfBuffer = MSAMP_RTT_DOWN_SIZE;
#endif
    cb->aDown[MSAMP_RTT_CHANNEL].WrOff = 0;
    cb->aDown[MSAMP_RTT_CHANNEL].RdOff = 0;
    up_wr = 0;
    down_rd = 0;
    /* The id last, back to front, from byte immediates: a probe polling for it sees a complete
     * block, and no "SEGGER RTT" string sits in the image's data. */
    atomic_thread_fence(memory_order_seq_cst);
    volatile char *id = cb->acID;
    id[15] = 0; id[14] = 0; id[13] = 0; id[12] = 0; id[11] = 0; id[10] = 0;
    id[9] = 'T'; id[8] = 'T'; id[7] = 'R'; id[6] = ' ';
    id[5] = 'R'; id[4] = 'E'; id[3] = 'G'; id[2] = 'G'; id[1] = 'E';
    atomic_thread_fence(memory_order_seq_cst);
    id[0] = 'S';
    atomic_thread_fence(memory_order_seq_cst);
    ready = 1;
    return 0;
}

/* Free bytes in the up-buffer given the probe's read offset (one byte always stays empty). */
static unsigned up_room(unsigned rd)
{
    return rd > up_wr ? rd - up_wr - 1u : MSAMP_RTT_UP_SIZE - 1u - up_wr + rd;
}

/* Copies what fits (all of it when MSAMP_RTT_BLOCK) and publishes it. */
int msamp_transport_write(const uint8_t *data, size_t len)
{
    if (!ready)
        return -1;
    if (len > (size_t)INT32_MAX)
        len = (size_t)INT32_MAX;
    size_t done = 0;
    do {
        unsigned rd = load(&UP->RdOff);
        atomic_thread_fence(memory_order_acquire);
        /* A read offset outside the buffer is a probe's scribble: nothing is taken until it
         * writes a sane one (the core keeps the bytes). */
        unsigned room = rd < MSAMP_RTT_UP_SIZE ? up_room(rd) : 0u;
        size_t n = len - done < room ? len - done : room;
        size_t first = MSAMP_RTT_UP_SIZE - up_wr;
        if (first > n)
            first = n;
        for (size_t i = 0; i < first; i++)
            up_buf[up_wr + i] = (char)data[done + i];
        for (size_t i = first; i < n; i++)
            up_buf[i - first] = (char)data[done + i];
        if (n > 0) {
            unsigned wr = up_wr + (unsigned)n;
            up_wr = wr >= MSAMP_RTT_UP_SIZE ? wr - MSAMP_RTT_UP_SIZE : wr;
            atomic_thread_fence(memory_order_release); /* the bytes before the offset */
            store(&UP->WrOff, up_wr);
            done += n;
        }
    } while (MSAMP_RTT_BLOCK && done < len);
    return (int)done;
}

int msamp_transport_flush(void)
{
    if (!ready)
        return -1;
#if MSAMP_RTT_BLOCK
    while (load(&UP->RdOff) != up_wr) {
    }
#endif
    return 0;
}

int msamp_transport_read(uint8_t *buf, size_t max)
{
#if MSAMP_RTT_DOWN_SIZE > 0
    if (!ready)
        return -1;
    unsigned wr = load(&DOWN->WrOff);
    atomic_thread_fence(memory_order_acquire); /* the probe's bytes after its offset */
    if (wr >= MSAMP_RTT_DOWN_SIZE || max == 0)
        return 0; /* a scribbled offset: nothing is read until the probe writes a sane one */
    if (max > (size_t)INT32_MAX)
        max = (size_t)INT32_MAX;
    size_t n = 0;
    unsigned rd = down_rd;
    while (rd != wr && n < max) {
        buf[n++] = (uint8_t)down_buf[rd];
        rd = rd + 1u == MSAMP_RTT_DOWN_SIZE ? 0u : rd + 1u;
    }
    if (n > 0) {
        down_rd = rd;
        atomic_thread_fence(memory_order_release); /* the bytes read before the room is given */
        store(&DOWN->RdOff, rd);
    }
    return (int)n;
#else
    (void)buf;
    (void)max;
    return 0;
#endif
}

const char *msamp_transport_name(void)
{
    return "rtt";
}
