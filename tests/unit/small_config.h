/* Small tables for the unit tests that fill them; also exercises -DMSAMP_CONFIG_FILE. */
#define MSAMP_CFG_LIVE_CAPACITY 32
#define MSAMP_CFG_STACK_CAPACITY 16
#define MSAMP_CFG_FRAME_POOL 256
#define MSAMP_CFG_RING_SIZE 1024
