/*
 * Compile-time knobs of the msamp library. Each has a default here; a build overrides any of them
 * with -DNAME=value or, for many at once, -DMSAMP_CONFIG_FILE='"my_msamp_config.h"', a header
 * read first. 0/1 knobs are tested with #if, so build with -Werror=undef. Every value documented
 * here compiles alone and in pairs with every other knob's (tests/knobs, make test-cross-knobs).
 * Architecture facts live in the port (msamp_port.h), not here.
 */
#ifndef MSAMP_CONFIG_H
#define MSAMP_CONFIG_H

#ifdef MSAMP_CONFIG_FILE
#include MSAMP_CONFIG_FILE
#endif

/* 1: the tiny profile, a preset for microcontrollers with a few KiB of RAM (MSAMP_PROFILE=tiny in
 * port/msamp.mk): it changes only the defaults of the knobs below that name it (compact tables
 * without snapshot passes, the 32-bit sampler, smaller code before speed).
 * The same sources, API and wire format as every other build. See docs/TINY.md. */
#ifndef MSAMP_CFG_TINY
#define MSAMP_CFG_TINY 0
#endif

/* 1: the RAM-dump block `msamp_heapdump` (include/msamp_heapdump.h) is in RAM, so a host can rebuild
 * the in-use profile from a RAM dump or an ELF core (docs/POSTMORTEM.md), in every profile. With
 * the full tables the block is the tables themselves; with the compact ones it is a header of
 * 84 bytes (32-bit) or 112 (64-bit) pointing at their arrays (sizes and intervals as 8-bit codes,
 * no stacks). 0: no block (and the compact tables). */
#ifndef MSAMP_CFG_HEAPDUMP
#define MSAMP_CFG_HEAPDUMP 1
#endif

/* 1: compact tables for the smallest parts (src/msamp_table_compact.c): a live slot is one address
 * and two 8-bit codes (size, interval), a stack one 32-bit hash of its frames (two stacks with the
 * same hash share an id: about 1 in 2^32 per pair). 0: the full tables (src/msamp_table_dump.c): a
 * live slot holds address, size, stack id and birth, a stack its frames, so snapshot passes can
 * re-send what is live and a RAM dump gives the in-use profile by site. */
#ifndef MSAMP_CFG_COMPACT_TABLES
#define MSAMP_CFG_COMPACT_TABLES (MSAMP_CFG_TINY || !MSAMP_CFG_HEAPDUMP)
#endif

/* 1: snapshot passes (msamp_snapshot()) and the periodic re-send of identity and live samples that
 * lets a reader join mid-run (MSAMP_CFG_RESEND_MS). Needs the full tables. 0: the reader must
 * follow the stream from boot, and msamp_snapshot() answers MSAMP_ERR_UNSUPPORTED. */
#ifndef MSAMP_CFG_SNAPSHOTS
#define MSAMP_CFG_SNAPSHOTS (!MSAMP_CFG_COMPACT_TABLES)
#endif

/* 1: the down-channel (docs/CONTROL.md): msamp_poll() reads command frames from the transport
 * (msamp_transport_read()), carries them out (enable, disable, interval, bounds, snapshot, identity,
 * mark) and acknowledges each with a CMD_ACK record. 0 leaves the parser out (its code and its
 * ~90 bytes of RAM). Default: on, but in the tiny profile (whose RAM budget it would strain). */
#ifndef MSAMP_CFG_CONTROL
#define MSAMP_CFG_CONTROL (!MSAMP_CFG_TINY)
#endif
/* Bytes msamp_poll() reads from the down-channel at most per call (bounded work per poll). */
#ifndef MSAMP_CFG_CONTROL_READ
#define MSAMP_CFG_CONTROL_READ 32
#endif

/* 1: MAPPING records (the port's loaded images, msamp_port_mappings()) follow each SESSION: what
 * hosted PIE programs need (the hosted port's configuration turns it on). Bare metal has none. */
#ifndef MSAMP_CFG_MAPPINGS
#define MSAMP_CFG_MAPPINGS 0
#endif

/* 1: the sampler's generator and arithmetic are 32-bit (xorshift32*, u with 32 bits) instead of
 * 64-bit: smaller and faster on 32-bit cores, the same distribution (tests/unit checks both). */
#ifndef MSAMP_CFG_SAMPLER32
#define MSAMP_CFG_SAMPLER32 MSAMP_CFG_TINY
#endif

/* 1: smaller code before speed where the core has the choice: the per-byte writer out of line,
 * the CRC without a table. */
#ifndef MSAMP_CFG_SMALL_CODE
#define MSAMP_CFG_SMALL_CODE MSAMP_CFG_TINY
#endif

/* How the frame CRC-32 is computed, byte by byte as frames are written: 2 from a 1 KiB table (one
 * lookup per byte), 1 from a 64-byte table (two lookups), 0 without a table (the 8 bit steps at
 * once: shifts and three multiplies).
 * Default: bit by bit for small code, else the 1 KiB table on 64-bit targets (where a sampled
 * allocation's bytes cost most) and the 64-byte one on 32-bit ones. */
#ifndef MSAMP_CFG_CRC_TABLE
#define MSAMP_CFG_CRC_TABLE (MSAMP_CFG_SMALL_CODE ? 0 : __SIZEOF_POINTER__ > 4 ? 2 : 1)
#endif

/* Records are batched into frames: a frame is closed when msamp_poll() runs or once its body
 * holds this many bytes (the event that crosses it still goes in). Smaller frames lose less on a
 * noisy line (a frame with one bad byte is dropped whole: at a byte error rate of 10^-3 a 70-byte
 * frame is lost 7% of the time, a 600-byte one 45%), larger ones cost fewer bytes of framing per
 * event (about 7 per frame: seq, CRC, COBS code and delimiter). Default: 64, or a quarter of the
 * ring if that is less (docs/RELIABILITY.md has the measured trade). */
#ifndef MSAMP_CFG_FRAME_BYTES
#define MSAMP_CFG_FRAME_BYTES (MSAMP_CFG_RING_SIZE / 4 < 64 ? MSAMP_CFG_RING_SIZE / 4 : 64)
#endif

/* The identity (SESSION, the port's MAPPINGs, DROPS and an absolute TIME) is re-sent each time the
 * stream passes a multiple of this many bytes, as well as with each snapshot pass: a reader that
 * joined late or lost the SESSION on a noisy line has it again within this much of the stream
 * however fast it runs, and in builds without snapshot passes it is the only re-send. A power of
 * two; 0: never by volume. Default 8 KiB (128 full frames; an identity of about 70 bytes costs
 * under 1% of the stream), 16 KiB with MAPPINGs (a hosted identity is several hundred bytes). */
#ifndef MSAMP_CFG_RESEND_BYTES
#define MSAMP_CFG_RESEND_BYTES (MSAMP_CFG_MAPPINGS ? 16384 : 8192)
#endif

/* 1: the table capacities are chosen at init by the port (msamp_port_table_setup) and the tables
 * live in memory it provides then (the hosted port: environment variables, mmap). Needs
 * the full tables (MSAMP_CFG_COMPACT_TABLES 0). 0: the capacities below, static arrays. */
#ifndef MSAMP_CFG_RUNTIME_TABLES
#define MSAMP_CFG_RUNTIME_TABLES 0
#endif

/* 1: the full tables and a small block beside them (the session's identity, its counters, the
 * last heap figures, a reset's cause) are kept across a reset in section .noinit.msamp, which
 * port/msamp.ld places NOLOAD in RAM (a board's `.noinit` takes it too): the next boot's
 * msamp_init() checks the block (magic, CRC-32, the build-id) and sends the previous session's
 * in-use set and its end (the RESET record) before its own session; drain reports that session
 * "ended by a reset" (docs/POSTMORTEM.md#a-profile-that-survives-a-reset, msamp_note_reset).
 * Costs no RAM but the block's 152 bytes (200 on 64-bit; 104 without heap health); boot time: the previous live set on the link (about
 * 10 bytes per live entry, 10-60 bytes per stack). Only with static full tables
 * (MSAMP_CFG_COMPACT_TABLES 0, MSAMP_CFG_RUNTIME_TABLES 0): otherwise only the full tables'
 * RAM-dump block header is kept (the previous session id, mixed into the next). */
#ifndef MSAMP_CFG_RESET_PROFILE
#define MSAMP_CFG_RESET_PROFILE 1
#endif

/* Sampled allocations tracked at once (the live table). Power of two, >= MSAMP_CFG_LIVE_WAYS.
 * RAM: one entry per slot (pointer + 16 bytes; compact tables: pointer + 3 bytes). A sample takes
 * the first free slot of its reach (its home bucket and the 3 after it, the lowest way of the four
 * first: the smallest slot numbers on the wire, docs/WIRE_FORMAT.md#slots). When the table passes
 * three quarters full, the adaptive interval doubles the sampling interval and thins the table
 * (docs/ADAPTIVE.md). A sample whose reach is full is not tracked (stats.live_full counts it) when
 * the table is under three quarters full (rare), with the interval pinned or at its maximum, or
 * when the reach is still full after the raise it caused (at most one sample per raise). */
#ifndef MSAMP_CFG_LIVE_CAPACITY
#define MSAMP_CFG_LIVE_CAPACITY 256
#endif

/* Entries per live-table bucket: a free of an unsampled pointer reads one mask word, and the
 * reach (4 buckets) only when its fingerprint bit is set. */
#ifndef MSAMP_CFG_LIVE_WAYS
#define MSAMP_CFG_LIVE_WAYS 8
#endif

/* Distinct call stacks kept (ids 1..CAPACITY-1; id 0 means "unknown"). A stack no live sample uses
 * is evicted when a new one needs its room (its id is defined again on the wire); when every stack
 * is in use, a new stack is reported as MSAMP_WIRE_STACK_FULL ("[stack table full]") and
 * stats.stack_full counts it. */
#ifndef MSAMP_CFG_STACK_CAPACITY
#define MSAMP_CFG_STACK_CAPACITY 128
#endif

/* Frames stored for all interned stacks together (one pointer each; full tables only). */
#ifndef MSAMP_CFG_FRAME_POOL
#define MSAMP_CFG_FRAME_POOL 2048
#endif

/* Deepest stack recorded; deeper stacks are cut (stats.truncated counts them). */
#ifndef MSAMP_CFG_MAX_DEPTH
#define MSAMP_CFG_MAX_DEPTH 32
#endif

/* Bytes in the record ring between the allocation path and the transport. Power of two. */
#ifndef MSAMP_CFG_RING_SIZE
#define MSAMP_CFG_RING_SIZE 2048
#endif

/* Default mean sampling interval in bytes when msamp_config.interval is 0. 1 records every
 * allocation. */
#ifndef MSAMP_CFG_DEFAULT_INTERVAL
#define MSAMP_CFG_DEFAULT_INTERVAL 4096
#endif

/* Timestamps on the wire are the port's ticks scaled down to at most this rate (Hz). */
#ifndef MSAMP_CFG_TIME_HZ
#define MSAMP_CFG_TIME_HZ 10000
#endif

/* Largest interval the adaptive interval raises to (msamp_config.interval_max = 0). */
#ifndef MSAMP_CFG_INTERVAL_MAX
#define MSAMP_CFG_INTERVAL_MAX (1u << 30)
#endif

/* 1: the adaptive interval (docs/ADAPTIVE.md): when the live table fills, the sampling interval
 * doubles and the table is thinned so the estimates stay unbiased; it halves again when the
 * tables empty. 0: the interval is pinned (msamp_config.interval, msamp_set_interval()), as with
 * msamp_config.pin_interval: a sample that finds no room in the live table is counted as allocated
 * but not in use (stats.live_full and the DROPS record), and msamp_set_interval_bounds() with
 * min != max answers MSAMP_ERR_UNSUPPORTED. Saves the thinning code (about 1.5 KB on a Cortex-M3). */
#ifndef MSAMP_CFG_ADAPTIVE
#define MSAMP_CFG_ADAPTIVE 1
#endif

/* 1: a realloc is followed as one block: a REALLOC record moves the sample to the new address and
 * the chain keeps its first site and birth (in-use, ages and lifetimes), the old slot detached
 * while the real realloc runs so that no other context's block is taken for it. 0: a realloc of a
 * sampled block is a FREE of it after the call and the new block a new allocation, sampled on its
 * own (a block another context is handed at the old address meanwhile may lose its sample). Saves
 * the detach and move code (168 bytes with clang, 210 with gcc, on a Cortex-M3: make size). */
#ifndef MSAMP_CFG_REALLOC_CHAINS
#define MSAMP_CFG_REALLOC_CHAINS 1
#endif

/* The live table's fingerprint masks, a 32-bit word per bucket: the check every free makes (was
 * this block sampled?) reads one word, and the bucket's slots only when the block's bit is set. 0:
 * no masks, and every free of a block not NULL scans the block's reach (4 buckets' slots: 32 at 8
 * ways) without the lock, about 300 instructions on each free instead of a few on a Cortex-M3,
 * for 240 bytes less code there (clang: the masks' upkeep, above all their rebuild on each sampled
 * free) and a word of RAM per bucket. */
#ifndef MSAMP_CFG_FREE_FILTER
#define MSAMP_CFG_FREE_FILTER 1
#endif

/* The device's id (msamp_config.device_id, or the port's msamp_port_device_id()): sent in each
 * SESSION record, so drain labels the device's samples and a fleet profile splits by device, and
 * mixed into the session id's entropy. 0: neither (the port is not asked); the port's entropy
 * (the clock, a board's boot counter) still seeds the session id. 124 bytes less code with clang
 * on a Cortex-M3. */
#ifndef MSAMP_CFG_DEVICE_ID
#define MSAMP_CFG_DEVICE_ID 1
#endif

/* Live slots a thinning pass settles per sampled allocation while it is under way (msamp_poll()
 * settles 8 times as many): the cost a raise of the interval spreads over the allocations after
 * it. */
#ifndef MSAMP_CFG_THIN_BATCH
#define MSAMP_CFG_THIN_BATCH 8
#endif

/* The link (docs/ADAPTIVE.md "The link"). 1: when a drain of msamp_poll() leaves the ring over a
 * quarter full because the transport takes its bytes slower than samples come (a slow UART,
 * MSAMP_CFG_LINK_BYTES_PER_S), the sampling interval doubles and the live table is thinned, as when
 * the table fills (INTERVAL reason RING_HIGH, replayed by the host), and again each time that
 * backlog grows by 1/32 of the ring while it stays over a quarter, so the ring does not overflow
 * and drop records; a lowering also waits until no drain has left the ring over an eighth full for
 * a second, and a snapshot pass writes only while the ring is under 3/16 full. Ignored without
 * MSAMP_CFG_ADAPTIVE or with a pinned interval. 0: a full ring drops samples and counts them
 * (stats.ring_records). */
#ifndef MSAMP_CFG_LINK_ADAPT
#define MSAMP_CFG_LINK_ADAPT MSAMP_CFG_ADAPTIVE
#endif

/* The stream's budget on its link, in bytes per second of msamp_port_time() (0: none, the
 * transport takes what it can): msamp_poll() hands the transport no more than this, with a burst
 * of an eighth of a second's worth (at least 16 bytes), for a link shared with logs. What the
 * budget holds back waits in the ring, where MSAMP_CFG_LINK_ADAPT sees it. 12 bytes of RAM. */
#ifndef MSAMP_CFG_LINK_BYTES_PER_S
#define MSAMP_CFG_LINK_BYTES_PER_S 0
#endif

/* Every this many samples, the sample's stack definition is sent again with it even though it
 * went out before: on a noisy line a lost definition of a stack used often comes back within this
 * many samples divided by its share of them (a definition of 20-100 bytes every 128 samples costs
 * 0.2-0.8 bytes per sample). A power of two; 0: only after passes and identities. */
#ifndef MSAMP_CFG_STACK_RESEND_SAMPLES
#define MSAMP_CFG_STACK_RESEND_SAMPLES 128
#endif

/* A snapshot pass also starts once this many bytes went out since the last one ended, and at
 * least 3 times as many as it took (so passes stay under a quarter of the stream): on a fast
 * stream, a reader that joined late or lost records has the live set again within a bounded
 * share of the bytes, not only of the time. 0: by time alone. */
#ifndef MSAMP_CFG_SNAPSHOT_BYTES
#define MSAMP_CFG_SNAPSHOT_BYTES 262144
#endif

/* Default period of the identity/live-stack re-send in milliseconds (msamp_config.resend_ms = 0).
 * Bounds how long a late-joining reader waits for a complete in-use profile. */
#ifndef MSAMP_CFG_RESEND_MS
#define MSAMP_CFG_RESEND_MS 1000
#endif

/* Live entries examined per msamp_poll() call during a snapshot pass (bounds poll's run time). */
#ifndef MSAMP_CFG_SNAPSHOT_BATCH
#define MSAMP_CFG_SNAPSHOT_BATCH 16
#endif

/* 1: ALLOC, LIVE and REALLOC records carry the block's address (about 3 more bytes each). */
#ifndef MSAMP_CFG_SEND_ADDRESSES
#define MSAMP_CFG_SEND_ADDRESSES 0
#endif

/* Per-context sampler states (threads of execution that may allocate concurrently: on bare metal,
 * thread mode plus each interrupt level that allocates; hosted, threads beyond this still sample
 * but miss run-time interval changes until their next sample). */
#ifndef MSAMP_CFG_MAX_CONTEXTS
#define MSAMP_CFG_MAX_CONTEXTS 4
#endif

/* Allocations of at least this many bytes are refused (the wrapper returns NULL with ENOMEM where
 * errno exists). 0 disables the guard. */
#ifndef MSAMP_CFG_GIANT_BYTES
#define MSAMP_CFG_GIANT_BYTES 0
#endif

/* Report allocation failures (the allocator returned NULL for a size > 0) and the giant guard's
 * refusals: every one, with its stack and size, in a FAIL record (docs/WIRE_FORMAT.md), counted in
 * msamp_stats.failed and .refused. 0: neither is reported (the guard still refuses). */
#ifndef MSAMP_CFG_FAILURES
#define MSAMP_CFG_FAILURES 1
#endif

/* 1: the allocator's own state (docs/HEALTH.md): msamp asks the port (msamp_port_heap_stats:
 * free, low watermark, largest free block, free blocks) at each msamp_poll() and sends a HEAP
 * record with each identity, after each FAIL record and when the low watermark falls by
 * MSAMP_CFG_HEAP_STEP; then it also starts a snapshot pass, so the in-use profile at the heap's
 * worst moment is the device's own. 0 leaves it out (its code, its RAM, the record). Default: on,
 * but in the tiny profile (whose RAM budget it would strain). */
#ifndef MSAMP_CFG_HEAP_STATS
#define MSAMP_CFG_HEAP_STATS (!MSAMP_CFG_TINY)
#endif
/* The low watermark's step in bytes: a HEAP record (and a snapshot pass) each time the fewest free
 * bytes seen fall this much below the last reported. 0: 1/32 of the heap's total (of the first
 * free figure when the allocator does not say its total). */
#ifndef MSAMP_CFG_HEAP_STEP
#define MSAMP_CFG_HEAP_STEP 0
#endif
/* msamp_poll() asks the port for the heap's state at most once per this many milliseconds (0: at
 * every poll, the firmware default: heap_4's and the demo heap's walks are short). Init, failures
 * and msamp_end() always ask. Hosted: 1000 (glibc's mallinfo2 walks every free chunk: 28000
 * instructions with 4000 of them; the hook walks only within its budget, MSAMP_HOSTED_HEAP_WALK_US
 * in port/hosted/msamp_hosted_config.h, docs/HEALTH.md). */
#ifndef MSAMP_CFG_HEAP_POLL_MS
#define MSAMP_CFG_HEAP_POLL_MS 0
#endif

/* Per-task budgets (RTOS devices, docs/HEALTH.md#task-budgets): the number of tasks that may have
 * a budget (msamp_task_budget). The device keeps each such task's estimated in-use bytes (the
 * weights of its sampled live blocks) and its peak, and when the estimate passes the budget sends a
 * TASK_BUDGET record and calls msamp_port_task_over_budget (once per crossing; re-armed when the
 * estimate falls to 7/8 of the budget). RAM: 24 bytes per entry on a 32-bit part, plus one byte per
 * live-table slot (which entry owns it) and two flags. Needs fixed tables (MSAMP_CFG_RUNTIME_TABLES 0), at most
 * 255 entries. 0 (the default): compiled out (msamp.h does not declare msamp_task_budget). */
#ifndef MSAMP_CFG_TASK_BUDGETS
#define MSAMP_CFG_TASK_BUDGETS 0
#endif

/* Which results the wrappers look at, for the FAIL records above. 0: every one (the wrappers call
 * the allocator and test what it returns: the firmware default, where an exhausted heap is the
 * question). N > 0: the unsampled path of a request of at most N bytes tail-calls the allocator
 * and never sees its result, so it costs a few instructions fewer and no frame; sampled requests
 * and those above N still have their failures reported. MSAMP_FAIL_WATCH_SAMPLED (the hosted
 * default): no fixed bound, the results of sampled requests only. Since a request larger than
 * the bytes left to the next sample is always sampled, that still covers the large requests
 * that fail on Linux (at the default 512 KiB interval, a 4 MiB request with probability above
 * 0.9996), while a bound costs one slow-path trip per N bytes of requests. Unused when
 * MSAMP_CFG_FAILURES is 0 (then no result is looked at). */
#define MSAMP_FAIL_WATCH_SAMPLED 0xFFFFFFFF
#ifndef MSAMP_CFG_FAIL_WATCH_BYTES
#define MSAMP_CFG_FAIL_WATCH_BYTES 0
#endif

/* Derived: the fast path's bounds. MSAMP_FAST_TAIL: the unsampled path tail-calls the allocator
 * (no result test). MSAMP_FAST_MAX: the largest request the fast path passes on its own when
 * MSAMP_FAST_CLAMPED (a countdown never exceeds it, so larger requests take the slow path, which
 * applies the giant guard and looks at their results). */
#define MSAMP_FAST_TAIL (!MSAMP_CFG_FAILURES || MSAMP_CFG_FAIL_WATCH_BYTES > 0)
#if MSAMP_CFG_FAILURES && MSAMP_CFG_FAIL_WATCH_BYTES > 0 &&                                        \
    MSAMP_CFG_FAIL_WATCH_BYTES < MSAMP_FAIL_WATCH_SAMPLED
#define MSAMP_FAST_WATCH_MAX_ (MSAMP_CFG_FAIL_WATCH_BYTES)
#else
#define MSAMP_FAST_WATCH_MAX_ 0
#endif
#if MSAMP_CFG_GIANT_BYTES > 0 &&                                                                   \
    (MSAMP_FAST_WATCH_MAX_ == 0 || MSAMP_CFG_GIANT_BYTES - 1 < MSAMP_FAST_WATCH_MAX_)
#define MSAMP_FAST_CLAMPED 1
#define MSAMP_FAST_MAX ((uintptr_t)(MSAMP_CFG_GIANT_BYTES)-1u)
#elif MSAMP_FAST_WATCH_MAX_ > 0
#define MSAMP_FAST_CLAMPED 1
#define MSAMP_FAST_MAX ((uintptr_t)(MSAMP_FAST_WATCH_MAX_))
#else
#define MSAMP_FAST_CLAMPED 0
#endif

/* Allocator functions that call other allocator functions inside. Newlib's malloc, calloc and
 * realloc call _malloc_r, _calloc_r and _realloc_r, which call _malloc_r and _free_r; libstdc++'s
 * operator new calls malloc. When a firmware wraps both an outer function and one it calls, the
 * inner call must pass through unseen or the allocation counts twice. 0: no wrapper guards its
 * call (a C library whose functions never call each other through wrapped symbols, as glibc);
 * 1: the wrappers of calloc, realloc, the aligned allocators and newlib's _calloc_r, _realloc_r
 * and _memalign_r guard theirs (25-30 instructions per guarded call on a Cortex-M3 with gcc -Os,
 * make bench-newlib-nested); 2: malloc's wrapper too (needed when malloc and
 * _malloc_r are both wrapped). port/msamp.mk and port/msamp.cmake set 2 when the wrapped list
 * holds both. C++ operator new's wrappers always guard theirs. */
#ifndef MSAMP_CFG_WRAP_NESTED
#define MSAMP_CFG_WRAP_NESTED 1
#endif

/* ARM exidx walker (gcc, Thumb state: every Cortex-M gcc build; port/arm/README.md): return
 * addresses whose decoded unwind rule is kept, in a direct-mapped table of this many entries (0: no
 * cache; else a power of two, 4 to 1024). RAM: 8 bytes an entry and 16 bytes besides (32 entries:
 * 272 bytes). A hit skips the index's binary search and the opcode interpreter: a walk of the bench
 * chain costs 3x fewer instructions on a Cortex-M3 (docs/PERFORMANCE.md, issue 41). Entries are
 * written under msamp_port_lock(); a walk reads one lock-free and checks a write counter around
 * the read, so an interrupt that rewrites the entry meanwhile makes it a miss. Unused by the other
 * walkers (frame chain, MIPS64). */
#ifndef MSAMP_CFG_UNWIND_CACHE
#define MSAMP_CFG_UNWIND_CACHE 32
#endif

/* 1: the free of the block the open frame's latest ALLOC or REALLOC record sampled, at dt 0, is an
 * empty FREE record (wire v2: 1 byte, not 3; most short-lived sampled blocks die before the next
 * sample, docs/WIRE_FORMAT.md). 0: such a free is a whole FREE, as any other; drain reads both.
 * Costs 4 bytes of RAM (8 with the writer's padding on a Cortex-M) and about 30 bytes of code;
 * off in msamp_config_small.h, whose tiny-profile RAM is held to 1 KiB. */
#ifndef MSAMP_CFG_EMPTY_FREE
#define MSAMP_CFG_EMPTY_FREE 1
#endif

/* Assertion hook for internal invariants; compiled out by default. */
#ifndef MSAMP_CFG_ASSERT
#define MSAMP_CFG_ASSERT(x) ((void)0)
#endif

#endif
