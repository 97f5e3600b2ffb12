/* The transport: msamp's stream into MSAMP_OUTPUT's file or TCP connection, drained from the
 * core's ring by a writer thread every 10 ms (MSAMP_FLUSH=thread) or by the allocating threads once
 * the ring is half full (inline), and flushed to the end at exit. Nothing here calls malloc:
 * buffers are static, and pthread_create (which allocates) runs before the core samples. */
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hosted.h"
#include "msamp.h"

static int out_fd = -1;
static int out_is_socket;
static atomic_int in_child;     /* this process is a fork child: it sends nothing */
static int inline_flush;        /* the allocating threads drain the ring (MSAMP_FLUSH=inline) */
static atomic_flag poll_lock = ATOMIC_FLAG_INIT; /* one poller at a time (inline mode, exit) */
static pthread_t writer;
static int writer_started;
static atomic_int writer_stop;

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

int msamp_hosted_output_open(const char *spec)
{
    static char path[4096];

    if (strncmp(spec, "tcp:", 4) == 0) {
        out_fd = open_tcp(spec + 4);
        if (out_fd < 0) {
            msamp_hosted_say("msamp: cannot connect to MSAMP_OUTPUT=%s: %s; profiling off\n", spec,
                             out_fd == -EINVAL ? "expected tcp:A.B.C.D:PORT" : strerror(-out_fd));
            return -1;
        }
        out_is_socket = 1;
        return 0;
    }
    if (expand_path(spec, path, sizeof path) != 0) {
        msamp_hosted_say("msamp: MSAMP_OUTPUT=%s%s is too long; profiling off\n", spec, "");
        return -1;
    }
    out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
        msamp_hosted_say("msamp: cannot open %s: %s; profiling off\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

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

void msamp_hosted_output_start(int flush_inline)
{
    sigset_t all, old;

    if (!flush_inline) {
        /* The writer takes no signals: a handler that allocated while it held the lock would spin
         * forever, since poll does not mark the writer as inside the core. */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        writer_started = pthread_create(&writer, NULL, writer_main, NULL) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (writer_started) {
            pthread_setname_np(writer, "msamp-writer");
            return;
        }
        msamp_hosted_say("msamp: no writer thread; flushing inline%s%s\n", "", "");
    }
    inline_flush = 1;
}

/* Inline mode: the allocating thread drains the ring once it is half full. */
void msamp_port_ring_notify(uint32_t used, uint32_t size)
{
    if (!inline_flush || used < size / 2 || !atomic_load(&msamp_hosted_running))
        return;
    if (atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire))
        return; /* another thread is draining */
    /* The core calls this inside the thread's reentrancy guard: a signal handler that allocates
     * while this thread holds the core's lock in msamp_poll() is turned away, not blocked. */
    (void)poll_once(0);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}

void msamp_hosted_output_forked(void)
{
    atomic_store(&in_child, 1);
    writer_started = 0;
}

void msamp_hosted_output_stop(void)
{
    sigset_t all, old;

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
    if (msamp_get_stats(&stats) != 0)
        stats.live_capacity = MSAMP_CFG_LIVE_CAPACITY;
    else if (stats.ring_records > 0)
        (void)msamp_snapshot();
    for (unsigned i = 0; i < stats.live_capacity / (16u * MSAMP_CFG_SNAPSHOT_BATCH) + 2u; i++)
        (void)poll_once(1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}
