/*
 * libFuzzer target of drain's post-mortem reader (host_tools/src/drain/input/postmortem.h): a
 * memory image, read as `drain --ram` would, then the block's records through the session model,
 * the profile built, prof_validate'd and reported (--top and the summary line, to /dev/null).
 * Input: a 16-byte header, then the image.
 *   byte 0     flags: bit 0 the block's address is given (base + offset, as --elf's symbol), else
 *              the reader scans for it; bit 1 the image is two regions, cut at the offset rounded
 *              down to 4 bytes, the second moved up by (flags >> 4) * 4 KiB (0: adjacent);
 *              bit 2 the image is also read as a core's PT_NOTE segment (an NT_FILE note: the
 *              files mapped, emitted as MAPPING records), with 4-byte words if bit 3, else 8
 *   byte 1     the heap walk (heapwalk.c) after the profile: 0 none, 1 FreeRTOS heap_4, 2 heap_5,
 *              3 newlib-nano, or full newlib if bit 2 too (byte 1 & 3); the allocator's symbols
 *              at base + bytes 2-3 (LE) * 4 (mod the image's size): xStart and pxEnd 16 bytes
 *              apart (heap_4's ucHeap: 64 bytes past pxEnd, to the image's end),
 *              __malloc_free_list and __malloc_sbrk_start 4 bytes apart, or __malloc_av_ and
 *              __malloc_sbrk_base 1032 bytes apart; the whole image is the roots. The heap's page
 *              (--heap-map) goes to /dev/null, its sites' table too.
 *   bytes 4-7  offset of the block in the image (little-endian)
 *   bytes 8-15 base address of the image (little-endian)
 * The seeds (tests/postmortem/seeds/) are real dumps of the demo's tables, cropped: little- and
 * big-endian 64-bit, 32-bit, and the compact tables' block; aarch64-files is the aarch64 one whose
 * first 152 bytes are an NT_FILE note of three files (flags 5); nano-heap is the newlib-nano
 * firmware's RAM (tests/postmortem/nano_fw.c) from its start past __malloc_free_list, its heap
 * walked (byte 1 = 3: mkseed.py --whole); newlib-heap the full newlib one's (newlib_fw.c, byte 1 =
 * 7, from its RAM's start past its block). Also the magic watcher of plain inputs
 * (pm_magic_feed), over the raw input in two chunks, must agree with a plain search.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/heapmap.h"
#include "input/heapwalk.h"
#include "input/postmortem.h"
#include "pprof/prof_codec.h"
#include "pprof/profile.h"
#include "views/report.h"
#include "model/session.h"
#include "verdict/stamp.h"

static FILE *devnull;

static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_heapdump: %s: %s\n", what, detail);
    abort();
}

static void on_record(void *arg, const struct msamp_record *rec)
{
    session_record(arg, rec);
}

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        die("fopen", "/dev/null");
    /* The magic watcher, in two chunks. */
    struct pm_magic_scan m = {0};
    size_t cut = size ? data[0] % (size + 1) : 0;
    pm_magic_feed(&m, data, cut);
    pm_magic_feed(&m, data + cut, size - cut);
    int any = 0;
    for (size_t i = 0; i + 4 <= size && !any; i++)
        any = !memcmp(data + i, "MSHD", 4) || !memcmp(data + i, "DHSM", 4);
    if (m.seen && !any)
        die("pm_magic_feed", "saw a magic that is not there");

    if (size < 16)
        return 0;
    unsigned flags = data[0];
    uint64_t off = le(data + 4, 4), base = le(data + 8, 8);
    const uint8_t *img = data + 16;
    size_t n = size - 16;
    char err[1024];
    struct pm_dump *d = pm_new();
    int rc;
    if ((flags & 2) && n > 8) {
        size_t split = (size_t)(off < n ? off : n / 2) & ~(size_t)3;
        uint64_t gap = (uint64_t)(flags >> 4) * 4096u;
        rc = pm_add_mem(d, base, img, split, "first", err, sizeof(err));
        if (rc == 0)
            rc = pm_add_mem(d, base + split + gap, img + split, n - split, "second", err,
                            sizeof(err));
    } else {
        rc = pm_add_mem(d, base, img, n, "image", err, sizeof(err));
    }
    if (flags & 4)
        pm_add_core_notes(d, img, n, 0, flags & 8 ? 4u : 8u);
    if (flags & 1)
        pm_set_block_addr(d, base + off, 1);
    if (rc == 0)
        rc = pm_find(d, err, sizeof(err));
    if (rc != 0) {
        if (!err[0])
            die("an error without a message", "");
        pm_free(d);
        return 0;
    }
    char what[512];
    pm_describe(d, what, sizeof(what));
    fputs(pm_warnings(d), devnull);
    struct msamp_dec_stats zero;
    memset(&zero, 0, sizeof(zero));
    struct session *s = session_new(1, &zero);
    pm_emit(d, on_record, s);
    struct elf_set none = {NULL, 0, 0};
    struct built b;
    if (build_profile(s, &none, "final", &zero, BUILT_AGG, &b, err, sizeof(err)) != 0)
        die("build_profile", err);
    if (prof_validate(&b.prof, err, sizeof(err)) != 0)
        die("prof_validate", err);
    report_top(devnull, s, &b, 5, 1);
    report_summary(devnull, s, &b, &zero, "fuzz.pb.gz");
    if ((data[1] & 3) && n >= 64) {
        struct hw_syms e;
        memset(&e, 0, sizeof(e));
        uint64_t at = base + le(data + 2, 2) * 4u % n;
        if ((data[1] & 7) == 7) {
            e.have_nl_av = e.have_nl_base = 1;
            e.nl_av = at;
            e.nl_base = at + 1032u;
        } else if ((data[1] & 3) == 3) {
            e.have_nano_list = e.have_nano_start = 1;
            e.nano_list = at;
            e.nano_start = at + 4u;
        } else {
            e.have_start = e.have_end = 1;
            e.start = at;
            e.end = at + 16u;
            if ((data[1] & 3) == 1 && at + 64u < base + n) {
                e.have_heap = 1;
                e.heap = at + 64u;
                e.heap_size = base + n - e.heap;
            }
        }
        uint64_t lo = base, hi = base + n;
        struct hw_heap *h = hw_walk_at(d, &e, &lo, &hi, 1, err, sizeof(err));
        if (!h && !err[0])
            die("hw_walk_at: an error without a message", "");
        if (h) {
            hw_describe(h, what, sizeof(what));
            heapmap_sites(devnull, h, s, &b);
            if (heapmap_write(h, s, &b, "/dev/null", err, sizeof(err)) != 0)
                die("heapmap_write", err);
            for (size_t i = 0; i < h->nlive; i++)
                if (h->live[i].state == HW_REACHABLE)
                    hw_holder(h, h->b[h->live[i].block].held_at, what, sizeof(what));
            hw_free(h);
        }
    }
    built_free(&b);
    session_free(s);
    pm_free(d);
    return 0;
}
