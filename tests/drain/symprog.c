/*
 * A program with known allocation sites that records its own allocations as an msamp stream,
 * with real return addresses from a frame-pointer walk, so drain's symbolization (functions,
 * file:line, inline frames, PIE mappings, build-id) is tested against real DWARF.
 * usage: symprog OUT.bin TRUTH.txt INTERVAL [--bare]
 *   --bare: no MAPPING records (for a non-PIE build: addresses are the ELF's own).
 * TRUTH: gen.c's format, one line per site, keyed by the leaf return address.
 * Build with -g -fno-omit-frame-pointer -fno-optimize-sibling-calls.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simdev.h"

static struct simdev dev;
static void **main_fp;

#define MAX_SITES 8
static struct {
    uint64_t leaf, an, ab, in, ib;
} truth[MAX_SITES];

static void note_truth(uint64_t leaf, uint64_t size, int live)
{
    for (int i = 0; i < MAX_SITES; i++) {
        if (truth[i].leaf == leaf || truth[i].leaf == 0) {
            truth[i].leaf = leaf;
            truth[i].an++;
            truth[i].ab += size;
            truth[i].in += live;
            truth[i].ib += live ? size : 0;
            return;
        }
    }
}

/* The "allocator wrapper": frames start at its return address, as msamp's do. */
__attribute__((noinline)) static void *tracked_malloc(size_t n, int stays_live)
{
    void *p = malloc(n);
    uint64_t fr[SIM_DEPTH];
    uint32_t depth = 0;
    void **fp = __builtin_frame_address(0);
    while (fp && fp < main_fp && depth < SIM_DEPTH) {
        fr[depth++] = (uint64_t)(uintptr_t)fp[1];
        void **next = fp[0];
        if (next <= fp)
            break;
        fp = next;
    }
    note_truth(fr[0], n, stays_live);
    sim_alloc(&dev, (uintptr_t)p, n, fr, depth);
    return p;
}

static void tracked_free(void *p)
{
    sim_free(&dev, (uintptr_t)p);
    free(p);
}

static inline __attribute__((always_inline)) void *make_node(size_t n)
{
    return tracked_malloc(n, 1);
}

__attribute__((noinline)) static void build_list(void **keep, int count)
{
    for (int i = 0; i < count; i++)
        keep[i] = make_node(256);
}

__attribute__((noinline)) static void churn(int count)
{
    for (int i = 0; i < count; i++) {
        void *p = tracked_malloc(2048, 0);
        tracked_free(p);
    }
}

__attribute__((noinline)) static void big_buffers(void **keep, int count)
{
    for (int i = 0; i < count; i++)
        keep[i] = tracked_malloc(65536, 1);
}

static int add_mappings(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    /* The first object is the program itself. */
    char path[256];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    path[n > 0 ? n : 0] = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_NOTE) {
            const uint8_t *q = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
            const uint8_t *end = q + ph->p_memsz;
            while (q + 12 <= end) {
                uint32_t nsz, dsz, type;
                memcpy(&nsz, q, 4);
                memcpy(&dsz, q + 4, 4);
                memcpy(&type, q + 8, 4);
                const uint8_t *name = q + 12, *desc = name + ((nsz + 3) & ~3u);
                if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(name, "GNU", 4) == 0 &&
                    dsz <= sizeof(dev.bid)) {
                    memcpy(dev.bid, desc, dsz);
                    dev.bidlen = (uint8_t)dsz;
                }
                q = desc + ((dsz + 3) & ~3u);
            }
        }
        if (ph->p_type == PT_LOAD && dev.nmaps < 8) {
            uint64_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uint64_t)0xfff;
            uint64_t limit = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + 0xfff) & ~(uint64_t)0xfff;
            dev.maps[dev.nmaps].start = start;
            dev.maps[dev.nmaps].limit = limit;
            dev.maps[dev.nmaps].off = ph->p_offset & ~(uint64_t)0xfff;
            snprintf(dev.maps[dev.nmaps].path, sizeof(dev.maps[0].path), "%s", path);
            dev.nmaps++;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    main_fp = __builtin_frame_address(0);
    if (argc < 4) {
        fprintf(stderr, "usage: symprog OUT.bin TRUTH.txt INTERVAL [--bare]\n");
        return 2;
    }
    FILE *out = fopen(argv[1], "wb"), *tf = fopen(argv[2], "w");
    if (!out || !tf) {
        perror("symprog");
        return 1;
    }
    int bare = argc > 4 && strcmp(argv[4], "--bare") == 0;
    sg_init(&dev.g, out, 700);
#if defined(__x86_64__)
    dev.arch = MSAMP_ARCH_X86_64;
#elif defined(__aarch64__)
    dev.arch = MSAMP_ARCH_AARCH64;
#endif
    dev.ptr = sizeof(void *);
    dl_iterate_phdr(add_mappings, NULL);
    if (bare)
        dev.nmaps = 0;
    sim_boot(&dev, 0xc0ffee01u, 42, strtoull(argv[3], NULL, 0));
    sg_mark(&dev.g, "symprog");
    static void *list[20000], *bufs[200];
    build_list(list, 20000);
    churn(10000);
    big_buffers(bufs, 200);
    sim_snapshot(&dev);
    sg_flush(&dev.g);
    for (int i = 0; i < MAX_SITES && truth[i].leaf; i++)
        fprintf(tf, "site %d 0x%llx %llu %llu %llu %llu\n", i + 1, (unsigned long long)truth[i].leaf,
                (unsigned long long)truth[i].an, (unsigned long long)truth[i].ab,
                (unsigned long long)truth[i].in, (unsigned long long)truth[i].ib);
    fclose(out);
    fclose(tf);
    for (int i = 0; i < 20000; i++)
        free(list[i]);
    for (int i = 0; i < 200; i++)
        free(bufs[i]);
    return 0;
}
