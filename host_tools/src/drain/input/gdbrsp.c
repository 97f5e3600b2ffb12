#include "input/gdbrsp.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* One byte from the server, waiting until deadline (ms, CLOCK_MONOTONIC). 0..255, or GDB_GONE,
 * GDB_ERR (timeout or error: message in err). wake_fd readable: returns -3. */
static int get_byte(struct gdb *g, long long deadline, int wake_fd, char *err, size_t errlen)
{
    while (g->in_pos == g->in_len) {
        long long left = deadline - now_ms();
        if (left <= 0) {
            snprintf(err, errlen, "the GDB server sent no reply in %d ms", g->timeout_ms);
            return GDB_ERR;
        }
        struct pollfd pfd[2] = {{g->fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
        int r = poll(pfd, wake_fd >= 0 ? 2 : 1, left > 1000 ? 1000 : (int)left);
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            return GDB_ERR;
        }
        if (r > 0 && wake_fd >= 0 && pfd[1].revents)
            return -3;
        if (r <= 0 || !pfd[0].revents)
            continue;
        ssize_t n = recv(g->fd, g->in, sizeof(g->in), 0);
        if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE)))
            return GDB_GONE;
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            snprintf(err, errlen, "read: %s", strerror(errno));
            return GDB_ERR;
        }
        g->in_len = (size_t)n;
        g->in_pos = 0;
    }
    return g->in[g->in_pos++];
}

static int send_all(struct gdb *g, const void *p, size_t n, char *err, size_t errlen)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(g->fd, c, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EPIPE || errno == ECONNRESET))
            return GDB_GONE;
        if (w <= 0) {
            snprintf(err, errlen, "write: %s", strerror(errno));
            return GDB_ERR;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Receives one packet into g->pkt (run-length decoded), acknowledging it. Notifications (%...)
 * and stray acknowledgements are skipped. */
static int recv_packet_until(struct gdb *g, long long deadline, int wake_fd, char *err,
                             size_t errlen)
{
    static char raw[GDB_PKT_MAX + 1];
    for (int tries = 0;; tries++) {
        int c;
        do {
            c = get_byte(g, deadline, wake_fd, err, errlen);
            if (c < 0)
                return c;
        } while (c != '$' && c != '%');
        int notification = c == '%';
        size_t n = 0;
        unsigned sum = 0;
        for (;;) {
            c = get_byte(g, deadline, wake_fd, err, errlen);
            if (c == -3)
                c = get_byte(g, deadline, -1, err, errlen); /* mid-packet: finish it */
            if (c < 0)
                return c;
            if (c == '#')
                break;
            if (n == GDB_PKT_MAX) {
                snprintf(err, errlen, "the GDB server sent a packet over %d bytes", GDB_PKT_MAX);
                return GDB_ERR;
            }
            raw[n++] = (char)c;
            sum += (unsigned)c;
        }
        int h1 = get_byte(g, deadline, -1, err, errlen);
        if (h1 < 0)
            return h1;
        int h2 = get_byte(g, deadline, -1, err, errlen);
        if (h2 < 0)
            return h2;
        if (notification)
            continue;
        if (hexval(h1) < 0 || hexval(h2) < 0 ||
            (unsigned)(hexval(h1) * 16 + hexval(h2)) != (sum & 0xffu)) {
            if (g->noack) {
                snprintf(err, errlen, "the GDB server sent a packet with a bad checksum");
                return GDB_ERR;
            }
            if (tries >= 4) {
                snprintf(err, errlen,
                         "the GDB server sent 5 packets in a row with a bad checksum (a noisy "
                         "link, or not a GDB server)");
                return GDB_ERR;
            }
            int r = send_all(g, "-", 1, err, errlen);
            if (r)
                return r;
            continue;
        }
        if (!g->noack) {
            int r = send_all(g, "+", 1, err, errlen);
            if (r)
                return r;
        }
        /* Run-length decoding: X*N repeats X N-29 more times. */
        size_t out = 0;
        for (size_t i = 0; i < n; i++) {
            if (raw[i] == '*' && out > 0 && i + 1 < n) {
                int rep = (unsigned char)raw[++i] - 29;
                if (rep < 3 || rep > 97 || out + (size_t)rep > GDB_PKT_MAX) {
                    snprintf(err, errlen, "the GDB server sent a bad run-length encoding");
                    return GDB_ERR;
                }
                memset(g->pkt + out, g->pkt[out - 1], (size_t)rep);
                out += (size_t)rep;
            } else {
                if (out == GDB_PKT_MAX) {
                    snprintf(err, errlen, "the GDB server sent a packet over %d bytes",
                             GDB_PKT_MAX);
                    return GDB_ERR;
                }
                g->pkt[out++] = raw[i];
            }
        }
        g->pkt[out] = 0;
        g->pkt_len = out;
        return 0;
    }
}

static int recv_packet(struct gdb *g, char *err, size_t errlen)
{
    return recv_packet_until(g, now_ms() + g->timeout_ms, -1, err, errlen);
}

/* Sends $payload#cs and, unless in no-ack mode, waits for its '+' (resending on '-'). */
static int send_packet(struct gdb *g, const char *payload, char *err, size_t errlen)
{
    size_t n = strlen(payload);
    char *buf = malloc(n + 5);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return GDB_ERR;
    }
    unsigned sum = 0;
    buf[0] = '$';
    for (size_t i = 0; i < n; i++)
        sum += (unsigned char)payload[i];
    memcpy(buf + 1, payload, n);
    snprintf(buf + 1 + n, 4, "#%02x", sum & 0xffu);
    int r = 0;
    g->packets++;
    for (int tries = 0;; tries++) {
        r = send_all(g, buf, n + 4, err, errlen);
        if (r || g->noack)
            break;
        long long deadline = now_ms() + g->timeout_ms;
        int c;
        do {
            c = get_byte(g, deadline, -1, err, errlen);
        } while (c >= 0 && c != '+' && c != '-');
        if (c < 0) {
            r = c;
            break;
        }
        if (c == '+')
            break;
        if (tries >= 4) {
            snprintf(err, errlen, "the GDB server refused a packet 5 times ('-')");
            r = GDB_ERR;
            break;
        }
    }
    free(buf);
    return r;
}

/* A request and its reply (in g->pkt). */
static int transact(struct gdb *g, const char *payload, char *err, size_t errlen)
{
    int r = send_packet(g, payload, err, errlen);
    return r ? r : recv_packet(g, err, errlen);
}

/* A stop reply in g->pkt: 0 stopped (S, T), GDB_EXITED (W, X), 1 for console output (O), GDB_ERR
 * for anything else. */
static int stop_reply(struct gdb *g, char *err, size_t errlen)
{
    char k = g->pkt[0];
    if (k == 'S' || k == 'T') {
        g->running = 0;
        return 0;
    }
    if (k == 'W' || k == 'X') {
        g->running = 0;
        g->exit_kind = k;
        g->exit_code = (int)strtol(g->pkt + 1, NULL, 16);
        return GDB_EXITED;
    }
    if (k == 'O' && g->pkt_len > 1)
        return 2;
    snprintf(err, errlen, "the GDB server sent \"%.40s\" where a stop reply was expected",
             g->pkt);
    return GDB_ERR;
}

int gdb_connect(struct gdb *g, const char *host, const char *port, int timeout_ms, char *err,
                size_t errlen)
{
    memset(g, 0, sizeof(*g));
    g->fd = -1;
    g->timeout_ms = timeout_ms;
    g->mem_chunk = 256;
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, port, &hints, &res);
    if (gai != 0) {
        snprintf(err, errlen, "%s:%s: %s", host, port, gai_strerror(gai));
        return GDB_ERR;
    }
    int e = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        g->fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (g->fd < 0) {
            e = errno;
            continue;
        }
        if (connect(g->fd, a->ai_addr, a->ai_addrlen) == 0) {
            /* Small packets and their acknowledgements, each awaited: without this, Nagle's
             * algorithm and the peer's delayed ACK cost 40 ms a request. */
            int one = 1;
            setsockopt(g->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
            break;
        }
        e = errno;
        close(g->fd);
        g->fd = -1;
    }
    freeaddrinfo(res);
    if (g->fd < 0) {
        snprintf(err, errlen, "%s:%s: %s", host, port, strerror(e));
        return GDB_ERR;
    }
    char sub[512];
    int r = transact(g, "qSupported:multiprocess-;swbreak+;hwbreak+;vContSupported+", sub,
                     sizeof(sub));
    if (r) {
        snprintf(err, errlen, "%s:%s: no GDB server answered (qSupported): %s", host, port,
                 r == GDB_GONE ? "it closed the connection" : sub);
        return r == GDB_GONE ? GDB_ERR : r;
    }
    const char *ps = strstr(g->pkt, "PacketSize=");
    if (ps) {
        unsigned long size = strtoul(ps + 11, NULL, 16);
        /* An m reply carries two hex digits a byte; an M request has its header too. */
        if (size >= 64)
            g->mem_chunk = (size - 48) / 2 > 2048 ? 2048 : (size - 48) / 2;
    }
    if (strstr(g->pkt, "QStartNoAckMode+")) {
        r = transact(g, "QStartNoAckMode", err, errlen);
        if (r)
            return r;
        if (strcmp(g->pkt, "OK") == 0)
            g->noack = 1;
    }
    r = transact(g, "vCont?", err, errlen);
    if (r)
        return r;
    g->vcont = strncmp(g->pkt, "vCont", 5) == 0 && strstr(g->pkt, ";c") != NULL;
    r = transact(g, "?", err, errlen);
    if (r)
        return r;
    r = stop_reply(g, err, errlen);
    return r == 2 ? (snprintf(err, errlen, "the GDB server answered ? with console output"),
                     GDB_ERR)
                  : r;
}

/* Waits for the stop reply that follows an interrupt or comes while running. */
static int wait_stop(struct gdb *g, long long deadline, int wake_fd, char *err, size_t errlen)
{
    for (;;) {
        int r = recv_packet_until(g, deadline, wake_fd, err, errlen);
        if (r)
            return r;
        r = stop_reply(g, err, errlen);
        if (r != 2)
            return r;
    }
}

int gdb_halt(struct gdb *g, char *err, size_t errlen)
{
    if (!g->running)
        return 0;
    int r = send_all(g, "\x03", 1, err, errlen);
    if (r)
        return r;
    g->halts++;
    r = wait_stop(g, now_ms() + g->timeout_ms, -1, err, errlen);
    if (r == GDB_ERR && strstr(err, "no reply"))
        snprintf(err, errlen, "the target did not stop within %d ms of an interrupt",
                 g->timeout_ms);
    return r;
}

int gdb_resume(struct gdb *g, char *err, size_t errlen)
{
    if (g->running)
        return 0;
    int r = send_packet(g, g->vcont ? "vCont;c" : "c", err, errlen);
    if (r == 0)
        g->running = 1;
    return r;
}

int gdb_wait_running(struct gdb *g, int timeout_ms, int wake_fd, char *err, size_t errlen)
{
    if (!g->running)
        return 0;
    long long deadline = now_ms() + timeout_ms;
    if (g->in_pos == g->in_len) {
        struct pollfd pfd[2] = {{g->fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
        int r = poll(pfd, wake_fd >= 0 ? 2 : 1, timeout_ms);
        if (r <= 0 || !pfd[0].revents)
            return 0;
    }
    /* Something came: a stop reply (or the connection closing). */
    int r = wait_stop(g, deadline + g->timeout_ms, -1, err, errlen);
    return r;
}

int gdb_read_mem(struct gdb *g, uint64_t addr, void *buf, size_t len, char *err, size_t errlen)
{
    unsigned char *out = buf;
    for (size_t done = 0; done < len;) {
        size_t n = len - done < g->mem_chunk ? len - done : g->mem_chunk;
        char req[64];
        snprintf(req, sizeof(req), "m%llx,%zx", (unsigned long long)(addr + done), n);
        int r = transact(g, req, err, errlen);
        if (r)
            return r;
        if (g->pkt_len != 2 * n) {
            if (g->pkt[0] == 'E' || g->pkt_len == 0)
                snprintf(err, errlen, "cannot read %zu bytes of target memory at 0x%llx (%s)", n,
                         (unsigned long long)(addr + done), g->pkt_len ? g->pkt : "no reply");
            else
                snprintf(err, errlen,
                         "the GDB server answered a read of %zu bytes at 0x%llx with %zu "
                         "characters (\"%.20s\")",
                         n, (unsigned long long)(addr + done), g->pkt_len, g->pkt);
            return GDB_ERR;
        }
        for (size_t i = 0; i < n; i++) {
            int hi = hexval(g->pkt[2 * i]), lo = hexval(g->pkt[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                snprintf(err, errlen, "the GDB server answered a memory read with non-hex \"%.20s\"",
                         g->pkt);
                return GDB_ERR;
            }
            out[done + i] = (unsigned char)(hi * 16 + lo);
        }
        done += n;
        g->bytes_read += n;
    }
    return 0;
}

int gdb_write_mem(struct gdb *g, uint64_t addr, const void *buf, size_t len, char *err,
                  size_t errlen)
{
    const unsigned char *in = buf;
    char *req = malloc(64 + 2 * g->mem_chunk);
    if (!req) {
        snprintf(err, errlen, "out of memory");
        return GDB_ERR;
    }
    int r = 0;
    for (size_t done = 0; done < len && r == 0;) {
        size_t n = len - done < g->mem_chunk ? len - done : g->mem_chunk;
        int k = snprintf(req, 64, "M%llx,%zx:", (unsigned long long)(addr + done), n);
        for (size_t i = 0; i < n; i++)
            snprintf(req + k + 2 * i, 3, "%02x", in[done + i]);
        r = transact(g, req, err, errlen);
        if (r == 0 && strcmp(g->pkt, "OK") != 0) {
            snprintf(err, errlen, "cannot write %zu bytes of target memory at 0x%llx (%.20s)", n,
                     (unsigned long long)(addr + done), g->pkt_len ? g->pkt : "empty reply");
            r = GDB_ERR;
        }
        done += n;
        g->bytes_written += n;
    }
    free(req);
    return r;
}

void gdb_close(struct gdb *g)
{
    if (g->fd >= 0) {
        /* Leave the target running, as a debugger that detaches does. */
        char e[64];
        g->timeout_ms = g->timeout_ms < 500 ? g->timeout_ms : 500;
        if (!g->running && !g->exit_kind)
            (void)send_packet(g, "D", e, sizeof(e));
        close(g->fd);
    }
    g->fd = -1;
}
