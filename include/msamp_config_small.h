/* The smallest useful configuration, for parts with a few KiB of RAM: build the library with
 * -DMSAMP_CONFIG_FILE='"msamp_config_small.h"' (and the tiny profile, MSAMP_PROFILE=tiny, for
 * its RAM figure: 952 bytes in all on a Cortex-M3, `make size`).
 * 32 sampled blocks live at once (enough for a leak hunt at an interval where a few dozen
 * allocations are live in the sample), 32 distinct stacks of up to 16 frames, and a 512-byte
 * ring (about 30 sampled events between two msamp_poll() calls). */
#define MSAMP_CFG_LIVE_CAPACITY 32
#define MSAMP_CFG_STACK_CAPACITY 32
#define MSAMP_CFG_FRAME_POOL 256
#define MSAMP_CFG_MAX_DEPTH 16
#define MSAMP_CFG_RING_SIZE 512
#define MSAMP_CFG_MAX_CONTEXTS 2
