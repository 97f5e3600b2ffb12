/* The smallest useful configuration, for parts with a few KiB of RAM: build the library with
 * -DMSAMP_CONFIG_FILE='"msamp_config_small.h"' (and the tiny profile, MSAMP_PROFILE=tiny, for
 * its RAM figure: 1 KiB on a Cortex-M3 plus the 80 bytes of the RAM-dump block's header, `make
 * size`; -DMSAMP_CFG_HEAPDUMP=0 leaves the block out).
 * 32 sampled blocks live at once (the adaptive interval keeps the estimates unbiased when more
 * are live: docs/ADAPTIVE.md), 16 distinct stacks of up to 16 frames at a time (the compact
 * tables evict one in turn for a new one, whose definition is sent again), and a 512-byte ring
 * (about 30 sampled events between two msamp_poll() calls). */
#define MSAMP_CFG_LIVE_CAPACITY 32
#define MSAMP_CFG_STACK_CAPACITY 16
#define MSAMP_CFG_FRAME_POOL 256
#define MSAMP_CFG_MAX_DEPTH 16
#define MSAMP_CFG_RING_SIZE 512
#define MSAMP_CFG_MAX_CONTEXTS 2
