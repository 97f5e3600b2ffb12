/* msamp's configuration for the C++ firmware (tests/cxx/fw): every allocation recorded
 * (interval 1, pinned) needs a live table far larger than the live set (9 sites x 60 blocks at
 * most: 8-way buckets never fill) and a ring that holds what one loop turn adds between polls. The
 * giant guard at 1 MiB, above the heap (fw_sys.c: 384 KiB), so that both failures happen: a
 * request the heap cannot meet, one the guard refuses. */
#define MSAMP_CFG_LIVE_CAPACITY 8192
#define MSAMP_CFG_RING_SIZE 16384
#define MSAMP_CFG_GIANT_BYTES (1024u * 1024u)
