/* The transport: msamp's stream into MSAMP_OUTPUT's file, FIFO or TCP connection, drained from the
 * core's ring by a writer thread every 10 ms (MSAMP_FLUSH=thread) or by the allocating threads once
 * the ring is half full (inline), and flushed at exit within MSAMP_EXIT_TIMEOUT_MS. Nothing here
 * calls malloc: buffers are static, and pthread_create (which allocates) runs before the core
 * samples.
 *
 * The output never blocks the program and never writes into the program's files:
 * - It is opened non-blocking, close-on-exec, and moved to a high descriptor number (a program that
 *   closes 3..1023 and opens its own files does not get it back under a low number). Its identity
 *   (st_dev, st_ino) is checked with fstat before each write: a descriptor the program closed, or
 *   closed and reused for a file of its own, stops the output (said once on stderr).
 * - A FIFO without a reader is not waited for: the open is retried from the poller every 50 ms;
 *   meanwhile the transport takes nothing, the core's ring fills and the core counts what it drops
 *   (DROPS). The ring's first bytes are the SESSION header, so a reader that comes late gets a
 *   stream that starts at the beginning.
 * - Writes never block (O_NONBLOCK, MSG_DONTWAIT): a consumer that does not read makes the
 *   transport take nothing, the ring fills, and the allocating threads drop records (counted) instead
 *   of waiting. A write error (full disk, closed socket, FIFO reader gone) stops the output, said
 *   once on stderr; the program runs on.
 * - At exit the rest is flushed for at most MSAMP_EXIT_TIMEOUT_MS (default 1000), waiting for the
 *   consumer to make room; the writer thread is joined with the same deadline. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hosted.h"
#include "msamp.h"

/* The output's state. Changed only by the single poller (under poll_lock), or before the writer
 * starts; the inline path reads out_state without the lock only to skip work. */
enum out_state {
    OUT_OPEN,        /* writable descriptor, identity known */
    OUT_WAIT_READER, /* a FIFO without a reader: the open is retried */
    OUT_CONNECTING,  /* a TCP connection under way */
    OUT_STOPPED      /* failed or lost: the transport refuses everything */
};

static _Atomic int out_state = OUT_STOPPED;
static int out_fd = -1;
static int out_is_socket, out_is_pipe;
static dev_t out_dev;
static ino_t out_ino;
static char out_name[4096];     /* the expanded path or the tcp: spec, for messages */
static atomic_int in_child;     /* this process is a fork child: it sends nothing */
static int inline_flush;        /* the allocating threads drain the ring (MSAMP_FLUSH=inline) */
static atomic_flag poll_lock = ATOMIC_FLAG_INIT; /* one poller at a time */
static pthread_t writer;
static int writer_started;
static atomic_int writer_stop;
static unsigned exit_timeout_ms = 1000;
static int64_t reopen_at;                /* OUT_WAIT_READER: next open attempt (ns) */
static _Atomic int64_t inline_retry_at;  /* inline mode: no poll before this time (ns) */
static int refused;                      /* the last poll left bytes the consumer did not take */

#define REOPEN_NS (50 * 1000 * 1000)     /* FIFO open retries */
#define INLINE_RETRY_NS (1000 * 1000)    /* inline mode: stalled output retried at most every 1 ms */

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

/* Stops the output for good, saying why once. close_fd: the descriptor is still ours (its identity
 * was checked just before); a descriptor the program closed or reused is left alone. */
static void stop_output(const char *why, int close_fd)
{
    if (atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_STOPPED)
        return;
    atomic_store_explicit(&out_state, OUT_STOPPED, memory_order_relaxed);
    msamp_hosted_say("msamp: output %s: %s; profiling output stopped\n", out_name, why);
    if (close_fd && out_fd >= 0)
        close(out_fd);
    out_fd = -1;
}

/* Moves fd to a high number (close-on-exec), out of the way of a program that closes 3..1023 and
 * opens its own files, and records its identity. 0, or -1 when fstat fails. */
static int adopt_fd(int fd)
{
    struct rlimit rl;
    long floor = 1024;
    struct stat st;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (long)rl.rlim_cur < floor)
        floor = (long)rl.rlim_cur;
    /* Below 1024 (select's limit) and below the soft limit, keeping a few numbers above it free;
     * never a number so large that the kernel grows the descriptor table for it. */
    floor = floor > 64 ? floor - 24 : floor * 3 / 4;
    if (fd < floor) {
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)floor);
        if (hi >= 0) {
            close(fd);
            fd = hi;
        }
    }
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    out_fd = fd;
    out_dev = st.st_dev;
    out_ino = st.st_ino;
    out_is_pipe = S_ISFIFO(st.st_mode);
    atomic_store_explicit(&out_state, OUT_OPEN, memory_order_relaxed);
    return 0;
}

/* Whether out_fd is still the descriptor msamp opened: 1 yes, 0 the program closed it, -1 it
 * names another file (the program closed it and a file of its own got the number). One fstat
 * before each write. */
static int identity_ok(void)
{
    struct stat st;

    if (fstat(out_fd, &st) != 0)
        return 0;
    return st.st_dev == out_dev && st.st_ino == out_ino ? 1 : -1;
}

/* tcp:A.B.C.D:PORT, numeric IPv4 only (no resolver: it would allocate). A non-blocking socket,
 * connected or connecting: its descriptor, or -errno. */
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
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/* OUT_CONNECTING: waits up to ms for the connection; 1 connected, 0 still under way, -errno. */
static int connect_done(int ms)
{
    struct pollfd p = {out_fd, POLLOUT, 0};
    int err = 0;
    socklen_t len = sizeof err;

    if (poll(&p, 1, ms) <= 0)
        return 0;
    if (getsockopt(out_fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    return err == 0 ? 1 : -err;
}

static void check_connect(int ms)
{
    int rc = connect_done(ms);

    if (rc > 0) {
        if (adopt_fd(out_fd) != 0)
            stop_output("the connection was lost", 0);
    } else if (rc < 0) {
        stop_output(strerror(-rc), 1);
    }
}

int msamp_hosted_output_open(const char *spec)
{
    int fd;

    if (strncmp(spec, "tcp:", 4) == 0) {
        snprintf(out_name, sizeof out_name, "%s", spec);
        fd = open_tcp(spec + 4);
        if (fd < 0) {
            msamp_hosted_say("msamp: cannot connect to MSAMP_OUTPUT=%s: %s; profiling off\n", spec,
                             fd == -EINVAL ? "expected tcp:A.B.C.D:PORT" : strerror(-fd));
            return -1;
        }
        out_is_socket = 1;
        out_fd = fd;
        atomic_store_explicit(&out_state, OUT_CONNECTING, memory_order_relaxed);
        /* A local peer answers at once; a remote one that takes longer is waited for by the
         * poller, never by the program's start. */
        int rc = connect_done(100);
        if (rc < 0) {
            close(fd);
            out_fd = -1;
            atomic_store_explicit(&out_state, OUT_STOPPED, memory_order_relaxed);
            msamp_hosted_say("msamp: cannot connect to MSAMP_OUTPUT=%s: %s; profiling off\n", spec,
                             strerror(-rc));
            return -1;
        }
        if (rc > 0 && adopt_fd(fd) != 0) {
            msamp_hosted_say("msamp: cannot use the connection to MSAMP_OUTPUT=%s%s; profiling off\n",
                             spec, "");
            return -1;
        }
        return 0;
    }
    if (expand_path(spec, out_name, sizeof out_name) != 0) {
        msamp_hosted_say("msamp: MSAMP_OUTPUT=%s%s is too long; profiling off\n", spec, "");
        return -1;
    }
    fd = open(out_name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
    if (fd < 0) {
        struct stat st;
        int e = errno;

        if (e == ENXIO && stat(out_name, &st) == 0 && S_ISFIFO(st.st_mode)) {
            /* A FIFO nobody reads yet: never wait for a reader here, before main(). */
            msamp_hosted_say("msamp: %s has no reader yet%s; the output starts when one opens it\n",
                             out_name, "");
            out_is_pipe = 1;
            reopen_at = now_ns() + REOPEN_NS;
            atomic_store_explicit(&out_state, OUT_WAIT_READER, memory_order_relaxed);
            return 0;
        }
        msamp_hosted_say("msamp: cannot open %s: %s; profiling off\n", out_name, strerror(e));
        return -1;
    }
    if (adopt_fd(fd) != 0) {
        msamp_hosted_say("msamp: cannot use %s%s; profiling off\n", out_name, "");
        return -1;
    }
    return 0;
}

/* OUT_WAIT_READER: one non-blocking open of the FIFO (at most every REOPEN_NS unless forced). */
static void try_reopen(int force)
{
    int64_t t = now_ns();
    int fd;

    if (!force && t < reopen_at)
        return;
    reopen_at = t + REOPEN_NS;
    fd = open(out_name, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
        if (adopt_fd(fd) != 0)
            stop_output("cannot use the descriptor", 0);
    } else if (errno != ENXIO) {
        stop_output(strerror(errno), 0);
    }
}

/* A write to a pipe or FIFO whose reader is gone raises SIGPIPE, which would kill the program:
 * it is blocked around the write and taken back when the write raised it. */
static ssize_t pipe_write(const uint8_t *buf, size_t len, int sigs_blocked)
{
    sigset_t pipe_set, old, pend;
    ssize_t n;
    int e, was_pending;

    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    if (!sigs_blocked)
        pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    was_pending = sigpending(&pend) == 0 && sigismember(&pend, SIGPIPE);
    n = write(out_fd, buf, len);
    e = errno;
    if (n < 0 && e == EPIPE && !was_pending) {
        const struct timespec zero = {0, 0};
        (void)sigtimedwait(&pipe_set, NULL, &zero);
    }
    if (!sigs_blocked)
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return n;
}

/* The core hands the transport 32-byte pieces; they are gathered here and written with one system
 * call per poll (or per 64 KiB). Bytes [out_off, out_len) are still to be written; only the single
 * poller touches them. */
static uint8_t out_buf[64 * 1024];
static size_t out_off, out_len;
static int sigs_blocked_now;   /* the poller runs with every signal blocked (writer, exit) */

/* Writes what the buffer holds without blocking: 0 all written, 1 the consumer takes no more now,
 * -1 the output is stopped. */
static int out_push(void)
{
    if (atomic_load_explicit(&out_state, memory_order_relaxed) != OUT_OPEN)
        return atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_STOPPED ? -1 : 1;
    if (out_off == out_len)
        return 0;
    int id = identity_ok();
    if (id != 1) {
        stop_output(id == 0 ? "the program closed msamp's descriptor"
                            : "the program reused msamp's descriptor for a file of its own",
                    0);
        return -1;
    }
    while (out_off < out_len) {
        ssize_t n;

        if (out_is_socket)
            n = send(out_fd, out_buf + out_off, out_len - out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        else if (out_is_pipe)
            n = pipe_write(out_buf + out_off, out_len - out_off, sigs_blocked_now);
        else
            n = write(out_fd, out_buf + out_off, out_len - out_off);
        if (n > 0) {
            out_off += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
            refused = 1;
            return 1;
        } else if (errno == EBADF) {
            stop_output("the program closed msamp's descriptor", 0);
            return -1;
        } else {
            stop_output(strerror(errno), 1);
            return -1;
        }
    }
    out_off = out_len = 0;
    return 0;
}

int msamp_transport_write(const uint8_t *data, size_t len)
{
    if (atomic_load_explicit(&in_child, memory_order_relaxed))
        return (int)len; /* the parent owns the stream */
    switch (atomic_load_explicit(&out_state, memory_order_relaxed)) {
    case OUT_STOPPED:
        return -1;
    case OUT_OPEN:
        break;
    default:
        refused = 1;
        return 0; /* no reader or connection yet: the core keeps the bytes, and drops when full */
    }
    if (out_len == sizeof out_buf && out_push() < 0)
        return -1;
    if (out_off > 0 && out_len + len > sizeof out_buf) {
        memmove(out_buf, out_buf + out_off, out_len - out_off);
        out_len -= out_off;
        out_off = 0;
    }
    if (len > sizeof out_buf - out_len)
        len = sizeof out_buf - out_len;
    if (len == 0) {
        refused = 1;
        return 0; /* the consumer is behind: the core keeps the rest in its ring */
    }
    memcpy(out_buf + out_len, data, len);
    out_len += len;
    return (int)len;
}

/* One drain step (or a flush) and the write of what it produced, under poll_lock. Keeps errno as
 * the application left it. Returns what msamp_poll()/msamp_flush() returned. */
static int poll_once(int flush, int sigs_blocked)
{
    int saved = errno;
    int child = atomic_load_explicit(&in_child, memory_order_relaxed);
    int n;

    sigs_blocked_now = sigs_blocked;
    refused = 0;
    if (!child) {
        int st = atomic_load_explicit(&out_state, memory_order_relaxed);
        if (st == OUT_WAIT_READER)
            try_reopen(flush);
        else if (st == OUT_CONNECTING)
            check_connect(0);
        (void)out_push(); /* what the consumer did not take last time goes first */
    }
    n = flush ? msamp_flush() : msamp_poll();
    if (!child)
        (void)out_push();
    errno = saved;
    return n;
}

static void *writer_main(void *arg)
{
    const struct timespec period = {0, 10 * 1000 * 1000};

    (void)arg;
    while (!atomic_load(&writer_stop)) {
        int n = 0;

        msamp_hosted_maps_refresh();
        if (!atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire)) {
            n = poll_once(0, 1);
            atomic_flag_clear_explicit(&poll_lock, memory_order_release);
        }
        /* Poll again at once while the allocating threads fill the ring faster than 10 ms. */
        if (n < MSAMP_CFG_RING_SIZE / 8)
            nanosleep(&period, NULL);
    }
    return NULL;
}

void msamp_hosted_output_start(int flush_inline, unsigned exit_ms)
{
    sigset_t all, old;

    exit_timeout_ms = exit_ms;
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

/* Inline mode: the allocating thread drains the ring once it is half full. While the consumer
 * takes nothing (or no reader is there yet), at most one attempt per millisecond: the others
 * return at once and the core drops what does not fit its ring. */
void msamp_port_ring_notify(uint32_t used, uint32_t size)
{
    if (!inline_flush || used < size / 2 || !atomic_load(&msamp_hosted_running))
        return;
    int64_t retry = atomic_load_explicit(&inline_retry_at, memory_order_relaxed);
    if (retry != 0 && now_ns() < retry)
        return;
    if (atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_STOPPED)
        return;
    if (atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire))
        return; /* another thread is draining */
    /* The core calls this inside the thread's reentrancy guard: a signal handler that allocates
     * while this thread holds the core's lock in msamp_poll() is turned away, not blocked. */
    (void)poll_once(0, 0);
    atomic_store_explicit(&inline_retry_at, refused ? now_ns() + INLINE_RETRY_NS : 0,
                          memory_order_relaxed);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}

void msamp_hosted_output_forked(void)
{
    atomic_store(&in_child, 1);
    writer_started = 0;
}

/* Milliseconds left until deadline (ns), at least 0. */
static int ms_left(int64_t deadline)
{
    int64_t left = deadline - now_ns();

    return left <= 0 ? 0 : (int)((left + 999999) / 1000000);
}

/* Waits up to ms (at most 10) for the output to take bytes again, or until the next open or
 * connect attempt. */
static void wait_output(int ms)
{
    if (ms > 10)
        ms = 10;
    if (atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_OPEN && out_fd >= 0) {
        struct pollfd p = {out_fd, POLLOUT, 0};
        (void)poll(&p, 1, ms); /* an error or hang-up shows in the next write */
        return;
    }
    struct timespec ts = {0, (long)ms * 1000000};
    nanosleep(&ts, NULL);
}

void msamp_hosted_output_stop(void)
{
    sigset_t all, old;
    int64_t deadline = now_ns() + (int64_t)exit_timeout_ms * 1000000;
    char ms[16];

    snprintf(ms, sizeof ms, "%u", exit_timeout_ms);
    if (writer_started) {
        struct timespec abs;

        atomic_store(&writer_stop, 1);
        clock_gettime(CLOCK_REALTIME, &abs);
        abs.tv_sec += exit_timeout_ms / 1000;
        abs.tv_nsec += (long)(exit_timeout_ms % 1000) * 1000000;
        if (abs.tv_nsec >= 1000000000) {
            abs.tv_sec++;
            abs.tv_nsec -= 1000000000;
        }
        if (pthread_timedjoin_np(writer, NULL, &abs) != 0)
            pthread_detach(writer); /* stuck: the process ends without it */
        writer_started = 0;
    }
    while (atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire)) {
        if (ms_left(deadline) == 0) {
            msamp_hosted_say("msamp: output %s: busy at exit for %s ms; the stream ends early\n",
                             out_name, ms);
            return;
        }
        sched_yield();
    }
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    msamp_hosted_maps_refresh();
    /* End with a snapshot pass, so the stream's last word on what is live is exact, whatever
     * the ring dropped or the line lost (the device cannot know the latter). Each poll sends
     * SNAPSHOT_BATCH live entries or examines 16 times as many slots, and each flush polls at
     * least once: this many complete flushes finish a pass under way and the one asked for. A
     * flush the consumer did not take to the end is repeated, once it makes room, until the
     * deadline. */
    struct msamp_stats stats;
    if (msamp_get_stats(&stats) != 0) {
        stats.live_capacity = MSAMP_CFG_LIVE_CAPACITY;
        stats.live_used = 0;
    } else {
        (void)msamp_snapshot();
    }
    unsigned rounds = 2u * (stats.live_capacity / (16u * MSAMP_CFG_SNAPSHOT_BATCH) +
                            stats.live_used / MSAMP_CFG_SNAPSHOT_BATCH + 2u);
    for (unsigned i = 0; i < rounds;) {
        (void)poll_once(1, 1);
        if (atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_STOPPED ||
            atomic_load_explicit(&in_child, memory_order_relaxed))
            break;
        if (!refused && out_off == out_len) {
            i++;
            continue;
        }
        int left = ms_left(deadline);
        if (left == 0) {
            msamp_hosted_say("msamp: output %s: not taken within MSAMP_EXIT_TIMEOUT_MS=%s at exit; "
                             "the stream ends early\n",
                             out_name, ms);
            break;
        }
        wait_output(left);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}
