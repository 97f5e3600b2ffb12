/* A full disk for the PostgreSQL server of tests/fleet/t_fleet.sh (LD_PRELOAD into it): once the
 * file named by ENOSPC_TRIGGER exists, writes that extend or fill a relation's file (a path with
 * "/base/" in it: tables, indexes, TOAST; not the WAL, whose failure is the server's PANIC) fail
 * with ENOSPC, as on a full disk. Before that, and for every other file, the real calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int full(int fd)
{
    const char *t = getenv("ENOSPC_TRIGGER");
    struct stat st;
    if (!t || stat(t, &st) != 0)
        return 0;
    char link[64], path[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    if (n <= 0)
        return 0;
    path[n] = 0;
    if (!strstr(path, "/base/"))
        return 0;
    errno = ENOSPC;
    return 1;
}

#define REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void *b, size_t n)
{
    return full(fd) ? -1 : REAL(write)(fd, b, n);
}
ssize_t pwrite(int fd, const void *b, size_t n, off_t o)
{
    return full(fd) ? -1 : REAL(pwrite)(fd, b, n, o);
}
ssize_t pwrite64(int fd, const void *b, size_t n, off64_t o)
{
    return full(fd) ? -1 : REAL(pwrite64)(fd, b, n, o);
}
ssize_t pwritev(int fd, const struct iovec *v, int n, off_t o)
{
    return full(fd) ? -1 : REAL(pwritev)(fd, v, n, o);
}
int posix_fallocate(int fd, off_t o, off_t n)
{
    return full(fd) ? ENOSPC : REAL(posix_fallocate)(fd, o, n);
}
int fallocate(int fd, int mode, off_t o, off_t n)
{
    return full(fd) ? -1 : REAL(fallocate)(fd, mode, o, n);
}
