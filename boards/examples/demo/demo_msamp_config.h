/* msamp's configuration for the demo firmware (-DMSAMP_CONFIG_FILE='"demo_msamp_config.h"'):
 * a live table sized for the demo's heap at its sampling interval (about 200 live samples at
 * 256 bytes: 4-way buckets stay well below full at 1024 slots), and a ring for a UART drained once
 * per main-loop iteration. */
#ifndef MSAMP_CFG_LIVE_CAPACITY /* demo-scale's library: 128 (boards/boards.mk) */
#define MSAMP_CFG_LIVE_CAPACITY 1024
#endif
#define MSAMP_CFG_RING_SIZE 4096
