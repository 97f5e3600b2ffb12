/* The smallest useful configuration, for parts with a few KiB of RAM: build the library with
 * -DMSAMP_CONFIG_FILE='"msamp_config_small.h"' (and the tiny profile, MSAMP_PROFILE=tiny, for
 * its RAM figure: 1 KiB on a Cortex-M3 plus the 80 bytes of the RAM-dump block's header, `make
 * size`; -DMSAMP_CFG_HEAPDUMP=0 leaves the block out).
 * 32 sampled blocks live at once (the adaptive interval keeps the estimates unbiased when more
 * are live: docs/ADAPTIVE.md), 16 distinct stacks of up to 16 frames at a time (the compact
 * tables evict one in turn for a new one, whose definition is sent again), and a 512-byte ring
 * (about 30 sampled events between two msamp_poll() calls). Each value can still be overridden
 * with -D on the command line. */
#ifndef MSAMP_CFG_LIVE_CAPACITY
#define MSAMP_CFG_LIVE_CAPACITY 32
#endif
#ifndef MSAMP_CFG_STACK_CAPACITY
#define MSAMP_CFG_STACK_CAPACITY 16
#endif
#ifndef MSAMP_CFG_FRAME_POOL
#define MSAMP_CFG_FRAME_POOL 256
#endif
#ifndef MSAMP_CFG_MAX_DEPTH
#define MSAMP_CFG_MAX_DEPTH 16
#endif
#ifndef MSAMP_CFG_RING_SIZE
#define MSAMP_CFG_RING_SIZE 512
#endif
#ifndef MSAMP_CFG_MAX_CONTEXTS
#define MSAMP_CFG_MAX_CONTEXTS 2
#endif
/* No link-aware interval (docs/ADAPTIVE.md "The link"): its 12 bytes of RAM would take the tiny
 * profile past 1 KiB. A smallest build on a link slower than its samples sets it to 1. */
#ifndef MSAMP_CFG_LINK_ADAPT
#define MSAMP_CFG_LINK_ADAPT 0
#endif
/* No unwind-entry cache for the exidx walker (gcc Thumb): its 272 bytes of RAM would take the tiny
 * profile past 1 KiB; each walk decodes every entry again (include/msamp_config.h). */
#ifndef MSAMP_CFG_UNWIND_CACHE
#define MSAMP_CFG_UNWIND_CACHE 0
#endif
/* No empty FREE records (wire v2): the writer's latest slot would take the tiny profile's RAM past
 * 1 KiB; each such free is a whole 3-byte FREE (include/msamp_config.h). */
#ifndef MSAMP_CFG_EMPTY_FREE
#define MSAMP_CFG_EMPTY_FREE 0
#endif
