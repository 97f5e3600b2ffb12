#include "input/input.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "input/rttprobe.h"
#include "util.h"

static const char *gdb_elf, *gdb_scan;

void input_gdb_options(const char *elf, const char *rtt_scan)
{
    gdb_elf = elf;
    gdb_scan = rtt_scan;
}

/* A socket is written with send(MSG_NOSIGNAL): a peer gone away is an error, not a SIGPIPE. */
static ssize_t send_or_write(struct input *in, const void *p, size_t n)
{
    return in->is_sock ? send(in->fd, p, n, MSG_NOSIGNAL) : write(in->fd, p, n);
}

static const struct {
    long rate;
    speed_t code;
} bauds[] = {
    {1200, B1200},       {2400, B2400},       {4800, B4800},       {9600, B9600},
    {19200, B19200},     {38400, B38400},     {57600, B57600},     {115200, B115200},
    {230400, B230400},   {460800, B460800},   {500000, B500000},   {576000, B576000},
    {921600, B921600},   {1000000, B1000000}, {1152000, B1152000}, {1500000, B1500000},
    {2000000, B2000000}, {2500000, B2500000}, {3000000, B3000000}, {3500000, B3500000},
    {4000000, B4000000},
};

static int baud_code(long baud, speed_t *code)
{
    for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
        if (bauds[i].rate == baud) {
            *code = bauds[i].code;
            return 0;
        }
    }
    return -1;
}

int input_baud_ok(long baud)
{
    speed_t c;
    return baud_code(baud, &c) == 0;
}

/* Splits HOST:PORT (HOST may be "[v6 address]") at its last colon into host and port. 0, or -1
 * when there is no colon, no host or no port. */
static int split_host_port(const char *hp, char *host, size_t hostlen, const char **port)
{
    const char *colon = strrchr(hp, ':');
    if (!colon || colon == hp || !colon[1])
        return -1;
    size_t hl = (size_t)(colon - hp);
    if (hl >= hostlen)
        return -1;
    memcpy(host, hp, hl);
    host[hl] = 0;
    if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = 0;
    }
    *port = colon + 1;
    return 0;
}

static int open_tcp(struct input *in, const char *spec, char *err, size_t errlen)
{
    char host[256];
    const char *port;
    if (split_host_port(spec + 4, host, sizeof(host), &port) != 0) {
        snprintf(err, errlen, "%s: expected tcp:HOST:PORT", spec);
        return -2;
    }
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "%s: %s", spec, gai_strerror(gai));
        return -1;
    }
    int fd = -1, e = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        e = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", spec, strerror(e));
        return -1;
    }
    in->fd = fd;
    in->is_sock = 1;
    return 0;
}

/* A socket address as "A.B.C.D:PORT" or "[v6]:PORT". */
static void addr_text(const struct sockaddr *sa, socklen_t len, char *out, size_t outlen)
{
    char h[INET6_ADDRSTRLEN + 8], p[16];
    if (getnameinfo(sa, len, h, sizeof(h), p, sizeof(p), NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
        snprintf(out, outlen, "?");
        return;
    }
    snprintf(out, outlen, sa->sa_family == AF_INET6 ? "[%s]:%s" : "%s:%s", h, p);
}

/* tcp-listen:PORT or tcp-listen:HOST:PORT: binds (HOST, default 127.0.0.1: never a wider address
 * than asked) and listens; the connection is accepted by input_read. */
static int open_listen(struct input *in, const char *spec, char *err, size_t errlen)
{
    const char *hp = spec + strlen("tcp-listen:");
    char host[256] = "127.0.0.1";
    const char *port = hp;
    if (strchr(hp, ':') && split_host_port(hp, host, sizeof(host), &port) != 0) {
        snprintf(err, errlen, "%s: expected tcp-listen:PORT or tcp-listen:HOST:PORT", spec);
        return -2;
    }
    size_t pl = strlen(port);
    if (pl == 0 || pl > 5 || strspn(port, "0123456789") != pl || atol(port) > 65535) {
        snprintf(err, errlen,
                 "%s: expected tcp-listen:PORT or tcp-listen:HOST:PORT, PORT a number from 0 "
                 "to 65535 (0: any free port)",
                 spec);
        return -2;
    }
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "%s: %s: %s", spec, host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, e = 0;
    char addr[128] = "?";
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        addr_text(a->ai_addr, a->ai_addrlen, addr, sizeof(addr));
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        /* A port left in TIME_WAIT by a previous run can be bound again; one another program
         * listens on cannot (EADDRINUSE). An IPv6 address is that address only. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (a->ai_family == AF_INET6)
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 1) == 0)
            break;
        /* The address asked for is taken or refused: no other address of HOST instead. */
        e = errno;
        close(fd);
        fd = -1;
        break;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot listen on %s: %s%s", spec, addr, strerror(e),
                 e == EADDRINUSE ? " (another program, or another drain, has the port)" : "");
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        snprintf(err, errlen, "%s: getsockname: %s", spec, strerror(errno));
        close(fd);
        return -1;
    }
    addr_text((struct sockaddr *)&ss, sl, in->where, sizeof(in->where));
    in->listen_fd = fd;
    in->is_sock = 1;
    return 0;
}

/* Waits (at most timeout_ms, less when wake_fd becomes readable) for a connection on the
 * listening socket and accepts it. 1 when one was accepted, 0 when none yet, -2 on error. */
static int accept_one(struct input *in, int timeout_ms, char *err, size_t errlen)
{
    struct pollfd pfd[2] = {{in->listen_fd, POLLIN, 0}, {in->wake_fd, POLLIN, 0}};
    int r = poll(pfd, in->wake_fd >= 0 ? 2 : 1, timeout_ms);
    if (r < 0 && errno != EINTR) {
        snprintf(err, errlen, "%s: poll: %s", in->desc, strerror(errno));
        return -2;
    }
    if (r <= 0 || !pfd[0].revents)
        return 0;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    int fd = accept4(in->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
    if (fd < 0) {
        /* A client gone before it was accepted, or a signal: wait on. */
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED ||
            errno == EPROTO || errno == EPERM)
            return 0;
        snprintf(err, errlen, "%s: accept: %s", in->desc, strerror(errno));
        return -2;
    }
    char peer[128];
    addr_text((struct sockaddr *)&ss, sl, peer, sizeof(peer));
    in->fd = fd;
    in->off = 0;
    in->connections++;
    if (!in->follow) {
        /* One connection: later clients are refused instead of waiting unread in the backlog. */
        close(in->listen_fd);
        in->listen_fd = -1;
    }
    snprintf(in->notice, sizeof(in->notice), "%s: connection %d from %s", in->desc,
             in->connections, peer);
    in->announce = 1;
    return 1;
}

static int setup_tty(struct input *in, const char *path, long baud, char *err, size_t errlen)
{
    if (flock(in->fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen, "%s: device busy (another program has it open)", path);
        return -1;
    }
    struct termios t;
    speed_t code;
    if (baud_code(baud, &code) != 0) {
        snprintf(err, errlen, "unsupported baud rate %ld", baud);
        return -1;
    }
    if (tcgetattr(in->fd, &t) != 0) {
        snprintf(err, errlen, "%s: tcgetattr: %s", path, strerror(errno));
        return -1;
    }
    cfmakeraw(&t);
    t.c_cflag |= CLOCAL | CREAD;
    t.c_cc[VMIN] = 1;
    t.c_cc[VTIME] = 0;
    if (cfsetispeed(&t, code) != 0 || cfsetospeed(&t, code) != 0 ||
        tcsetattr(in->fd, TCSANOW, &t) != 0) {
        snprintf(err, errlen, "%s: cannot set raw mode at %ld baud: %s", path, baud,
                 strerror(errno));
        return -1;
    }
    ioctl(in->fd, TIOCEXCL);
    return 0;
}

int input_open(struct input *in, const char *spec, long baud, int follow, char *err,
               size_t errlen)
{
    memset(in, 0, sizeof(*in));
    in->fd = -1;
    in->wake_fd = -1;
    in->listen_fd = -1;
    snprintf(in->desc, sizeof(in->desc), "%s", spec);
    if (strcmp(spec, "-") == 0) {
        in->fd = 0;
        snprintf(in->desc, sizeof(in->desc), "stdin");
        return 0;
    }
    if (strncmp(spec, "tcp:", 4) == 0)
        return open_tcp(in, spec, err, errlen);
    if (strncmp(spec, "gdb:", 4) == 0) {
        int usage = 0;
        in->rtt = rtt_open(spec, gdb_elf, gdb_scan, &usage, err, errlen);
        return in->rtt ? 0 : usage ? -2 : -1;
    }
    if (strncmp(spec, "tcp-listen:", 11) == 0) {
        in->follow = follow;
        return open_listen(in, spec, err, errlen);
    }
    struct stat st;
    if (stat(spec, &st) != 0) {
        if (errno == ENOENT && follow) {
            /* Followed: the writer may start after drain (tail -F). Opened once it appears. */
            in->path = xstrndup(spec, strlen(spec));
            in->is_file = 1;
            in->follow = 1;
            in->awaiting = 1;
            snprintf(in->notice, sizeof(in->notice), "%s: does not exist yet: waiting for it",
                     spec);
            in->announce = 1;
            return 0;
        }
        snprintf(err, errlen, "%s: %s", spec, strerror(errno));
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: is a directory", spec);
        return -1;
    }
    if (S_ISCHR(st.st_mode)) {
        in->fd = open(spec, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (in->fd < 0) {
            snprintf(err, errlen, "%s: %s%s", spec, strerror(errno),
                     errno == EBUSY ? " (device busy)" : "");
            return -1;
        }
        if (isatty(in->fd)) {
            in->is_tty = 1;
            if (setup_tty(in, spec, baud, err, errlen) != 0) {
                close(in->fd);
                in->fd = -1;
                return -1;
            }
        }
        return 0;
    }
    in->fd = open(spec, O_RDONLY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0));
    if (in->fd < 0) {
        snprintf(err, errlen, "%s: %s", spec, strerror(errno));
        return -1;
    }
    in->is_file = S_ISREG(st.st_mode);
    in->follow = follow && in->is_file;
    if (in->follow) {
        struct stat fst;
        if (fstat(in->fd, &fst) != 0) {
            snprintf(err, errlen, "%s: %s", spec, strerror(errno));
            close(in->fd);
            in->fd = -1;
            return -1;
        }
        in->path = xstrndup(spec, strlen(spec));
        in->dev = fst.st_dev;
        in->ino = fst.st_ino;
    }
    return 0;
}

/* Waits up to ms milliseconds, or until wake_fd is readable. */
static void nap(const struct input *in, int ms)
{
    if (in->wake_fd >= 0) {
        struct pollfd pfd = {in->wake_fd, POLLIN, 0};
        poll(&pfd, 1, ms);
    } else {
        struct timespec ts = {0, (long)ms * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* A followed file at its end: was it truncated, or does its path now name another file? Either
 * way the input starts over (restarted); 1 when it did. */
static int follow_check(struct input *in)
{
    struct stat st;
    if (fstat(in->fd, &st) == 0 && st.st_size < in->off) {
        if (lseek(in->fd, 0, SEEK_SET) == 0) {
            snprintf(in->notice, sizeof(in->notice),
                     "%s: truncated (%lld bytes, %lld were read): reading it from the start",
                     in->desc, (long long)st.st_size, (long long)in->off);
            in->off = 0;
            in->restarted = 1;
            return 1;
        }
    }
    /* Rotated (renamed away, a new file created) or replaced (renamed over): the old file was
     * read to its end, so the new one is read from its start. A path that does not exist (yet),
     * or is not a regular file, keeps the old file followed. */
    if (stat(in->path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (st.st_dev == in->dev && st.st_ino == in->ino))
        return 0;
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    struct stat fst;
    if (fd < 0 || fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
        if (fd >= 0)
            close(fd);
        return 0; /* gone again, or not readable yet: try at the next end of file */
    }
    close(in->fd);
    in->fd = fd;
    in->dev = fst.st_dev;
    in->ino = fst.st_ino;
    snprintf(in->notice, sizeof(in->notice),
             "%s: replaced by another file (rotated or renamed over, %lld bytes read of the old "
             "one): reading the new one from the start",
             in->desc, (long long)in->off);
    in->off = 0;
    in->restarted = 1;
    return 1;
}

/* The end of a tcp-listen input's connection: followed, it waits for the next one. 1 when it
 * does, 0 when the input ends. */
static int end_connection(struct input *in)
{
    if (in->listen_fd < 0)
        return 0;
    close(in->fd);
    in->fd = -1;
    snprintf(in->notice, sizeof(in->notice),
             "%s: connection %d closed (%lld bytes): waiting for the next one on %s", in->desc,
             in->connections, (long long)in->off, in->where);
    in->restarted = 1;
    return 1;
}

/* A followed path that did not exist: 1 once it is open. */
static int await_file(struct input *in, int timeout_ms)
{
    int fd = open(in->path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        in->fd = fd;
        in->dev = st.st_dev;
        in->ino = st.st_ino;
        in->awaiting = 0;
        snprintf(in->notice, sizeof(in->notice), "%s: appeared: following it", in->desc);
        in->announce = 1;
        return 1;
    }
    if (fd >= 0)
        close(fd);
    nap(in, timeout_ms < 50 ? timeout_ms : 50);
    return 0;
}

ssize_t input_read(struct input *in, void *buf, size_t len, int timeout_ms, char *err,
                   size_t errlen)
{
    if (in->rtt) {
        ssize_t n = rtt_read(in->rtt, buf, len, timeout_ms, in->wake_fd, in->notice,
                             sizeof(in->notice), err, errlen);
        if (n == -1)
            in->announce = 1;
        if (n > 0)
            in->off += n;
        return n;
    }
    if (in->fd < 0 && in->awaiting) {
        (void)await_file(in, timeout_ms);
        return 0;
    }
    if (in->fd < 0) {
        if (in->listen_fd < 0)
            return -1;
        int r = accept_one(in, timeout_ms, err, errlen);
        return r < 0 ? -2 : 0;
    }
    if (!in->is_file) {
        struct pollfd pfd[2] = {{in->fd, POLLIN, 0}, {in->wake_fd, POLLIN, 0}};
        int r = poll(pfd, in->wake_fd >= 0 ? 2 : 1, timeout_ms);
        if (r < 0)
            return errno == EINTR ? 0 : (snprintf(err, errlen, "%s: poll: %s", in->desc,
                                                  strerror(errno)),
                                         -2);
        if (r == 0 || !pfd[0].revents)
            return 0;
    }
    ssize_t n = read(in->fd, buf, len);
    if (n > 0) {
        in->off += n;
        return n;
    }
    /* A peer that reset the connection (a program killed with unread data on its socket) has
     * ended it, as one that closed it. */
    if (n == 0 || (n < 0 && errno == ECONNRESET && in->is_sock)) {
        if (in->is_sock)
            return end_connection(in) ? 0 : -1;
        if (!in->follow)
            return -1;
        if (follow_check(in))
            return 0;
        /* A followed file has no more bytes yet: wait a little, like tail -f. */
        nap(in, timeout_ms < 50 ? timeout_ms : 50);
        return 0;
    }
    if (errno == EINTR || errno == EAGAIN)
        return 0;
    if (errno == EIO && in->is_tty)
        return -1; /* the other end hung up */
    snprintf(err, errlen, "%s: read: %s", in->desc, strerror(errno));
    return -2;
}

ssize_t input_write(struct input *in, const void *buf, size_t len, char *err, size_t errlen)
{
    if (in->rtt)
        return rtt_write(in->rtt, buf, len, err, errlen);
    if (!in->is_tty && !in->is_sock) {
        snprintf(err, errlen, "%s: cannot send to the device (not a tty or a TCP connection)",
                 in->desc);
        return -2;
    }
    if (in->fd < 0)
        return 0;
    const unsigned char *p = buf;
    size_t done = 0;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (done < len) {
        ssize_t n = send_or_write(in, p + done, len - done);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(err, errlen, "%s: write: %s", in->desc, strerror(errno));
            return -2;
        }
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= 1000) {
            snprintf(err, errlen, "%s: write: timed out after 1 s", in->desc);
            return -2;
        }
        struct pollfd pfd = {.fd = in->fd, .events = POLLOUT};
        (void)poll(&pfd, 1, (int)(1000 - ms));
    }
    return (ssize_t)len;
}

void input_close(struct input *in)
{
    rtt_close(in->rtt);
    in->rtt = NULL;
    if (in->fd > 0)
        close(in->fd);
    in->fd = -1;
    if (in->listen_fd >= 0)
        close(in->listen_fd);
    in->listen_fd = -1;
    free(in->path);
    in->path = NULL;
}
