/*
 * Device cost per byte of a transport (tests/rtt/bench_transport.sh counts the instructions QEMU
 * executes between bench_begin and bench_end): BENCH_CHUNKS calls of msamp_transport_write() with
 * BENCH_CHUNK bytes each, as msamp_poll() makes them. Built once per transport (libmsamp_uart.a,
 * libmsamp_rtt.a). With RTT the firmware plays the probe between calls, outside the counted
 * region: it empties the up-buffer (RdOff = WrOff), so every call finds room.
 */
#include <stddef.h>
#include <stdint.h>

#include "board_api.h"
#include "demo.h"
#include "msamp_port.h"
#include "msamp_transport.h"

#define BENCH_CHUNK 256
#define BENCH_CHUNKS 16

int main(void);
__attribute__((noinline)) void bench_begin(int region);
__attribute__((noinline)) void bench_end(int region);

static volatile int sink;
void bench_begin(int region)
{
    sink = region;
}
void bench_end(int region)
{
    sink = region;
}

_Noreturn void demo_fail(const char *why)
{
    board_console("msamp-bench FAIL: ");
    board_console(why);
    board_console("\n");
    board_exit(1);
}

#ifdef BENCH_RTT
/* The probe's side: the descriptor of the stream's up-channel, read as the tools do. */
struct rtt_buffer {
    const char *sName;
    char *pBuffer;
    unsigned SizeOfBuffer;
    unsigned WrOff;
    volatile unsigned RdOff;
    unsigned Flags;
};
struct rtt_cb {
    char acID[16];
    int MaxNumUpBuffers;
    int MaxNumDownBuffers;
    struct rtt_buffer aUp[2];
};
extern struct rtt_cb _SEGGER_RTT;
static void probe_reads_all(void)
{
    volatile struct rtt_buffer *up = &_SEGGER_RTT.aUp[_SEGGER_RTT.MaxNumUpBuffers - 1];
    up->RdOff = up->WrOff;
}
#else
static void probe_reads_all(void)
{
}
#endif

static uint8_t chunk[BENCH_CHUNK];

int main(void)
{
    board_init();
    if (msamp_transport_init() != 0)
        demo_fail("transport init");
    for (unsigned i = 0; i < BENCH_CHUNK; i++)
        chunk[i] = (uint8_t)(i * 7u + 1u);
    for (int i = 0; i < BENCH_CHUNKS; i++) {
        probe_reads_all();
        bench_begin(0);
        int n = msamp_transport_write(chunk, BENCH_CHUNK);
        bench_end(0);
        if (n != BENCH_CHUNK)
            demo_fail("the transport did not take the chunk");
    }
    board_console("msamp-bench done\n");
    board_exit(0);
}
