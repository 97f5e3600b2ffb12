/* The calling thread, for the core: its sampler context (a thread-local variable the wrappers
 * read inline), handed back to the core when the thread exits, and the errno an allocation the
 * core refuses leaves behind. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "hosted.h"
#include "msamp.h"

_Thread_local struct msamp_hosted_thread msamp_hosted_self __attribute__((tls_model("initial-exec")));
_Thread_local struct msamp_context msamp_hosted_ctx
    __attribute__((tls_model(MSAMP_HOSTED_TLS_MODEL)));

static pthread_key_t exit_key;
static int exit_key_ok;

/* Key destructor at thread exit: hand the thread's registry slot back to the core. If the thread
 * allocates again in a later destructor, it is armed again (glibc repeats destructors up to
 * PTHREAD_DESTRUCTOR_ITERATIONS times). */
static void thread_exit(void *p)
{
    struct msamp_hosted_thread *t = p;

    msamp_context_detach(&msamp_hosted_ctx);
    t->exit_armed = 0;
}

void msamp_hosted_contexts_start(void)
{
    exit_key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
}

static __attribute__((noinline)) void arm_thread_exit(struct msamp_hosted_thread *t)
{
    t->exit_armed = 1;
    /* The key is among the first 32 of the process (created by the constructor), so
     * pthread_setspecific uses glibc's static first block and never allocates. */
    if (exit_key_ok)
        pthread_setspecific(exit_key, t);
}

/* The wrappers read msamp_hosted_ctx inline (MSAMP_PORT_CONTEXT in msamp_hosted_config.h). */
struct msamp_context *msamp_port_context(void)
{
    return &msamp_hosted_ctx;
}

/* The core registered this thread's context: detach it again at thread exit. */
void msamp_port_context_registered(struct msamp_context *ctx)
{
    struct msamp_hosted_thread *t = &msamp_hosted_self;

    if (ctx == &msamp_hosted_ctx && !t->exit_armed)
        arm_thread_exit(t);
}

/* The giant-allocation guard refused a request: fail it as malloc does. */
void msamp_port_refused(size_t size)
{
    (void)size;
    errno = ENOMEM;
}
