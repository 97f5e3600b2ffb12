/* What the hosted Linux port's files share. Not part of the public API. The files, one idea each:
 *   hosted_start.c      the port's life in the process: constructor, exit flush, fork
 *   hosted_env.c        the settings from the environment, and the port's messages on stderr
 *   hosted_transport.c  the output (file, FIFO or TCP: its own checked descriptor, never blocking)
 *                       and the drain of the core's ring into it (inline while the program is
 *                       single-threaded, a writer thread once it has a second thread); the
 *                       bounded exit flush
 *   hosted_context.c    each thread's sampler context, detached at thread exit
 *   hosted_lock.c       the core's lock
 *   hosted_clock.c      the clock and the seed's entropy
 *   hosted_walk.c       the stack walk, within the thread's stack (DWARF CFI or frame chains)
 *   hosted_maps.c       the loaded images and their build-ids */
#ifndef MSAMP_HOSTED_H
#define MSAMP_HOSTED_H

#include <stdint.h>

#include "msamp.h"
#include "msamp_port.h"

/* Everything the port keeps per thread, in one initial-exec TLS block (no allocation, no lazy
 * TLS setup on the allocation path). */
struct msamp_hosted_thread {
    uintptr_t stack_lo, stack_hi; /* the thread's stack, for the walker's bounds */
    uint8_t exit_armed;           /* the pthread key destructor will detach ctx */
    uint8_t bounds;               /* enum msamp_hosted_bounds */
};

enum msamp_hosted_bounds { MSAMP_HOSTED_BOUNDS_UNKNOWN, MSAMP_HOSTED_BOUNDS_OK, MSAMP_HOSTED_BOUNDS_NONE };

extern _Thread_local struct msamp_hosted_thread msamp_hosted_self
    __attribute__((tls_model("initial-exec")));

/* Finds the calling thread's stack (pthread_getattr_np, which allocates: call it where a nested
 * allocation is harmless, i.e. inside the core's reentrancy guard or before msamp_init). */
void msamp_hosted_stack_bounds(struct msamp_hosted_thread *t);

/* 1 (default on x86-64 and AArch64): the walk can follow the code's DWARF call frame information
 * (libgcc's _Unwind_Backtrace); 0 (-DMSAMP_HOSTED_DWARF=0, make MSAMP_HOSTED_UNWIND=fp; the
 * default elsewhere: Debian's gcc 12 gives riscv64 C code no .eh_frame unless asked, mips64
 * walks with its prologue scanner): frame chains only, and no reference to libgcc's unwinder. */
#ifndef MSAMP_HOSTED_DWARF
#if defined(__x86_64__) || defined(__aarch64__)
#define MSAMP_HOSTED_DWARF 1
#else
#define MSAMP_HOSTED_DWARF 0
#endif
#endif
/* MSAMP_UNWIND: how the walk finds callers. */
enum msamp_hosted_unwind { MSAMP_HOSTED_UNWIND_DWARF, MSAMP_HOSTED_UNWIND_FP };
extern int msamp_hosted_unwind; /* set by msamp_hosted_settings(), before msamp_init() */
/* A first DWARF walk where nothing is locked, before msamp_init() (hosted_walk.c says why). */
void msamp_hosted_walk_warm(void);

/* The executable's code, [lo, hi): set by the first msamp_hosted_maps_refresh() and never moved
 * (0 when unknown). The MIPS64 prologue scanner reads instructions only there. */
extern uintptr_t msamp_hosted_text_lo, msamp_hosted_text_hi;

/* Re-reads the loaded images (dl_iterate_phdr) into the table msamp_port_mappings() returns.
 * Called before msamp_init() and by the single poller between polls, never under the core's lock
 * (dl_iterate_phdr takes the loader's lock, which a thread in dlopen holds while it allocates). */
void msamp_hosted_maps_refresh(void);

/* msamp_init() succeeded, the exit flush has not started, and this is no fork child
 * (hosted_start.c). Read by the transport: the reference also links hosted_start.o, whose
 * constructor starts the port, from a static libmsamp.a. */
extern _Atomic int msamp_hosted_running;

/* MSAMP_FLUSH: who drains the core's ring into the output. */
enum msamp_hosted_flush {
    MSAMP_HOSTED_FLUSH_LAZY,   /* default: the allocating thread while the program is
                                  single-threaded, a writer thread once it has a second thread */
    MSAMP_HOSTED_FLUSH_THREAD, /* thread: a writer thread from start-up */
    MSAMP_HOSTED_FLUSH_INLINE  /* inline: the allocating threads, never a thread */
};

/* The settings (hosted_env.c has the variables). */
struct msamp_hosted_settings {
    const char *output;      /* MSAMP_OUTPUT, or the default */
    int flush;               /* enum msamp_hosted_flush */
    unsigned exit_timeout_ms; /* MSAMP_EXIT_TIMEOUT_MS: the exit flush's bound (default 1000) */
    struct msamp_config cfg; /* interval and seed */
};

/* Reads the settings, saying what it ignores; 0 when MSAMP_DISABLE turns profiling off. */
int msamp_hosted_settings(struct msamp_hosted_settings *s);

/* One line on stderr: fmt with two string arguments. Does not allocate. */
void msamp_hosted_say(const char *fmt, const char *a, const char *b);
/* Moves a descriptor of msamp's high, out of the program's way (hosted_transport.c). */
int msamp_hosted_fd_high(int fd, int gap);

/* The down-channel (hosted_control.c): msamp_transport_read() of the hosted port, defined in
 * hosted_transport.c (an object every link pulls in, so it wins over the core's weak default). */
int msamp_hosted_control_read(uint8_t *buf, size_t max);

/* Sets up the thread-exit hook of the threads' contexts; before msamp_init(). */
void msamp_hosted_contexts_start(void);

/* Opens MSAMP_OUTPUT's file (a FIFO without a reader: later, by the poller) or connects to its
 * tcp: address, non-blocking, on a high close-on-exec descriptor: 0, or -1 after saying why. */
int msamp_hosted_output_open(const char *spec);

/* After msamp_init(): the ring is drained into the output by the allocating threads (from
 * msamp_port_ring_notify: once it is half full or 10 ms after the last drain) until a writer
 * thread runs; flush (enum msamp_hosted_flush) says when that is: at once (thread), once the
 * program has a second thread (lazy), never (inline). A writer that cannot be started leaves the
 * drain inline. exit_ms bounds msamp_hosted_output_stop(). */
void msamp_hosted_output_start(int flush, unsigned exit_ms);

/* In a fork child: nothing more is written (the ring's bytes belong to the parent's stream). */
void msamp_hosted_output_forked(void);

/* At exit: wakes the writer (it waits on a condition variable, never in a sleep the exit would
 * wait out), joins it, and drains everything the core holds into the output, for at most
 * exit_ms milliseconds (a consumer that does not read is not waited for longer). */
void msamp_hosted_output_stop(void);

/* The heap hook's own cost since start-up (hosted_start.c, docs/HEALTH.md): its calls, the walks
 * among them (glibc's mallinfo2), the time in it (ns: all calls, the longest, the longest walk,
 * which is the longest an arena's lock was held for it, and the longest call in the calling
 * thread's CPU time, which a preemption inside the call does not lengthen). msamp_hosted_walk_ns: the walk's budget
 * a call (MSAMP_HEAP_WALK_US; MSAMP_HOSTED_HEAP_WALK_US by default). */
struct msamp_hosted_heap_cost {
    uint64_t calls, walks, total_ns, longest_ns, longest_walk_ns, longest_cpu_ns;
};
void msamp_hosted_heap_cost(struct msamp_hosted_heap_cost *c);
extern uint64_t msamp_hosted_walk_ns;

#endif
