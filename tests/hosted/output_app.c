/*
 * The program of tests/hosted/output_faults.sh: msamp's output must never block the program, never
 * write into the program's own files, and stop with one message when it fails.
 *
 *   output_app daemon close1023|closeall OWNFILE
 *       The daemon pattern: finds msamp's output descriptor (/proc/self/fd, the path in
 *       MSAMP_OUTPUT), closes 3..1023 (close1023) or every descriptor from 3 up (closeall:
 *       close_range, or up to sysconf(_SC_OPEN_MAX)), opens OWNFILE; with closeall the file is also
 *       put under msamp's old number (dup2), the worst case. Writes known lines into OWNFILE between
 *       allocations for 300 ms (the writer polls every 10 ms), and exits. OWNFILE must then hold
 *       exactly those lines. Prints "msamp_fd N" and "own_fd N".
 *   output_app loop N KEEP [PAUSE]
 *       N malloc+free pairs of 16..1039 bytes, every KEEP-th block kept to the end (0: none); with
 *       PAUSE, a 1 ms sleep every PAUSE pairs.
 *       Prints "mallocs N", "frees N", "loop_ms T" (the loop alone) and "end_ns T" (CLOCK_REALTIME
 *       when main returns; the exit flush runs after it).
 *   output_app peer PORTFILE DELAY_MS OUT      (run with MSAMP_DISABLE=1)
 *       A TCP peer on 127.0.0.1: binds an ephemeral port (a 4 KiB receive buffer when it stalls), writes the
 *       port to PORTFILE, accepts one connection, does not read for DELAY_MS (-1: never; it then
 *       waits to be killed; @FILE: until FILE is not empty, at most 60 s), then reads everything
 *       into OUT until the peer closes. @FILE gates the read on an event, not a time: the slow
 *       consumer of output_faults.sh waits for the program's stdout (written only when its loop
 *       has ended), so the stall spans the whole loop however busy the machine is.
 *   output_app fstat N FILE                    (run with MSAMP_DISABLE=1)
 *       The cost of msamp's descriptor check (one fstat per write): ns per fstat on FILE (created),
 *       a pipe and a TCP socket, per write(2) of 4 KiB to FILE and per getppid (a system call that
 *       does nothing) for comparison, best of 5 runs of N calls each.
 *   output_app fifo PATH DELAY_MS OUT          (run with MSAMP_DISABLE=1)
 *       The same for a FIFO: opens PATH for reading at once, reads nothing for DELAY_MS (-1: never;
 *       @FILE: until FILE is not empty), then copies it into OUT to end of file.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The consumer's stall: DELAY_MS, or "-1" (forever: waits to be killed), or "@FILE" (until FILE
 * holds something, polled every 5 ms, at most 60 s). */
static void stall(const char *delay)
{
    if (delay[0] == '@') {
        struct stat st;
        for (int i = 0; i < 12000; i++) {
            if (stat(delay + 1, &st) == 0 && st.st_size > 0)
                return;
            sleep_ms(5);
        }
        return;
    }
    long ms = atol(delay);
    if (ms < 0)
        for (;;)
            pause();
    sleep_ms(ms);
}

static void die(const char *what)
{
    fprintf(stderr, "output_app: %s: %s\n", what, strerror(errno));
    exit(2);
}

/* The descriptor whose link names path (msamp's output), or -1. Uses no allocator: opendir would
 * call malloc, so the directory is read with getdents64 into a stack buffer. */
static int find_fd(const char *path)
{
    char want[PATH_MAX], link[PATH_MAX], name[64], buf[4096];
    int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int found = -1;
    long n;

    if (realpath(path, want) == NULL || dir < 0)
        return -1;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *d = (void *)(buf + off);
            off += d->reclen;
            if (d->name[0] == '.')
                continue;
            snprintf(name, sizeof name, "/proc/self/fd/%s", d->name);
            ssize_t l = readlink(name, link, sizeof link - 1);
            if (l <= 0)
                continue;
            link[l] = '\0';
            if (strcmp(link, want) == 0 && atoi(d->name) != dir)
                found = atoi(d->name);
        }
    }
    close(dir);
    return found;
}

/* Blocks the optimizer cannot see through, so no allocation is elided. */
static void *volatile sink;

static int daemon_mode(const char *how, const char *own)
{
    const char *out = getenv("MSAMP_OUTPUT");
    int mfd = out != NULL ? find_fd(out) : -1;
    int closeall = strcmp(how, "closeall") == 0;
    char line[128];
    int fd, lines = 0;

    printf("msamp_fd %d\n", mfd);
    fflush(stdout);
    if (mfd < 0) {
        fprintf(stderr, "output_app: msamp's output descriptor not found\n");
        return 2;
    }
    for (int i = 0; i < 50; i++) /* some output before the descriptors go */
        sink = malloc(100 + (size_t)i), free(sink);
    sleep_ms(30);
    if (!closeall) {
        for (int i = 3; i <= 1023; i++)
            close(i);
    } else {
#ifdef SYS_close_range
        if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
        {
            long max = sysconf(_SC_OPEN_MAX);
            for (long i = 3; i < (max > 0 ? max : 65536); i++)
                close((int)i);
        }
    }
    fd = open(own, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(own);
    if (closeall && fd != mfd) {
        if (dup2(fd, mfd) != mfd)
            die("dup2");
        fd = mfd; /* the program's file now has msamp's old number, and writes go through it */
    }
    printf("own_fd %d\n", fd);
    int64_t end = mono_ns() + 300 * 1000000LL;
    while (mono_ns() < end) {
        for (int i = 0; i < 200; i++) {
            sink = malloc(16 + (size_t)(i * 37) % 1000);
            free(sink);
        }
        int n = snprintf(line, sizeof line, "line %d of the program's own file\n", lines++);
        if (write(fd, line, (size_t)n) != n)
            die("write own file");
        sleep_ms(1);
    }
    printf("lines %d\n", lines);
    return 0;
}

static int loop_mode(long n, long keep, long pause)
{
    void **kept = NULL;
    long nkept = 0, mallocs = 0, frees = 0;
    struct timespec rt;

    if (keep > 0) {
        kept = malloc(sizeof *kept * (size_t)(n / keep + 1));
        mallocs++;
        if (kept == NULL)
            die("malloc");
    }
    int64_t t0 = mono_ns();
    for (long i = 0; i < n; i++) {
        if (pause > 0 && i % pause == pause - 1)
            sleep_ms(1);
        void *p = malloc(16 + (size_t)(i * 7919 % 1024));
        mallocs++;
        if (p == NULL)
            die("malloc");
        if (keep > 0 && i % keep == 0) {
            kept[nkept++] = p;
        } else {
            free(p);
            frees++;
        }
    }
    int64_t t1 = mono_ns();
    printf("mallocs %ld\nfrees %ld\nloop_ms %.1f\n", mallocs, frees, (double)(t1 - t0) / 1e6);
    clock_gettime(CLOCK_REALTIME, &rt);
    printf("end_ns %lld\n", (long long)rt.tv_sec * 1000000000LL + rt.tv_nsec);
    fflush(stdout);
    return 0;
}

/* Copies fd to the file out until end of input. */
static void copy_to(int fd, const char *out)
{
    char buf[65536];
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ssize_t r;

    if (o < 0)
        die(out);
    while ((r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            die("read");
        if (write(o, buf, (size_t)r) != r)
            die("write");
    }
    close(o);
}

static int peer_mode(const char *portfile, const char *delay, const char *out)
{
    struct sockaddr_in sa = {0};
    socklen_t len = sizeof sa;
    int small = 4096, one = 1;
    int s = socket(AF_INET, SOCK_STREAM, 0);

    if (s < 0)
        die("socket");
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (strcmp(delay, "0") != 0) /* a consumer that stalls: little room on its side */
        setsockopt(s, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 1) != 0 ||
        getsockname(s, (struct sockaddr *)&sa, &len) != 0)
        die("bind 127.0.0.1");
    FILE *f = fopen(portfile, "w");
    if (f == NULL)
        die(portfile);
    fprintf(f, "%u\n", ntohs(sa.sin_port));
    fclose(f);
    int c = accept(s, NULL, NULL);
    if (c < 0)
        die("accept");
    stall(delay);
    copy_to(c, out);
    return 0;
}

static int fifo_mode(const char *path, const char *delay, const char *out)
{
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        die(path);
    stall(delay);
    copy_to(fd, out);
    return 0;
}

/* Best of 5 runs of n calls of fstat (or 4 KiB writes) on fd, in ns per call. */
static double per_call(int fd, long n, int writes)
{
    static char page[4096];
    double best = 1e30;
    struct stat st;

    for (int r = 0; r < 5; r++) {
        int64_t t0 = mono_ns();
        for (long i = 0; i < n; i++) {
            if (writes == 2)
                (void)syscall(SYS_getppid);
            else if (writes ? pwrite(fd, page, sizeof page, 0) != (ssize_t)sizeof page
                            : fstat(fd, &st) != 0)
                die("fstat/pwrite");
        }
        double ns = (double)(mono_ns() - t0) / (double)n;
        best = ns < best ? ns : best;
    }
    return best;
}

static int fstat_mode(long n, const char *file)
{
    int f = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644), p[2];
    int s = socket(AF_INET, SOCK_STREAM, 0);

    if (f < 0 || pipe(p) != 0 || s < 0)
        die("open/pipe/socket");
    printf("fstat_ns file %.0f pipe %.0f socket %.0f; write_4k_ns file %.0f; getppid_ns %.0f\n",
           per_call(f, n, 0), per_call(p[1], n, 0), per_call(s, n, 0), per_call(f, n / 10 + 1, 1),
           per_call(f, n, 2));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "fstat") == 0)
        return fstat_mode(atol(argv[2]), argv[3]);
    if (argc == 4 && strcmp(argv[1], "daemon") == 0)
        return daemon_mode(argv[2], argv[3]);
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "loop") == 0)
        return loop_mode(atol(argv[2]), atol(argv[3]), argc == 5 ? atol(argv[4]) : 0);
    if (argc == 5 && strcmp(argv[1], "peer") == 0)
        return peer_mode(argv[2], argv[3], argv[4]);
    if (argc == 5 && strcmp(argv[1], "fifo") == 0)
        return fifo_mode(argv[2], argv[3], argv[4]);
    fprintf(stderr, "usage: output_app daemon close1023|closeall OWNFILE | loop N KEEP [PAUSE] |\n"
                    "       peer PORTFILE DELAY_MS OUT | fifo PATH DELAY_MS OUT | fstat N FILE\n");
    return 2;
}
