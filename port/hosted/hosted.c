/*
 * The hosted Linux port: per-thread sampler state, a lock, the clock, and a file or TCP transport
 * drained by a background writer thread. Configured from the environment when the program starts
 * (docs/HOSTED.md):
 *   MSAMP_OUTPUT    path (%p pid, %e executable name, %t seconds since the epoch, %% a %), or
 *                   tcp:A.B.C.D:PORT; default msamp.%e.%p.bin in the working directory
 *   MSAMP_INTERVAL  mean sampling interval in bytes (default MSAMP_CFG_DEFAULT_INTERVAL)
 *   MSAMP_DISABLE=1 no profiling, no output
 *   MSAMP_FLUSH     thread (default: a writer thread polls every 10 ms) or inline (the allocating
 *                   threads poll once the ring is half full; no extra thread)
 *   MSAMP_SEED      fixed seed for repeatable sampling decisions
 * Nothing here calls malloc: buffers are static, and the libc calls that allocate internally
 * (pthread_create, pthread_getattr_np) run outside the core or inside its reentrancy guard.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hosted.h"
#include "msamp.h"

_Thread_local struct msamp_hosted_thread msamp_hosted_self __attribute__((tls_model("initial-exec")));
_Thread_local struct msamp_context msamp_hosted_ctx __attribute__((tls_model("initial-exec")));

enum flush_mode { FLUSH_THREAD, FLUSH_INLINE };

static int out_fd = -1;
static int out_is_socket;
static enum flush_mode flush_mode = FLUSH_THREAD;
static atomic_int running;      /* msamp_init() succeeded and the exit flush has not run */
static atomic_int in_child;     /* this process is a fork child: it sends nothing */
static atomic_flag core_lock = ATOMIC_FLAG_INIT;
static atomic_flag poll_lock = ATOMIC_FLAG_INIT; /* one poller at a time (inline mode) */
static pthread_t writer;
static int writer_started;
static atomic_int writer_stop;
static pthread_key_t exit_key;
static int exit_key_ok;

static void say(const char *fmt, const char *a, const char *b)
{
    char line[512];
    int n = snprintf(line, sizeof line, fmt, a, b);

    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* ---- per-thread context ---- */

/* Key destructor at thread exit: hand the thread's registry slot back to the core. If the thread
 * allocates again in a later destructor, it is armed again (glibc repeats destructors up to
 * PTHREAD_DESTRUCTOR_ITERATIONS times). */
static void thread_exit(void *p)
{
    struct msamp_hosted_thread *t = p;

    msamp_context_detach(&msamp_hosted_ctx);
    t->exit_armed = 0;
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

/* ---- lock ---- */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* A spinlock that yields the CPU when the holder is slow (preempted). A signal handler that
 * allocates on a thread already inside the core never gets here: the core's per-thread
 * reentrancy guard turns it away first. */
msamp_port_lock_t msamp_port_lock(void)
{
    unsigned spins = 0;

    while (atomic_flag_test_and_set_explicit(&core_lock, memory_order_acquire)) {
        if (++spins < 100) {
            cpu_relax();
        } else {
            spins = 0;
            sched_yield();
        }
    }
    return 0;
}

void msamp_port_unlock(msamp_port_lock_t token)
{
    (void)token;
    atomic_flag_clear_explicit(&core_lock, memory_order_release);
}

/* ---- clock, entropy, refusals ---- */

uint64_t msamp_port_time(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t msamp_port_time_hz(void)
{
    return 1000000000u;
}

uint64_t msamp_port_entropy(void)
{
    uint64_t v = 0;

    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
        v = msamp_port_time() ^ ((uint64_t)getpid() << 32);
    return v;
}

void msamp_port_refused(size_t size)
{
    (void)size;
    errno = ENOMEM;
}

/* ---- transport ---- */

/* The core hands the transport 32-byte pieces; they are gathered here and written with one
 * system call per poll (or per 64 KiB). Only the single poller touches this buffer. */
static uint8_t out_buf[64 * 1024];
static size_t out_len;
static int out_failed;

static int drain_out_buf(void)
{
    size_t done = 0;

    while (done < out_len && !out_failed) {
        ssize_t n = out_is_socket ? send(out_fd, out_buf + done, out_len - done, MSG_NOSIGNAL)
                                  : write(out_fd, out_buf + done, out_len - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            out_failed = 1; /* a closed socket, a full disk: profiling output ends here */
    }
    out_len = 0;
    return out_failed ? -1 : 0;
}

int msamp_transport_write(const uint8_t *data, size_t len)
{
    if (atomic_load_explicit(&in_child, memory_order_relaxed))
        return (int)len; /* the parent owns the stream */
    if (out_len + len > sizeof out_buf && drain_out_buf() != 0)
        return -1;
    if (out_failed)
        return -1;
    if (len > sizeof out_buf)
        len = sizeof out_buf;
    memcpy(out_buf + out_len, data, len);
    out_len += len;
    return (int)len;
}

/* One drain step (or the final flush) and the write of what it produced. Keeps errno as the
 * application left it. */
static int poll_once(int flush)
{
    int saved = errno;
    int n = flush ? msamp_flush() : msamp_poll();

    if (!atomic_load_explicit(&in_child, memory_order_relaxed))
        (void)drain_out_buf();
    errno = saved;
    return n;
}

/* ---- configuration ---- */

/* Expands MSAMP_OUTPUT's %p, %e, %t and %%; 0 on success, -1 when the result is too long. */
static int expand_path(const char *pat, char *out, size_t cap)
{
    size_t n = 0;

    for (const char *s = pat; *s != '\0'; s++) {
        char num[32];
        const char *ins = num;

        if (*s != '%' || s[1] == '\0') {
            num[0] = *s;
            num[1] = '\0';
        } else {
            s++;
            if (*s == 'p')
                snprintf(num, sizeof num, "%ld", (long)getpid());
            else if (*s == 't')
                snprintf(num, sizeof num, "%lld", (long long)time(NULL));
            else if (*s == 'e')
                ins = program_invocation_short_name;
            else if (*s == '%')
                ins = "%";
            else
                snprintf(num, sizeof num, "%%%c", *s);
        }
        for (; *ins != '\0'; ins++) {
            if (n + 1 >= cap)
                return -1;
            out[n++] = *ins;
        }
    }
    out[n] = '\0';
    return 0;
}

/* tcp:A.B.C.D:PORT, numeric IPv4 only (no resolver: it would allocate). */
static int open_tcp(const char *spec)
{
    char host[64];
    const char *colon = strrchr(spec, ':');
    struct sockaddr_in sa = {0};
    char *end;
    unsigned long port;
    int fd;

    if (colon == NULL || (size_t)(colon - spec) >= sizeof host)
        return -EINVAL;
    memcpy(host, spec, (size_t)(colon - spec));
    host[colon - spec] = '\0';
    errno = 0;
    port = strtoul(colon + 1, &end, 10);
    if (errno != 0 || end == colon + 1 || *end != '\0' || port == 0 || port > 65535)
        return -EINVAL;
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
        return -EINVAL;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

static int open_output(const char *spec)
{
    static char path[4096];
    int fd;

    if (strncmp(spec, "tcp:", 4) == 0) {
        fd = open_tcp(spec + 4);
        if (fd < 0) {
            say("msamp: cannot connect to MSAMP_OUTPUT=%s: %s; profiling off\n", spec,
                fd == -EINVAL ? "expected tcp:A.B.C.D:PORT" : strerror(-fd));
            return -1;
        }
        out_is_socket = 1;
        return fd;
    }
    if (expand_path(spec, path, sizeof path) != 0) {
        say("msamp: MSAMP_OUTPUT=%s%s is too long; profiling off\n", spec, "");
        return -1;
    }
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        say("msamp: cannot open %s: %s; profiling off\n", path, strerror(errno));
    return fd;
}

/* A decimal in 1..UINT32_MAX; 0 when absent or invalid (after saying so). */
static uint32_t env_u32(const char *name)
{
    const char *v = getenv(name);
    char *end;
    unsigned long long x;

    if (v == NULL || v[0] == '\0')
        return 0;
    errno = 0;
    x = strtoull(v, &end, 10);
    if (errno != 0 || *end != '\0' || v[0] == '-' || x == 0 || x > UINT32_MAX) {
        say("msamp: ignoring %s=%s (expected a number of bytes, 1..4294967295)\n", name, v);
        return 0;
    }
    return (uint32_t)x;
}

/* ---- writer thread, start and exit ---- */

static void *writer_main(void *arg)
{
    const struct timespec period = {0, 10 * 1000 * 1000};

    (void)arg;
    while (!atomic_load(&writer_stop)) {
        msamp_hosted_maps_refresh();
        /* Poll again at once while the allocating threads fill the ring faster than 10 ms. */
        if (poll_once(0) < MSAMP_CFG_RING_SIZE / 8)
            nanosleep(&period, NULL);
    }
    return NULL;
}

/* Inline mode: the allocating thread drains the ring once it is half full. */
void msamp_port_ring_notify(uint32_t used, uint32_t size)
{
    if (flush_mode != FLUSH_INLINE || used < size / 2 || !atomic_load(&running))
        return;
    if (atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire))
        return; /* another thread is draining */
    /* The core calls this inside the thread's reentrancy guard: a signal handler that allocates
     * while this thread holds the core's lock in msamp_poll() is turned away, not blocked. */
    (void)poll_once(0);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}

/* fork: the lock is taken around fork() so the child never inherits it held; the child keeps
 * running with profiling off and writes nothing (the ring's bytes belong to the parent's stream).
 * A program the child exec()s starts its own profile. */
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
    atomic_store(&in_child, 1);
    writer_started = 0;
    if (atomic_exchange(&running, 0))
        msamp_disable();
}

static __attribute__((constructor(101))) void msamp_hosted_start(void)
{
    const char *disable = getenv("MSAMP_DISABLE");
    const char *output = getenv("MSAMP_OUTPUT");
    const char *flush = getenv("MSAMP_FLUSH");
    const char *seed = getenv("MSAMP_SEED");
    struct msamp_config cfg = {0};
    sigset_t all, old;
    int rc;

    if (disable != NULL && strcmp(disable, "0") != 0 && disable[0] != '\0')
        return;
    exit_key_ok = pthread_key_create(&exit_key, thread_exit) == 0;
    msamp_hosted_stack_bounds(&msamp_hosted_self);
    msamp_hosted_maps_refresh();
    if (flush != NULL && strcmp(flush, "inline") == 0) {
        flush_mode = FLUSH_INLINE;
    } else if (flush != NULL && flush[0] != '\0' && strcmp(flush, "thread") != 0) {
        say("msamp: ignoring MSAMP_FLUSH=%s (expected thread or inline)%s\n", flush, "");
    }
    cfg.interval = env_u32("MSAMP_INTERVAL");
    if (seed != NULL && seed[0] != '\0')
        cfg.seed = strtoull(seed, NULL, 0);
    out_fd = open_output(output != NULL && output[0] != '\0' ? output : "msamp.%e.%p.bin");
    if (out_fd < 0)
        return;
    rc = msamp_init(&cfg);
    if (rc != MSAMP_OK) {
        say("msamp: initialisation failed (%s)%s; profiling off\n",
            rc == MSAMP_ERR_INVAL ? "invalid setting" : "state", "");
        return;
    }
    atomic_store(&running, 1);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    if (flush_mode == FLUSH_INLINE)
        return;
    /* The writer takes no signals: a handler that allocated while it held the lock would spin
     * forever, since poll does not mark the writer as inside the core. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    writer_started = pthread_create(&writer, NULL, writer_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!writer_started) {
        say("msamp: no writer thread; flushing inline%s%s\n", "", "");
        flush_mode = FLUSH_INLINE;
    } else {
        pthread_setname_np(writer, "msamp-writer");
    }
}

/* The final flush, after the program's atexit handlers and other destructors (priority 101 runs
 * last among destructors). Allocations made after it are sampled but never sent. */
static __attribute__((destructor(101))) void msamp_hosted_stop(void)
{
    sigset_t all, old;

    if (!atomic_exchange(&running, 0))
        return;
    if (writer_started) {
        atomic_store(&writer_stop, 1);
        pthread_join(writer, NULL);
        writer_started = 0;
    }
    while (atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire))
        sched_yield();
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    msamp_hosted_maps_refresh();
    /* After records were lost to a full ring, end with a snapshot pass, so the stream's last
     * word on what is live is exact. Each poll examines at least 16 * SNAPSHOT_BATCH slots, and
     * each flush polls at least once: this many flushes finish any pass. */
    struct msamp_stats stats;
    if (msamp_get_stats(&stats) == 0 && stats.ring_records > 0)
        (void)msamp_snapshot();
    for (unsigned i = 0; i < MSAMP_CFG_LIVE_CAPACITY / (16u * MSAMP_CFG_SNAPSHOT_BATCH) + 2u; i++)
        (void)poll_once(1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}
