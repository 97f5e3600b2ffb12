/*
 * The DWARF-stacks test's signal handler: a profiling timer's handler that allocates from
 * signal_pool.c's pool (async-signal-safe, unlike malloc), profiled through MSAMP_WRAP_ALLOCATOR,
 * so its sampled stacks go through the kernel's signal frame into whatever the thread was
 * running: msamp's own code (turned away by the reentrancy guard), glibc, libstdc++ throwing an
 * exception, the library without frame pointers.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>

#include "msamp.h"

void *pool_alloc(size_t size);
void pool_free(void *p);
void pool_init(void);
int dwarf_sig_start(void);
unsigned dwarf_sig_stop(void);

static volatile sig_atomic_t handled;

MSAMP_WRAP_ALLOCATOR(pool_alloc, pool_free)

static void on_prof(int sig)
{
    (void)sig;
    void *a = pool_alloc(32);
    pool_free(a);
    handled++;
}

/* A SIGPROF every 100 us of CPU time from now on: 0, or -1. */
int dwarf_sig_start(void)
{
    struct sigaction sa = {0};
    struct itimerval it = {{0, 100}, {0, 100}};

    pool_init();
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGPROF, &sa, NULL) == 0 && setitimer(ITIMER_PROF, &it, NULL) == 0 ? 0 : -1;
}

/* Stops the timer: the handler's runs. */
unsigned dwarf_sig_stop(void)
{
    struct itimerval it = {{0, 0}, {0, 0}};

    setitimer(ITIMER_PROF, &it, NULL);
    return (unsigned)handled;
}
