/* msamp's configuration for the demo firmware (-DMSAMP_CONFIG_FILE='"demo_msamp_config.h"'):
 * a live table sized for the demo's heap at its sampling interval (about 200 live samples at
 * 256 bytes: 4-way buckets stay well below full at 1024 slots), and a ring for a UART drained once
 * per main-loop iteration. */
#ifndef DEMO_SMALL_RAM
#define DEMO_SMALL_RAM 0
#endif
#if DEMO_SMALL_RAM
/* A part with 16 KiB of RAM (qemu-microbit, demo.c's DEMO_SMALL_RAM): a 9 KiB heap sampled at
 * 128 bytes keeps about 50 samples live, and a UART drained each iteration needs a small ring. */
#ifndef MSAMP_CFG_LIVE_CAPACITY
#define MSAMP_CFG_LIVE_CAPACITY 128
#endif
#define MSAMP_CFG_RING_SIZE 1024
#else
#ifndef MSAMP_CFG_LIVE_CAPACITY /* demo-scale's library: 128 (boards/boards.mk) */
#define MSAMP_CFG_LIVE_CAPACITY 1024
#endif
#define MSAMP_CFG_RING_SIZE 4096
#endif
/* The giant-allocation guard: requests of 1 MiB and more are refused before the allocator sees
 * them (the demo's heap is 512 KiB). The demo's oversize_request site asks for one such block,
 * and for one the heap cannot hold, now and then: msamp reports both with their stacks. */
#ifndef MSAMP_CFG_GIANT_BYTES
#define MSAMP_CFG_GIANT_BYTES (1024u * 1024u)
#endif
/* Commands from the host (docs/CONTROL.md) on every board, the tiny profile's too. */
#ifndef MSAMP_CFG_CONTROL
#define MSAMP_CFG_CONTROL 1
#endif
