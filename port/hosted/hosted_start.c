/* The hosted port's life in the process: started by a constructor before main() (the settings,
 * the output, msamp_init(), the drain: no thread unless MSAMP_FLUSH=thread), flushed by a
 * destructor after every other one, and off in a fork child. */
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>

#include "hosted.h"
#include "msamp.h"

atomic_int msamp_hosted_running;

/* fork: the lock is taken around fork() so the child never inherits it held; the child keeps
 * running with profiling off and writes nothing (the ring's bytes belong to the parent's stream).
 * A program the child exec()s starts its own profile. */
#if MSAMP_CFG_HEAP_STATS
/* glibc's own figures (docs/HEALTH.md): mallinfo2's free bytes in the main and other arenas
 * (fordblks), its free chunks (ordblks, fastbin chunks apart: smblks) and what it took from the
 * system (arena and mmapped blocks). The largest free block and a low watermark glibc does not
 * keep (finding the largest would walk every bin under the arenas' locks): unknown. */
void msamp_port_heap_stats(struct msamp_heap_stats *out)
{
    struct mallinfo2 m = mallinfo2();
    out->total = m.arena + m.hblkhd;
    out->free = m.fordblks;
    out->free_blocks = m.ordblks + m.smblks;
    out->valid = MSAMP_HEAP_TOTAL | MSAMP_HEAP_FREE | MSAMP_HEAP_FREE_BLOCKS;
}
#endif

static void fork_prepare(void)
{
    msamp_port_lock();
}

static void fork_parent(void)
{
    msamp_port_unlock(0);
}

static void fork_child(void)
{
    msamp_port_unlock(0);
    msamp_hosted_output_forked();
    if (atomic_exchange(&msamp_hosted_running, 0))
        msamp_disable();
}

static __attribute__((constructor(101))) void msamp_hosted_start(void)
{
    struct msamp_hosted_settings s;
    int rc;

    if (!msamp_hosted_settings(&s))
        return;
    msamp_hosted_contexts_start();
    msamp_hosted_stack_bounds(&msamp_hosted_self);
    msamp_hosted_maps_refresh();
    if (msamp_hosted_output_open(s.output) != 0)
        return;
    rc = msamp_init(&s.cfg);
    if (rc != MSAMP_OK) {
        msamp_hosted_say("msamp: initialisation failed (%s)%s; profiling off\n",
                         rc == MSAMP_ERR_INVAL ? "invalid setting" : "state", "");
        return;
    }
    atomic_store(&msamp_hosted_running, 1);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    msamp_hosted_output_start(s.flush, s.exit_timeout_ms);
}

/* The final flush, after the program's atexit handlers and other destructors (priority 101 runs
 * last among destructors). Allocations made after it are sampled but never sent. */
static __attribute__((destructor(101))) void msamp_hosted_stop(void)
{
    if (atomic_exchange(&msamp_hosted_running, 0))
        msamp_hosted_output_stop();
}
