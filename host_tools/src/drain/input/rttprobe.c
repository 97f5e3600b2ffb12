#include "input/rttprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "input/gdbrsp.h"
#include "util.h"

#define MAX_RANGES 16
#define MAX_CHANNELS 16          /* more up or down buffers than this: a corrupted block */
#define MAX_BUFFER (16u << 20)   /* a buffer larger than this: a corrupted block */
#define SCAN_PER_HALT (64u << 10) /* RAM scanned per stop of the target */
#define SCAN_TOTAL (64u << 20)   /* RAM scanned at most */
#define FIND_GIVE_UP_S 15.0      /* no control block after this long: an error (DRAIN_RTT_WAIT) */
#define REPLY_MS 3000            /* a GDB server silent this long: an error */
#define READ_MAX (64u << 10)     /* bytes read per stop at most */

static const char rtt_id[16] = "SEGGER RTT";

struct range {
    uint64_t addr, size;
};

struct rtt_probe {
    struct gdb g;
    char where[300];
    /* The target: pointer size (4 or 8, 0 until known) and byte order. */
    int ptr, big_endian;
    /* Where to look: the symbol's address (have_sym), or ranges to scan. */
    int have_sym;
    uint64_t sym;
    struct range ranges[MAX_RANGES];
    size_t nranges, scan_range;
    uint64_t scan_off, scanned;
    /* Once found: the block, the channel, its buffers. */
    int found;
    uint64_t cb;
    int nup, ndown, ch;
    uint64_t up_buf, down_buf;
    uint32_t up_size, down_size;
    double t_open, next_poll, give_up;
    unsigned long long bytes, polls;
    uint8_t *scratch;
    /* Up-channel bytes read while a write waited for room in the down-buffer (a firmware whose
     * up-writes block, MSAMP_RTT_BLOCK, reads its commands only once they go out): held[held_at,
     * nheld), given to rtt_read first. */
    uint8_t *held;
    size_t nheld, held_at, held_cap;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t get_uint(const struct rtt_probe *p, const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)b[p->big_endian ? n - 1 - i : i] << (8 * i);
    return v;
}

static void put_u32(const struct rtt_probe *p, uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[p->big_endian ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

/* Reads the ELF: class and byte order, the symbol _SEGGER_RTT, the writable allocated sections
 * (.data, .bss: where a scan looks). */
static int read_elf(struct rtt_probe *p, const char *path, char *err, size_t errlen)
{
    if (elf_version(EV_CURRENT) == EV_NONE) {
        snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "--elf %s: %s", path, strerror(errno));
        return -1;
    }
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
        snprintf(err, errlen, "--elf %s: not an ELF file", path);
        if (e)
            elf_end(e);
        close(fd);
        return -1;
    }
    p->ptr = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    p->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if ((sh.sh_flags & (SHF_ALLOC | SHF_WRITE)) == (SHF_ALLOC | SHF_WRITE) && sh.sh_size &&
            p->nranges < MAX_RANGES) {
            p->ranges[p->nranges++] = (struct range){sh.sh_addr, sh.sh_size};
        }
        if (sh.sh_type != SHT_SYMTAB || p->have_sym)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; d && i < count; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s))
                break;
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (name && strcmp(name, "_SEGGER_RTT") == 0 && s.st_shndx != SHN_UNDEF) {
                p->have_sym = 1;
                p->sym = s.st_value;
                break;
            }
        }
    }
    elf_end(e);
    close(fd);
    return 0;
}

/* ADDR:SIZE (C numbers: 0x...). */
static int parse_scan(struct rtt_probe *p, const char *scan)
{
    char *end;
    errno = 0;
    unsigned long long a = strtoull(scan, &end, 0);
    if (errno || end == scan || *end != ':')
        return -1;
    const char *s = end + 1;
    unsigned long long n = strtoull(s, &end, 0);
    if (errno || end == s || *end || n < 16 || n > SCAN_TOTAL || a + n < a)
        return -1;
    p->ranges[0] = (struct range){a, n};
    p->nranges = 1;
    return 0;
}

struct rtt_probe *rtt_open(const char *spec, const char *elf, const char *scan, int *usage,
                           char *err, size_t errlen)
{
    *usage = 0;
    const char *hp = spec + 4;
    const char *colon = strrchr(hp, ':');
    char host[256];
    if (!colon || colon == hp || !colon[1] || (size_t)(colon - hp) >= sizeof(host)) {
        snprintf(err, errlen, "%s: expected gdb:HOST:PORT (a GDB server: QEMU -gdb tcp:..., "
                 "OpenOCD, JLinkGDBServer, pyocd gdbserver)", spec);
        *usage = 1;
        return NULL;
    }
    memcpy(host, hp, (size_t)(colon - hp));
    host[colon - hp] = 0;
    struct rtt_probe *p = xcalloc(1, sizeof(*p));
    p->scratch = xmalloc(READ_MAX + 64);
    snprintf(p->where, sizeof(p->where), "%s", spec);
    if (scan && parse_scan(p, scan) != 0) {
        snprintf(err, errlen,
                 "--rtt-scan %s: expected ADDR:SIZE (e.g. 0x20000000:0x10000), SIZE 16 bytes "
                 "to 64 MiB",
                 scan);
        *usage = 1;
        rtt_close(p);
        return NULL;
    }
    if (elf) {
        struct range given = p->ranges[0];
        size_t had = p->nranges;
        if (read_elf(p, elf, err, errlen) != 0) {
            rtt_close(p);
            return NULL;
        }
        if (had) { /* --rtt-scan: that range only */
            p->ranges[0] = given;
            p->nranges = 1;
        }
    }
    if (!p->have_sym && p->nranges == 0) {
        snprintf(err, errlen,
                 "%s: where is the RTT control block? Give the firmware with --elf (its symbol "
                 "_SEGGER_RTT, or its RAM to scan) or a RAM range with --rtt-scan ADDR:SIZE",
                 spec);
        *usage = 1;
        rtt_close(p);
        return NULL;
    }
    if (scan)
        p->have_sym = 0; /* the scan was asked for */
    char e2[512];
    if (gdb_connect(&p->g, host, colon + 1, REPLY_MS, e2, sizeof(e2)) != 0) {
        snprintf(err, errlen, "%s: %s", spec, e2);
        rtt_close(p);
        return NULL;
    }
    p->t_open = now_s();
    p->give_up = FIND_GIVE_UP_S;
    const char *w = getenv("DRAIN_RTT_WAIT");
    if (w && *w) {
        char *end;
        double v = strtod(w, &end);
        if (!*end && v > 0 && v < 1e6)
            p->give_up = v;
    }
    return p;
}

/* Checks the id at addr (the target stopped). 1 when it is there, 0 not, < 0 gdb error. */
static int id_at(struct rtt_probe *p, uint64_t addr, char *err, size_t errlen)
{
    uint8_t id[16];
    int r = gdb_read_mem(&p->g, addr, id, 16, err, errlen);
    if (r)
        return r;
    return memcmp(id, rtt_id, 16) == 0;
}

/* Scans the next piece of RAM for the id. 1 found (p->cb set), 0 not yet, < 0 error. */
static int scan_step(struct rtt_probe *p, char *err, size_t errlen)
{
    uint64_t budget = SCAN_PER_HALT;
    while (budget > 0) {
        if (p->scan_range >= p->nranges) {
            p->scan_range = 0; /* the block may appear later: scan again */
            p->scan_off = 0;
            return 0;
        }
        struct range *rg = &p->ranges[p->scan_range];
        if (p->scan_off + 16 > rg->size || p->scanned > SCAN_TOTAL) {
            p->scan_range++;
            p->scan_off = 0;
            continue;
        }
        uint64_t n = rg->size - p->scan_off;
        if (n > budget)
            n = budget;
        if (n > READ_MAX)
            n = READ_MAX;
        int r = gdb_read_mem(&p->g, rg->addr + p->scan_off, p->scratch, (size_t)n, err, errlen);
        if (r)
            return r;
        for (uint64_t i = 0; i + 16 <= n; i += 4) {
            if (memcmp(p->scratch + i, rtt_id, 16) == 0) {
                p->cb = rg->addr + p->scan_off + i;
                return 1;
            }
        }
        p->scanned += n;
        budget -= n;
        /* The next piece overlaps this one by 12 bytes: an id across the cut is found. */
        p->scan_off += n > 16 ? n - 12 : n;
    }
    return 0;
}

static int corrupt(struct rtt_probe *p, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen,
             "%s: the RTT control block at 0x%llx is corrupted (%s): not reading from it",
             p->where, (unsigned long long)p->cb, what);
    return GDB_ERR;
}

/* Reads a descriptor at off in the block: buffer, size, write and read offsets. */
struct desc {
    uint64_t name, buf;
    uint32_t size, wr, rd;
};

static void parse_desc(const struct rtt_probe *p, const uint8_t *b, struct desc *d)
{
    d->name = get_uint(p, b, p->ptr);
    d->buf = get_uint(p, b + p->ptr, p->ptr);
    d->size = (uint32_t)get_uint(p, b + 2 * p->ptr, 4);
    d->wr = (uint32_t)get_uint(p, b + 2 * p->ptr + 4, 4);
    d->rd = (uint32_t)get_uint(p, b + 2 * p->ptr + 8, 4);
}

static uint64_t desc_off(const struct rtt_probe *p, int index)
{
    return 24 + (uint64_t)index * (uint64_t)(2 * p->ptr + 16);
}

/* With the id found at p->cb: the channel named "msamp" (or the only one), its buffers. Tries
 * both pointer sizes when the ELF did not say. 1 ready, 0 not yet sane (the firmware is still
 * writing it), < 0 error. */
static int setup(struct rtt_probe *p, char *err, size_t errlen)
{
    int sizes[2] = {p->ptr ? p->ptr : 4, p->ptr ? 0 : 8};
    const char *why = "it has no up-channel named \"msamp\"";
    for (int k = 0; k < 2 && sizes[k]; k++) {
        p->ptr = sizes[k];
        uint8_t hdr[24 + 2 * MAX_CHANNELS * 32];
        int r = gdb_read_mem(&p->g, p->cb, hdr, 24, err, errlen);
        if (r)
            return r;
        int nup = (int)(int32_t)get_uint(p, hdr + 16, 4);
        int ndown = (int)(int32_t)get_uint(p, hdr + 20, 4);
        if (nup < 1 || nup > MAX_CHANNELS || ndown < 0 || ndown > MAX_CHANNELS) {
            snprintf(err, errlen,
                     "%s: the RTT control block at 0x%llx is corrupted (%d up-buffers, %d "
                     "down-buffers: 1 to %d expected)",
                     p->where, (unsigned long long)p->cb, nup, ndown, MAX_CHANNELS);
            return GDB_ERR;
        }
        size_t total = (size_t)desc_off(p, nup + ndown);
        r = gdb_read_mem(&p->g, p->cb, hdr, total, err, errlen);
        if (r)
            return r;
        int ch = -1;
        for (int i = 0; i < nup && ch < 0; i++) {
            struct desc d;
            parse_desc(p, hdr + desc_off(p, i), &d);
            char name[8] = {0};
            if (d.name && gdb_read_mem(&p->g, d.name, name, 6, err, errlen) == 0 &&
                memcmp(name, "msamp", 6) == 0)
                ch = i;
        }
        if (ch < 0 && nup == 1)
            ch = 0;
        if (ch < 0)
            continue;
        struct desc up, down = {0};
        parse_desc(p, hdr + desc_off(p, ch), &up);
        if (ch < ndown)
            parse_desc(p, hdr + desc_off(p, nup + ch), &down);
        if (up.buf == 0 || up.size < 2 || up.size > MAX_BUFFER || up.wr >= up.size ||
            up.rd >= up.size) {
            why = "its up-buffer's address, size or offsets are out of range";
            continue;
        }
        if (down.size && (down.buf == 0 || down.size < 2 || down.size > MAX_BUFFER ||
                          down.wr >= down.size || down.rd >= down.size)) {
            why = "its down-buffer's address, size or offsets are out of range";
            continue;
        }
        p->nup = nup;
        p->ndown = ndown;
        p->ch = ch;
        p->up_buf = up.buf;
        p->up_size = up.size;
        p->down_buf = down.buf;
        p->down_size = down.size;
        p->found = 1;
        return 1;
    }
    p->ptr = sizes[1] ? 0 : p->ptr;
    snprintf(err, errlen, "%s: the RTT control block at 0x%llx is corrupted (or not msamp's): %s",
             p->where, (unsigned long long)p->cb, why);
    return GDB_ERR;
}

/* Finds the block (the target stopped): 1 found, 0 not yet, < 0 error. */
static int locate(struct rtt_probe *p, char *err, size_t errlen)
{
    int r;
    if (p->have_sym) {
        r = id_at(p, p->sym, err, errlen);
        if (r == 1)
            p->cb = p->sym;
    } else {
        r = scan_step(p, err, errlen);
    }
    if (r != 1)
        return r;
    return setup(p, err, errlen);
}

/* One poll with the target stopped: new up-channel bytes into buf (at most len). */
static ssize_t poll_up(struct rtt_probe *p, uint8_t *buf, size_t len, int *fill, char *err,
                       size_t errlen)
{
    size_t ds = (size_t)(2 * p->ptr + 16);
    uint8_t b[24 + 2 * MAX_CHANNELS * 32];
    uint64_t off = desc_off(p, p->ch);
    int r = gdb_read_mem(&p->g, p->cb, b, 16, err, errlen);
    if (r == 0)
        r = gdb_read_mem(&p->g, p->cb + off, b + off, ds, err, errlen);
    if (r)
        return r;
    if (memcmp(b, rtt_id, 16) != 0) {
        p->found = 0; /* the firmware restarted (its RAM cleared): find the block again */
        return 0;
    }
    struct desc d;
    parse_desc(p, b + off, &d);
    if (d.buf != p->up_buf || d.size != p->up_size)
        return corrupt(p, err, errlen, "the up-buffer's address or size changed");
    if (d.wr >= d.size || d.rd >= d.size)
        return corrupt(p, err, errlen, "an up-buffer offset beyond the buffer's end");
    uint32_t avail = d.wr >= d.rd ? d.wr - d.rd : d.size - d.rd + d.wr;
    *fill = (int)((uint64_t)avail * 100 / d.size);
    size_t n = avail < len ? avail : len;
    if (n > READ_MAX)
        n = READ_MAX;
    if (n == 0)
        return 0;
    size_t first = d.size - d.rd < n ? d.size - d.rd : n;
    r = gdb_read_mem(&p->g, p->up_buf + d.rd, buf, first, err, errlen);
    if (r == 0 && n > first)
        r = gdb_read_mem(&p->g, p->up_buf, buf + first, n - first, err, errlen);
    if (r)
        return r;
    uint32_t rd = (uint32_t)((d.rd + n) % d.size);
    uint8_t v[4];
    put_u32(p, v, rd);
    r = gdb_write_mem(&p->g, p->cb + off + 2 * (uint64_t)p->ptr + 8, v, 4, err, errlen);
    if (r)
        return r;
    p->bytes += n;
    return (ssize_t)n;
}

/* A gdb status as input_read's: the end (notice) or an error. */
static ssize_t ending(struct rtt_probe *p, int r, char *notice, size_t noticelen, char *err,
                      size_t errlen)
{
    if (r == GDB_EXITED) {
        snprintf(notice, noticelen, "%s: the target %s (%s %d): end of input", p->where,
                 p->g.exit_kind == 'W' ? "exited" : "was killed",
                 p->g.exit_kind == 'W' ? "status" : "signal", p->g.exit_code);
        return -1;
    }
    if (r == GDB_GONE) {
        snprintf(notice, noticelen, "%s: the GDB server closed the connection: end of input",
                 p->where);
        return -1;
    }
    char e[1024];
    snprintf(e, sizeof(e), "%s", err);
    if (strncmp(e, p->where, strlen(p->where)) == 0)
        snprintf(err, errlen, "%s", e);
    else
        snprintf(err, errlen, "%s: %s", p->where, e);
    return -2;
}

ssize_t rtt_read(struct rtt_probe *p, void *buf, size_t len, int timeout_ms, int wake_fd,
                 char *notice, size_t noticelen, char *err, size_t errlen)
{
    if (p->held_at < p->nheld && len > 0) { /* what a write read while it waited, first */
        size_t n = p->nheld - p->held_at < len ? p->nheld - p->held_at : len;
        memcpy(buf, p->held + p->held_at, n);
        p->held_at += n;
        if (p->held_at == p->nheld)
            p->held_at = p->nheld = 0;
        return (ssize_t)n;
    }
    double deadline = now_s() + timeout_ms / 1e3;
    for (;;) {
        double t = now_s();
        /* The target runs until the next poll: a stop it reports by itself may come. */
        if (t < p->next_poll) {
            double until = p->next_poll < deadline ? p->next_poll : deadline;
            int ms = (int)((until - t) * 1e3) + 1;
            int r = p->g.running ? gdb_wait_running(&p->g, ms, wake_fd, err, errlen) : 0;
            if (r)
                return ending(p, r, notice, noticelen, err, errlen);
            if (!p->g.running) {
                /* It stopped by itself (a breakpoint): polled now, which lets it run again. */
                p->next_poll = t;
            } else if (wake_fd >= 0) {
                struct pollfd pfd = {wake_fd, POLLIN, 0};
                if (poll(&pfd, 1, 0) > 0)
                    return 0;
            }
            if (now_s() >= deadline)
                return 0;
            if (now_s() < p->next_poll)
                continue;
        }
        int r = gdb_halt(&p->g, err, errlen);
        if (r)
            return ending(p, r, notice, noticelen, err, errlen);
        p->polls++;
        ssize_t n = 0;
        int fill = 0;
        if (!p->found) {
            r = locate(p, err, errlen);
            if (r < 0)
                return ending(p, r, notice, noticelen, err, errlen);
            if (r == 0 && now_s() - p->t_open > p->give_up) {
                if (p->have_sym)
                    snprintf(err, errlen,
                             "%s: no RTT control block at _SEGGER_RTT (0x%llx) after %.0f s: "
                             "does the firmware call msamp_init() with the RTT transport?",
                             p->where, (unsigned long long)p->sym, p->give_up);
                else
                    snprintf(err, errlen,
                             "%s: no RTT control block (the id \"SEGGER RTT\") in the RAM "
                             "scanned after %.0f s",
                             p->where, p->give_up);
                return -2;
            }
        }
        if (p->found) {
            n = poll_up(p, buf, len, &fill, err, errlen);
            if (n < 0)
                return ending(p, (int)n, notice, noticelen, err, errlen);
        }
        r = gdb_resume(&p->g, err, errlen);
        if (r)
            return ending(p, r, notice, noticelen, err, errlen);
        /* Poll again at once while the buffer was over half full (bounded by RTT_POLL_HZ),
         * every RTT_IDLE_MS otherwise; the scan goes on at the bounded rate. */
        double t2 = now_s();
        p->next_poll = t2 + (fill > 50 || (!p->found && !p->have_sym) ? 1.0 / RTT_POLL_HZ
                                                                       : RTT_IDLE_MS / 1e3);
        if (n > 0)
            return n;
        if (t2 >= deadline)
            return 0;
    }
}

/* A write that failed: the target gone or exited is an error for a sender. */
static ssize_t write_failed(struct rtt_probe *p, int r, char *err, size_t errlen)
{
    char notice[512];
    if (ending(p, r, notice, sizeof(notice), err, errlen) == -1)
        snprintf(err, errlen, "%s", notice);
    return -2;
}

ssize_t rtt_write(struct rtt_probe *p, const void *buf, size_t len, char *err, size_t errlen)
{
    if (!p->found)
        return 0;
    if (p->down_size == 0) {
        snprintf(err, errlen, "%s: the firmware's RTT channel has no down-buffer", p->where);
        return -2;
    }
    const uint8_t *in = buf;
    size_t done = 0;
    double t0 = now_s();
    uint64_t off = desc_off(p, p->nup + p->ch);
    size_t ds = (size_t)(2 * p->ptr + 16);
    while (done < len) {
        int r = gdb_halt(&p->g, err, errlen);
        if (r)
            return write_failed(p, r, err, errlen);
        uint8_t b[64];
        r = gdb_read_mem(&p->g, p->cb + off, b, ds, err, errlen);
        if (r)
            return write_failed(p, r, err, errlen);
        struct desc d;
        parse_desc(p, b, &d);
        if (d.buf != p->down_buf || d.size != p->down_size || d.wr >= d.size || d.rd >= d.size) {
            (void)corrupt(p, err, errlen, "the down-buffer's address, size or offsets");
            return -2;
        }
        uint32_t room = d.rd > d.wr ? d.rd - d.wr - 1 : d.size - 1 - d.wr + d.rd;
        size_t n = len - done < room ? len - done : room;
        size_t first = d.size - d.wr < n ? d.size - d.wr : n;
        if (n > 0) {
            r = gdb_write_mem(&p->g, p->down_buf + d.wr, in + done, first, err, errlen);
            if (r == 0 && n > first)
                r = gdb_write_mem(&p->g, p->down_buf, in + done + first, n - first, err, errlen);
            uint8_t v[4];
            put_u32(p, v, (uint32_t)((d.wr + n) % d.size));
            if (r == 0) /* the bytes first, then the offset that publishes them */
                r = gdb_write_mem(&p->g, p->cb + off + 2 * (uint64_t)p->ptr + 4, v, 4, err,
                                  errlen);
            if (r)
                return write_failed(p, r, err, errlen);
            done += n;
            t0 = now_s(); /* the 1 s below: since the firmware last made room */
        }
        if (done < len) { /* the up-channel read meanwhile, so a blocked firmware goes on */
            GROW(p->held, p->held_cap, p->nheld + READ_MAX);
            int fill = 0;
            ssize_t got = poll_up(p, p->held + p->nheld, READ_MAX, &fill, err, errlen);
            if (got < 0)
                return write_failed(p, (int)got, err, errlen);
            p->nheld += (size_t)got;
            if (!p->found) { /* the firmware restarted: the frame is sent again later */
                r = gdb_resume(&p->g, err, errlen);
                return r ? write_failed(p, r, err, errlen) : (ssize_t)done;
            }
        }
        r = gdb_resume(&p->g, err, errlen);
        if (r)
            return write_failed(p, r, err, errlen);
        if (done < len) {
            if (now_s() - t0 > 1.0) {
                snprintf(err, errlen,
                         "%s: the firmware read no command byte in 1 s (its RTT down-buffer is "
                         "full)",
                         p->where);
                return -2;
            }
            struct timespec ts = {0, RTT_IDLE_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    return (ssize_t)len;
}

void rtt_stats(const struct rtt_probe *p, unsigned long long *bytes, double *seconds,
               unsigned long long *polls)
{
    *bytes = p->bytes;
    *seconds = now_s() - p->t_open;
    *polls = p->polls;
}

void rtt_close(struct rtt_probe *p)
{
    if (!p)
        return;
    if (p->g.fd > 0)
        gdb_close(&p->g);
    free(p->scratch);
    free(p->held);
    free(p);
}
