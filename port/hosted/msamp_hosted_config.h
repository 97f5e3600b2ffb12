/*
 * Build-time knobs of the hosted Linux library (build/hosted/libmsamp.a): larger tables than the
 * firmware defaults, since a Linux process has memory to spare and many threads. Selected with
 * -DMSAMP_CONFIG_FILE='"msamp_hosted_config.h"' by port/hosted/hosted.mk; any knob can still be
 * overridden with -D on the command line.
 */
#ifndef MSAMP_HOSTED_CONFIG_H
#define MSAMP_HOSTED_CONFIG_H

/* The tables are mapped at start-up, sized by MSAMP_LIVE_CAPACITY and MSAMP_STACK_CAPACITY
 * (hosted_env.c), by default 65536 live slots and 16384 stacks of 16 frames on average: about 2 MiB
 * and 2.3 MiB of address space, touched as they fill. */
#ifndef MSAMP_CFG_RUNTIME_TABLES
#define MSAMP_CFG_RUNTIME_TABLES 1
#endif
#define MSAMP_HOSTED_LIVE_CAPACITY 65536u
#define MSAMP_HOSTED_STACK_CAPACITY 16384u
#define MSAMP_HOSTED_FRAMES_PER_STACK 16u
#ifndef MSAMP_CFG_LIVE_CAPACITY
#define MSAMP_CFG_LIVE_CAPACITY 65536
#endif
#ifndef MSAMP_CFG_STACK_CAPACITY
#define MSAMP_CFG_STACK_CAPACITY 16384
#endif
#ifndef MSAMP_CFG_FRAME_POOL
#define MSAMP_CFG_FRAME_POOL (16384 * 16)
#endif
#ifndef MSAMP_CFG_MAX_DEPTH
#define MSAMP_CFG_MAX_DEPTH 64
#endif
/* The DWARF walk unwinds from its caller: each frame between it and the wrapper's slow function
 * is one more step of every walk, so the slow path walks in the wrapper's own (msamp_internal.h). */
#ifndef MSAMP_WALK_IN_SLOW
#define MSAMP_WALK_IN_SLOW 1
#endif
/* glibc's allocator functions never call each other through wrapped symbols: no wrapper of a C
 * function guards its call (C++ operator new's wrappers still do: libstdc++'s calls malloc). */
#ifndef MSAMP_CFG_WRAP_NESTED
#define MSAMP_CFG_WRAP_NESTED 0
#endif
/* Frames of 256 body bytes, not the firmware's 64: a hosted stream goes to a file, a pipe or TCP,
 * which lose no bytes, so a frame's 7 bytes of seq, CRC, COBS and delimiter are spread over 4x the
 * records (a sampled allocation and its free, everything included, 12.55 -> 11.62 B at 64 KiB:
 * tests/budgets/budgets.tsv). A quarter of the ring at most, as the firmware default (a small ring,
 * msamp_config_small.h's, keeps frames it can hold). */
#ifndef MSAMP_CFG_FRAME_BYTES
#define MSAMP_CFG_FRAME_BYTES (MSAMP_CFG_RING_SIZE / 4 < 256 ? MSAMP_CFG_RING_SIZE / 4 : 256)
#endif
/* A stack's definition again with every 1024th sample, not every 128th: the hosted outputs lose
 * no bytes (a reader that joined late has the definitions with each snapshot pass and every 8th
 * identity), and a definition of 20-100 bytes every 128 samples cost 0.2-0.8 B per sample
 * (issue 41: e2e_app x13 at 64 KiB, 0.27 B of 10.84 per sampled allocation with its free). */
#ifndef MSAMP_CFG_STACK_RESEND_SAMPLES
#define MSAMP_CFG_STACK_RESEND_SAMPLES 1024
#endif
#ifndef MSAMP_CFG_RING_SIZE
#define MSAMP_CFG_RING_SIZE (256 * 1024)
#endif
#ifndef MSAMP_CFG_MAX_CONTEXTS
#define MSAMP_CFG_MAX_CONTEXTS 256
#endif
/* 512 KiB, as Go and jemalloc: about 1% of the allocation rate's cost in an allocation-heavy
 * program (docs/HOSTED.md has the measured numbers). MSAMP_INTERVAL overrides it at run time. */
#ifndef MSAMP_CFG_DEFAULT_INTERVAL
#define MSAMP_CFG_DEFAULT_INTERVAL 524288
#endif
/* PIE programs and shared libraries: MAPPING records say where each image was loaded. */
#ifndef MSAMP_CFG_MAPPINGS
#define MSAMP_CFG_MAPPINGS 1
#endif
/* glibc's mallinfo2 walks every free chunk of every arena: the heap's figures once a second, the
 * walk only when its worst case fits MSAMP_HOSTED_HEAP_WALK_US (docs/HEALTH.md). */
#ifndef MSAMP_CFG_HEAP_POLL_MS
#define MSAMP_CFG_HEAP_POLL_MS 1000
#endif
/* The walk's budget a call, in microseconds (the environment's MSAMP_HEAP_WALK_US overrides it; 0:
 * never walk): the hook walks only when the most free chunks the heap can hold (its private
 * resident bytes / 32) times MSAMP_HOSTED_WALK_CHUNK_NS fits it, and at most 0.1 % of the time. */
#ifndef MSAMP_HOSTED_HEAP_WALK_US
#define MSAMP_HOSTED_HEAP_WALK_US 1000
#endif
/* The floor of a walked free chunk's cost in nanoseconds (raised by any walk measured slower):
 * mallinfo2 on this project's loaded 2-core machine took 146-247 ns a chunk from 10^4 to 10^6 free
 * chunks in 4 arenas (cache-cold, tests/hosted/heapstall_app.c). */
#ifndef MSAMP_HOSTED_WALK_CHUNK_NS
#define MSAMP_HOSTED_WALK_CHUNK_NS 250
#endif
/* glibc has no newlib _malloc_r entry points. */

/* The unsampled path tail-calls glibc and does not look at its result; sampled requests' results
 * are looked at, and every request larger than the bytes left to the next sample is sampled, so
 * the large requests that fail on Linux are reported (msamp_config.h). A fixed bound (1 MiB, say)
 * costs one slow-path trip per MiB of requests: +0.01 instructions per call at 150-byte requests,
 * +0.2 at 64 KiB (make bench-wrappers). */
#ifndef MSAMP_CFG_FAIL_WATCH_BYTES
#define MSAMP_CFG_FAIL_WATCH_BYTES MSAMP_FAIL_WATCH_SAMPLED
#endif

/* Each thread's sampler context is a thread-local variable the wrappers read inline, in the
 * local-exec model (one %fs-relative load on x86-64) where the library is linked into the
 * executable (its objects are -fPIE). The preload library (MSAMP_HOSTED_SHARED, hosted.mk) is a
 * shared object: initial-exec there (one more load, of the variable's offset from the GOT), which
 * a library the loader maps at start-up (LD_PRELOAD) may use. */
#if defined(MSAMP_HOSTED_SHARED)
#define MSAMP_HOSTED_TLS_MODEL "initial-exec"
#else
#define MSAMP_HOSTED_TLS_MODEL "local-exec"
#endif
#if !defined(__cplusplus) && !defined(__ASSEMBLER__)
struct msamp_context;
extern _Thread_local struct msamp_context msamp_hosted_ctx
    __attribute__((tls_model(MSAMP_HOSTED_TLS_MODEL)));
#define MSAMP_PORT_CONTEXT() (&msamp_hosted_ctx)
#endif

#endif
