/* The unheld bytes' truth (tests/hosted/unheld.sh, docs/HEALTH.md "glibc: the walk's budget"): a
 * program whose heap (tens of MB) is far over the walk's budget, so that every HEAP record past
 * start-up carries the total alone (the private resident bytes). It moves its live set through
 * PHASES levels (blocks of 64 B to 256 KiB, every byte written: resident), and at each level holds
 * still for 1.3 s between two marks, "still K" and "move K", with no allocation: the writer thread
 * (MSAMP_FLUSH=thread) polls, and a HEAP record between the marks reads the heap as it stands. For
 * each level it writes to argv[2] "K live=L resident=R": its live requested bytes (the only
 * allocations the process holds but a few of glibc's) and its private resident bytes from
 * /proc/self/statm as the still part starts (the record's own total is read a little later). No
 * allocation outside the phases' own: the file through open/write, the text on the stack.
 * Usage: unheld_app SEED FILE (SEED varies the levels and the sizes). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "msamp.h"

#define PHASES 8
#define MAXB 60000

static void *blk[MAXB];
static size_t sz[MAXB];
static size_t nb;
/* Mostly small blocks (64-4159 B), one in 64 a large one (64-256 KiB; glibc mmaps those over its
 * threshold). lrand48: no allocation. */
static size_t draw_size(void)
{
    long x = lrand48();
    return x % 64 == 0 ? 65536 + (size_t)(x >> 6) % 196608 : 64 + (size_t)(x >> 6) % 4096;
}

/* The private resident bytes, read here on their own (the truth is not the port's code). */
static size_t private_resident(void)
{
    char b[160] = "";
    unsigned long size, res, shared;
    int fd = open("/proc/self/statm", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof(b) - 1);
    if (fd >= 0)
        close(fd);
    int ok = n > 0 && sscanf(b, "%lu %lu %lu", &size, &res, &shared) == 3 && res >= shared;
    return ok ? (size_t)(res - shared) * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

static void mark(const char *what, int k)
{
    char t[32];
    int n = snprintf(t, sizeof(t), "%s %d", what, k);
    msamp_mark(t, (size_t)n);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    srand48(strtol(argv[1], NULL, 10));
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    size_t live = 0;
    for (int k = 0; k < PHASES; k++) {
        size_t target = ((size_t)12 << 20) + (size_t)lrand48() % ((size_t)36 << 20);
        /* Down: free blocks at random; up: new blocks, every byte written. */
        while (live > target && nb > 0) {
            size_t i = (size_t)lrand48() % nb;
            live -= sz[i];
            free(blk[i]);
            blk[i] = blk[--nb];
            sz[i] = sz[nb];
        }
        while (live < target && nb < MAXB) {
            size_t s = draw_size();
            void *p = malloc(s);
            if (p == NULL)
                return 1;
            memset(p, (int)(nb & 0xff) | 1, s);
            blk[nb] = p;
            sz[nb++] = s;
            live += s;
        }
        mark("still", k);
        char t[96];
        int n = snprintf(t, sizeof(t), "%d live=%zu resident=%zu\n", k, live, private_resident());
        if (n <= 0 || write(fd, t, (size_t)n) != n)
            return 1;
        struct timespec d = {1, 200000000};
        while (nanosleep(&d, &d) != 0)
            ;
        mark("move", k);
    }
    return close(fd) != 0;
}
