/* The transport: msamp's stream into MSAMP_OUTPUT's file, FIFO or TCP connection, drained from the
 * core's ring, and flushed at exit within MSAMP_EXIT_TIMEOUT_MS. Nothing here calls malloc:
 * buffers are static.
 *
 * Who drains the ring (MSAMP_FLUSH):
 * - By default, no thread while the program is single-threaded (glibc's __libc_single_threaded):
 *   an extra thread would take glibc off its single-thread fast paths for good (malloc's locks and
 *   atomics), in a program that has none of its own. The allocating thread drains instead, from
 *   msamp_port_ring_notify (the end of each sampled path, inside its reentrancy guard) once the
 *   ring is half full or POLL_MS after the last drain (so a live consumer gets data in a
 *   long-running program), and the exit flushes the rest. The first time a sampled path sees that
 *   the program has a second thread of its own, it starts the writer thread ("msamp-writer"), once;
 *   from then on the writer polls every POLL_MS (at once again while busy) and the allocating
 *   threads only write records into the ring. pthread_create allocates (its DTV; a -static link
 *   wraps those calls): it runs through msamp_unseen (msamp_port.h), so those allocations pass
 *   through unseen instead of counting as reentrant. Without
 *   <sys/single_threaded.h> (not glibc, or glibc before 2.32) the program is taken as
 *   multi-threaded: the writer starts at the first sampled path.
 * - MSAMP_FLUSH=thread: the writer from start-up (the constructor). MSAMP_FLUSH=inline: never a
 *   thread; the allocating threads drain as above for the whole run (one at a time; the others go
 *   on). A writer that cannot be created leaves the drain inline, said once on stderr.
 * - The writer takes no signals, and waits on a condition variable with a timeout, never in a
 *   sleep: the exit wakes it, so a program does not end up to POLL_MS late waiting for it.
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
 *   of waiting; an inline drain retries a stalled output at most once per millisecond. A write
 *   error (full disk, closed socket, FIFO reader gone) stops the output, said once on stderr; the
 *   program runs on.
 * - At exit the rest is flushed for at most MSAMP_EXIT_TIMEOUT_MS (default 1000), waiting for the
 *   consumer to make room; the writer thread is woken and joined with the same deadline. */
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hosted.h"
#include "msamp.h"
#include "msamp_port.h"

#if defined(__has_include)
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define HAVE_SINGLE_THREADED 1
#endif
#endif

/* Whether the program has had only one thread so far (glibc keeps __libc_single_threaded at 0
 * from its first pthread_create on). Unknown: taken as no. */
static int single_threaded(void)
{
#ifdef HAVE_SINGLE_THREADED
    return __libc_single_threaded != 0;
#else
    return 0;
#endif
}

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
static atomic_flag poll_lock = ATOMIC_FLAG_INIT; /* one poller at a time */
static unsigned exit_timeout_ms = 1000;
static int64_t reopen_at;                /* OUT_WAIT_READER: next open attempt (ns) */
static _Atomic int64_t inline_retry_at;  /* inline drain: no poll before this time (ns) */
static _Atomic int64_t inline_due;       /* inline drain: the periodic one is due (coarse ns) */
static int refused;                      /* the last poll left bytes the consumer did not take */

/* The writer thread. writer_state goes NONE -> CREATING -> RUNNING (or FAILED: inline for good)
 * in the one thread that wins the NONE -> CREATING exchange; MSAMP_FLUSH=inline starts at FAILED.
 * The exit moves it to STOPPED (waiting out a CREATING), and a fork child is STOPPED at once. */
enum writer_state { W_NONE, W_CREATING, W_RUNNING, W_FAILED, W_STOPPED };
static _Atomic int writer_state = W_NONE;
static pthread_t writer;
/* The writer waits on writer_cond (CLOCK_MONOTONIC) between polls; the exit sets writer_stop and
 * signals it, both under writer_mutex, so the writer never starts a wait the exit has to sit out. */
static pthread_mutex_t writer_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t writer_cond;
static int writer_cond_ok;
static int writer_stop;

#define REOPEN_NS (50 * 1000 * 1000)     /* FIFO open retries */
#define INLINE_RETRY_NS (1000 * 1000)    /* inline drain: stalled output retried at most every 1 ms */
/* The drain's period: the writer's wait between polls, and the most an inline drain waits for
 * while the ring is less than half full. A test build (tests/hosted/hosted.mk) sets it long, so
 * that an exit that waited for the writer's timeout instead of waking it would show. */
#ifndef MSAMP_HOSTED_POLL_MS
#define MSAMP_HOSTED_POLL_MS 10
#endif
#define POLL_NS ((int64_t)MSAMP_HOSTED_POLL_MS * 1000000)

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The same clock at the kernel tick's resolution (a few ms), cheaper: for the inline drain's
 * period, read at every sampled path. */
static int64_t coarse_ns(void)
{
    struct timespec ts;

#ifdef CLOCK_MONOTONIC_COARSE
    if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0)
#endif
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
 * opens its own files: below 1024 (select's limit) and below the soft limit, `gap` numbers under
 * the lower of the two (a few kept free above it); never a number so large that the kernel grows
 * the descriptor table for it. Returns the descriptor to use (fd itself when it cannot move). */
int msamp_hosted_fd_high(int fd, int gap)
{
    struct rlimit rl;
    long floor = 1024;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (long)rl.rlim_cur < floor)
        floor = (long)rl.rlim_cur;
    floor = floor > 64 ? floor - gap : floor * 3 / 4;
    if (fd < floor) {
        int hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)floor);
        if (hi >= 0) {
            close(fd);
            fd = hi;
        }
    }
    return fd;
}

/* Moves fd high (msamp_hosted_fd_high) and records its identity. 0, or -1 when fstat fails. */
static int adopt_fd(int fd)
{
    struct stat st;

    fd = msamp_hosted_fd_high(fd, 24);
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

/* Commands from MSAMP_CONTROL (hosted_control.c), read by msamp_poll() in the poller below. */
int msamp_transport_read(uint8_t *buf, size_t max)
{
    return msamp_hosted_control_read(buf, max);
}

/* One drain step (or a flush, or with flush 2 the stream's END: msamp_end) and the write of what
 * it produced, under poll_lock. Keeps errno as the application left it. Returns what
 * msamp_poll()/msamp_flush()/msamp_end() returned. */
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
    n = flush == 2 ? msamp_end() : flush ? msamp_flush() : msamp_poll();
    if (!child)
        (void)out_push();
    errno = saved;
    return n;
}

/* Whether the exit asked the writer to stop; otherwise waits until it does or until `until`
 * (CLOCK_MONOTONIC, ns). */
static int writer_wait(int64_t until)
{
    int stop;

    pthread_mutex_lock(&writer_mutex);
    if (until != 0 && writer_cond_ok) {
        struct timespec ts = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
        while (!writer_stop && pthread_cond_timedwait(&writer_cond, &writer_mutex, &ts) != ETIMEDOUT)
            ;
    }
    stop = writer_stop;
    pthread_mutex_unlock(&writer_mutex);
    return stop;
}

static void *writer_main(void *arg)
{
    (void)arg;
    (void)prctl(PR_SET_NAME, "msamp-writer", 0, 0, 0);
    for (;;) {
        int n = 0;

        msamp_hosted_maps_refresh();
        if (!atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire)) {
            n = poll_once(0, 1);
            atomic_flag_clear_explicit(&poll_lock, memory_order_release);
        }
        /* Poll again at once while the allocating threads fill the ring faster than POLL_MS. */
        if (writer_wait(n < MSAMP_CFG_RING_SIZE / 8 ? now_ns() + POLL_NS : 0))
            break;
    }
    return NULL;
}

/* pthread_create of the writer, its result in *(int *)rc: msamp_unseen's call. */
static void create_writer(void *rc)
{
    *(int *)rc = pthread_create(&writer, NULL, writer_main, NULL);
}

/* Starts the writer thread, once (whoever wins writer_state's NONE -> CREATING); 1 when it runs. */
static int start_writer(void)
{
    sigset_t all, old;
    int expected = W_NONE, rc;

    /* The writer takes no signals (it inherits this mask): a handler that allocated while it held
     * the lock would spin forever, since poll does not mark the writer as inside the core. This
     * thread takes none until the state is settled either: an exit from a handler here would wait
     * for CREATING to end. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (!atomic_compare_exchange_strong(&writer_state, &expected, W_CREATING)) {
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return expected == W_RUNNING;
    }
    if (!atomic_load(&msamp_hosted_running) || atomic_load(&in_child)) {
        atomic_store(&writer_state, W_STOPPED);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        return 0;
    }
    /* pthread_create allocates (the new thread's DTV), through the wrappers in a -static link.
     * From msamp_port_ring_notify this thread is inside the core, where such an allocation would
     * be counted as reentrant: made unseen instead (msamp_unseen), with every signal blocked (no
     * handler can allocate in this context meanwhile). */
    msamp_unseen(create_writer, &rc);
    atomic_store(&writer_state, rc == 0 ? W_RUNNING : W_FAILED);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        msamp_hosted_say("msamp: no writer thread (%s); flushing inline\n", strerror(rc), "");
    return rc == 0;
}

void msamp_hosted_output_start(int flush, unsigned exit_ms)
{
    pthread_condattr_t attr;

    exit_timeout_ms = exit_ms;
    if (pthread_condattr_init(&attr) == 0) {
        writer_cond_ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
                         pthread_cond_init(&writer_cond, &attr) == 0;
        pthread_condattr_destroy(&attr);
    }
    if (!writer_cond_ok || flush == MSAMP_HOSTED_FLUSH_INLINE)
        atomic_store(&writer_state, W_FAILED); /* never a writer: it could not be woken */
    else if (flush == MSAMP_HOSTED_FLUSH_THREAD)
        (void)start_writer();
}

/* Called by the core at the end of each sampled path, inside the thread's reentrancy guard. The
 * first one that finds the program multi-threaded starts the writer (lazy mode); until a writer
 * runs, the allocating thread drains the ring once it is half full or POLL_MS after the last
 * drain. While the consumer takes nothing (or no reader is there yet), at most one attempt per
 * millisecond: the others return at once and the core drops what does not fit its ring. */
void msamp_port_ring_notify(uint32_t used, uint32_t size)
{
    int ws = atomic_load_explicit(&writer_state, memory_order_relaxed);

    if (ws == W_RUNNING || !atomic_load_explicit(&msamp_hosted_running, memory_order_relaxed))
        return;
    if (ws == W_NONE && !single_threaded() && start_writer())
        return;
    int64_t t = coarse_ns();
    if (used < size / 2 && t < atomic_load_explicit(&inline_due, memory_order_relaxed))
        return;
    int64_t retry = atomic_load_explicit(&inline_retry_at, memory_order_relaxed);
    if (retry != 0 && now_ns() < retry)
        return;
    if (atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_STOPPED)
        return;
    if (atomic_flag_test_and_set_explicit(&poll_lock, memory_order_acquire))
        return; /* another thread is draining */
    /* A signal handler that allocates while this thread holds the core's lock in msamp_poll() is
     * turned away by the reentrancy guard, not blocked. */
    (void)poll_once(0, 0);
    atomic_store_explicit(&inline_retry_at, refused ? now_ns() + INLINE_RETRY_NS : 0,
                          memory_order_relaxed);
    atomic_store_explicit(&inline_due, t + POLL_NS, memory_order_relaxed);
    atomic_flag_clear_explicit(&poll_lock, memory_order_release);
}

void msamp_hosted_output_forked(void)
{
    atomic_store(&in_child, 1);
    atomic_store(&writer_state, W_STOPPED); /* the writer did not follow into the child */
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

/* Wakes the writer and joins it by deadline (CLOCK_MONOTONIC, ns); a writer that does not end by
 * then (stuck in the kernel) is left behind: the process ends without it. */
static void stop_writer(int64_t deadline)
{
    struct timespec abs;
    int left = ms_left(deadline);

    pthread_mutex_lock(&writer_mutex);
    writer_stop = 1;
    pthread_cond_signal(&writer_cond);
    pthread_mutex_unlock(&writer_mutex);
    clock_gettime(CLOCK_REALTIME, &abs);
    abs.tv_sec += left / 1000;
    abs.tv_nsec += (long)(left % 1000) * 1000000;
    if (abs.tv_nsec >= 1000000000) {
        abs.tv_sec++;
        abs.tv_nsec -= 1000000000;
    }
    if (pthread_timedjoin_np(writer, NULL, &abs) != 0)
        pthread_detach(writer);
}

void msamp_hosted_output_stop(void)
{
    sigset_t all, old;
    int64_t deadline = now_ns() + (int64_t)exit_timeout_ms * 1000000;
    char ms[16];

    snprintf(ms, sizeof ms, "%u", exit_timeout_ms);
    /* No writer starts from now on; one being created is waited for (its creator blocks signals
     * meanwhile, and pthread_create does not wait for anything of the exit's). */
    for (;;) {
        int ws = atomic_load(&writer_state);

        if (ws == W_CREATING) {
            if (ms_left(deadline) == 0)
                break;
            sched_yield();
            continue;
        }
        if (atomic_compare_exchange_strong(&writer_state, &ws, W_STOPPED)) {
            if (ws == W_RUNNING)
                stop_writer(deadline);
            break;
        }
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
    /* Then END (msamp_end), once the pass is out: the stream's last record, which tells the reader
     * the stream is whole. A stream cut short by the deadline has none. */
    int ended = 0;
    for (unsigned i = 0; i <= rounds;) {
        int rc = poll_once(i < rounds ? 1 : ended ? 1 : 2, 1);
        if (atomic_load_explicit(&out_state, memory_order_relaxed) == OUT_STOPPED ||
            atomic_load_explicit(&in_child, memory_order_relaxed))
            break;
        if (i == rounds && rc != MSAMP_ERR_BUSY)
            ended = 1;
        if (!refused && out_off == out_len && (i < rounds || ended)) {
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
