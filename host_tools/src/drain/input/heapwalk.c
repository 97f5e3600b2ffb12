/* drain's heap walk of a post-mortem dump (heapwalk.h, docs/POSTMORTEM.md "The heap map"). */
#include "input/heapwalk.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

struct hw_heap *hw_current;
char hw_current_why[512];

#define MAX_BLOCKS (1u << 24) /* heap blocks walked at most */

static uint64_t rdw(const uint8_t *p, unsigned n, int big)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8u * (big ? n - 1u - i : i));
    return v;
}

/* A pointer-sized word at a, or -1 when it is not in the dump. */
static int word(const struct pm_dump *d, const struct hw_heap *h, uint64_t a, uint64_t *v)
{
    const uint8_t *p = pm_mem(d, a, h->ptr);
    if (!p)
        return -1;
    *v = rdw(p, h->ptr, h->big);
    return 0;
}

const char *hw_state_name(enum hw_state s)
{
    static const char *const name[] = {"reachable", "unreachable", "in a free block",
                                       "outside the heap", "not scanned"};
    return (unsigned)s < 5 ? name[s] : "?";
}

void hw_free(struct hw_heap *h)
{
    if (!h)
        return;
    free(h->b);
    free(h->fl);
    free(h->live);
    for (size_t i = 0; i < h->nsym; i++)
        free(h->sym[i].name);
    free(h->sym);
    free(h);
}

#define elfinfo hw_syms

static int by_sym(const void *a, const void *b)
{
    const struct hw_sym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int read_elf(struct hw_heap *h, const char *path, uint64_t bias, struct elfinfo *e,
                    char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open it", path);
        return -1;
    }
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        snprintf(err, errlen, "%s: not an ELF file", path);
        if (elf)
            elf_end(elf);
        close(fd);
        return -1;
    }
    size_t shstr, cap = 0;
    if (elf_getshdrstrndx(elf, &shstr) != 0)
        shstr = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if ((sh.sh_flags & (SHF_ALLOC | SHF_WRITE)) == (SHF_ALLOC | SHF_WRITE) && sh.sh_size &&
            !(sh.sh_flags & SHF_TLS) && h->nroot < HW_MAX_ROOTS &&
            sh.sh_addr + bias + sh.sh_size > sh.sh_addr + bias) {
            struct hw_root *r = &h->root[h->nroot++];
            r->lo = sh.sh_addr + bias;
            r->hi = r->lo + sh.sh_size;
            const char *nm = shstr ? elf_strptr(elf, shstr, sh.sh_name) : NULL;
            snprintf(r->name, sizeof(r->name), "%s", nm ? nm : "?");
        }
        if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize == 0)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data ? sh.sh_size / sh.sh_entsize : 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(data, (int)i, &sym))
                break;
            if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF)
                continue;
            const char *sn = elf_strptr(elf, sh.sh_link, sym.st_name);
            if (!sn)
                continue;
            uint64_t a = sym.st_value + bias;
            if (strcmp(sn, "xStart") == 0)
                e->have_start = 1, e->start = a;
            else if (strcmp(sn, "pxEnd") == 0)
                e->have_end = 1, e->end = a;
            else if (strcmp(sn, "ucHeap") == 0)
                e->have_heap = 1, e->heap = a, e->heap_size = sym.st_size;
            else if (strcmp(sn, "xHeapCanary") == 0)
                e->have_canary = 1, e->canary = a;
            else if (strcmp(sn, "__malloc_free_list") == 0)
                e->have_nano_list = 1, e->nano_list = a;
            else if (strcmp(sn, "__malloc_sbrk_start") == 0)
                e->have_nano_start = 1, e->nano_start = a;
            else if (strcmp(sn, "__malloc_av_") == 0)
                e->have_nl_av = 1, e->nl_av = a;
            else if (strcmp(sn, "__malloc_sbrk_base") == 0)
                e->have_nl_base = 1, e->nl_base = a;
            else if (strcmp(sn, "__malloc_current_mallinfo") == 0)
                e->have_nl_info = 1, e->nl_info = a;
            if (sym.st_size == 0 || h->nsym >= 1u << 20)
                continue;
            if (h->nsym == cap) {
                cap = cap ? cap * 2 : 256;
                h->sym = xrealloc(h->sym, cap * sizeof(*h->sym));
            }
            h->sym[h->nsym].addr = a;
            h->sym[h->nsym].size = sym.st_size;
            h->sym[h->nsym++].name = xstrndup(sn, strlen(sn));
        }
    }
    elf_end(elf);
    close(fd);
    if (h->nsym)
        qsort(h->sym, h->nsym, sizeof(*h->sym), by_sym);
    return 0;
}

/* The block whose bytes hold a (header included), or SIZE_MAX. */
static size_t block_at(const struct hw_heap *h, uint64_t a)
{
    size_t lo = 0, hi = h->nb;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (a < h->b[m].addr)
            hi = m;
        else if (a - h->b[m].addr >= h->b[m].size)
            lo = m + 1;
        else
            return m;
    }
    return SIZE_MAX;
}

static void add_block(struct hw_heap *h, size_t *cap, uint64_t a, uint64_t size, int is_free)
{
    if (h->nb == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        h->b = xrealloc(h->b, *cap * sizeof(*h->b));
    }
    struct hw_block *b = &h->b[h->nb++];
    memset(b, 0, sizeof(*b));
    b->addr = a;
    b->size = size;
    b->free = (uint8_t)is_free;
}

/* Index of the free-list entry at address a, or SIZE_MAX (the list is in address order). */
static size_t free_at(const struct hw_heap *h, uint64_t a)
{
    size_t lo = 0, hi = h->nfl;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (h->fl[m].addr == a)
            return m;
        if (h->fl[m].addr < a)
            lo = m + 1;
        else
            hi = m;
    }
    return SIZE_MAX;
}

/* The free list: from xStart's next through each block's pxNextFreeBlock to pxEnd, each entry
 * aligned, in the heap, after the previous one's end (address order: no cycle), size not marked
 * allocated. heap_5's region-end markers (size 0, not pxEnd) are passed. -1 with a message. */
static int walk_free_list(const struct pm_dump *d, struct hw_heap *h, uint64_t first,
                          uint64_t canary, int nano, char *err, size_t errlen)
{
    const uint64_t top = (uint64_t)1 << (8u * h->ptr - 1u);
    size_t cap = 0;
    uint64_t p = first, prev_end = h->lo;
    for (size_t steps = 0;; steps++) {
        if (nano ? p == 0 : p == h->end)
            return 0;
        if (steps >= MAX_BLOCKS || p < prev_end || p >= h->end || (p & 3u)) {
            snprintf(err, errlen, "free-list entry %zu: 0x%" PRIx64 " is %s (the heap: 0x%" PRIx64
                     "-0x%" PRIx64 ")", steps, p,
                     p & 3u ? "not aligned" : p >= h->end || p < h->lo ? "outside the heap"
                     : steps >= MAX_BLOCKS ? "past the walk's bound"
                                           : "before the previous entry's end (a cycle or a "
                                             "corrupt link: the allocator keeps its list in "
                                             "address order)", h->lo, h->end);
            return -1;
        }
        uint64_t next, size; /* heap_4: the link then the size; newlib-nano: the other way */
        if (word(d, h, p + (nano ? h->ptr : 0u), &next) ||
            word(d, h, p + (nano ? 0u : h->ptr), &size)) {
            snprintf(err, errlen, "free-list entry %zu at 0x%" PRIx64 " is not in the dump", steps,
                     p);
            return -1;
        }
        next ^= canary;
        if (size & top) {
            snprintf(err, errlen, "free-list entry %zu at 0x%" PRIx64 " is %s (size word 0x%"
                     PRIx64 "): a corrupt heap", steps, p, nano ? "negative" : "marked allocated",
                     size);
            return -1;
        }
        if ((size != 0 || nano) && (size < h->hdr || size > h->end - p)) {
            snprintf(err, errlen, "free-list entry %zu at 0x%" PRIx64 ": size %" PRIu64
                     " runs past the heap's end (0x%" PRIx64 ")", steps, p, size, h->end);
            return -1;
        }
        if (size) { /* heap_5: a size-0 entry is a region's end marker */
            if (h->nfl == cap) {
                cap = cap ? cap * 2 : 256;
                h->fl = xrealloc(h->fl, cap * sizeof(*h->fl));
            }
            h->fl[h->nfl].addr = p;
            h->fl[h->nfl++].size = size;
            h->free_bytes += size;
            if (size > h->largest)
                h->largest = size, h->largest_at = p;
        }
        prev_end = p + (size ? size : h->hdr);
        p = next;
    }
}

/* The blocks from a to the next free block, the end marker or stop, by their sizes (allocated
 * ones: the top bit set). 0 when it ended at a free block or the end, -1 with note set. */
static int walk_span(const struct pm_dump *d, struct hw_heap *h, size_t *cap, uint64_t a,
                     uint64_t stop)
{
    const uint64_t top = (uint64_t)1 << (8u * h->ptr - 1u);
    while (a < stop) {
        if (a == h->end || free_at(h, a) != SIZE_MAX)
            return 0;
        uint64_t next, size;
        if (h->nb >= MAX_BLOCKS || word(d, h, a, &next) || word(d, h, a + h->ptr, &size)) {
            snprintf(h->note, sizeof(h->note), "the walk by block sizes stopped at 0x%" PRIx64
                     ": %s", a, h->nb >= MAX_BLOCKS ? "too many blocks" : "not in the dump");
            return -1;
        }
        uint64_t n = size & ~top;
        if (!(size & top) || n < h->hdr || n > stop - a) {
            snprintf(h->note, sizeof(h->note), "the walk by block sizes stopped at 0x%" PRIx64
                     ": size word 0x%" PRIx64 " is %s", a, size,
                     !(size & top) ? "not marked allocated, and the block is not in the free list"
                                   : "out of range");
            return -1;
        }
        add_block(h, cap, a, n, 0);
        a += n;
    }
    return 0;
}

static int by_block(const void *a, const void *b)
{
    const struct hw_block *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int excluded(const uint64_t *lo, const uint64_t *hi, size_t n, uint64_t a)
{
    for (size_t i = 0; i < n; i++)
        if (a >= lo[i] && a < hi[i])
            return 1;
    return 0;
}

/* Marks the allocated block holding the user address v (interior pointers count; a pointer to
 * a header does not). */
static void mark(struct hw_heap *h, uint64_t v, uint64_t at, size_t *stack, size_t *n)
{
    if (v < h->lo || v >= h->end)
        return;
    size_t k = block_at(h, v);
    if (k == SIZE_MAX || h->b[k].free || h->b[k].marked || v - h->b[k].addr < h->hdr)
        return;
    h->b[k].marked = 1;
    h->b[k].held_at = at;
    stack[(*n)++] = k;
}

/* The words of [lo, hi) in the dump, but the excluded ranges: each marks what it points into. */
static uint64_t scan(const struct pm_dump *d, struct hw_heap *h, uint64_t lo, uint64_t hi,
                     const uint64_t *xlo, const uint64_t *xhi, size_t nx, size_t *stack,
                     size_t *n)
{
    uint64_t bytes = 0, w = h->ptr;
    lo = (lo + w - 1u) & ~(w - 1u);
    for (uint64_t a = lo; a + w <= hi && a + w > a; a += w) {
        uint64_t v;
        if (excluded(xlo, xhi, nx, a) || word(d, h, a, &v))
            continue;
        bytes += w;
        mark(h, v, a, stack, n);
    }
    return bytes;
}

static void reachability(const struct pm_dump *d, struct hw_heap *h, const struct elfinfo *e)
{
    uint64_t xlo[10], xhi[10];
    size_t nx = pm_block_spans(d, xlo, xhi);
    /* The heap's own bytes are scanned only through the blocks reached. */
    xlo[nx] = e->have_heap ? e->heap : h->lo;
    xhi[nx++] = e->have_heap ? e->heap + e->heap_size : h->end + h->hdr;
    size_t *stack = xmalloc((h->nb + 1) * sizeof(*stack)), n = 0;
    for (size_t i = 0; i < h->nroot; i++) {
        struct hw_root *r = &h->root[i];
        r->dumped = pm_mem(d, r->lo, r->hi - r->lo) != NULL;
        h->scanned_static += scan(d, h, r->lo, r->hi, xlo, xhi, nx, stack, &n);
    }
    while (n > 0) {
        const struct hw_block *b = &h->b[stack[--n]];
        h->scanned_heap += scan(d, h, b->addr + h->hdr, b->addr + b->size, xlo, xhi, nx - 1,
                                stack, &n);
    }
    free(stack);
}

/* FreeRTOS heap_4 (ucHeap known) and heap_5: 0, or -1 with a message. */
static int walk_freertos(const struct pm_dump *d, struct hw_heap *h, const struct elfinfo *e,
                         char *err, size_t errlen)
{
    h->hdr = (2u * h->ptr + 7u) & ~7u; /* xHeapStructSize: BlockLink_t rounded to 8 */
    h->allocator = e->have_heap ? "FreeRTOS heap_4" : "FreeRTOS heap_5";
    uint64_t first, endp, canary = 0;
    if (word(d, h, e->start, &first) || word(d, h, e->end, &endp) ||
        (e->have_canary && word(d, h, e->canary, &canary))) {
        snprintf(err, errlen, "%s: xStart, pxEnd or xHeapCanary (0x%" PRIx64 ", 0x%" PRIx64
                 ") not in the dump", h->allocator, e->start, e->end);
        return -1;
    }
    if (endp == 0) {
        snprintf(err, errlen, "%s: pxEnd is NULL: the heap was never initialised (no allocation "
                 "before the dump)", h->allocator);
        return -1;
    }
    h->end = endp;
    if (e->have_heap) {
        h->lo = (e->heap + 7u) & ~(uint64_t)7;
        if (endp < h->lo || endp - e->heap > e->heap_size || e->heap_size < h->hdr) {
            snprintf(err, errlen, "%s: pxEnd 0x%" PRIx64 " is not in ucHeap (0x%" PRIx64 ", %"
                     PRIu64 " bytes)", h->allocator, endp, e->heap, e->heap_size);
            return -1;
        }
    } else {
        h->lo = first ^ canary;
        if (h->lo > endp) {
            snprintf(err, errlen, "%s: the first free block 0x%" PRIx64 " is past pxEnd 0x%"
                     PRIx64, h->allocator, h->lo, endp);
            return -1;
        }
    }
    h->hi = endp + h->hdr;
    char why[256];
    if (walk_free_list(d, h, first ^ canary, canary, 0, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "%s: %s", h->allocator, why);
        return -1;
    }
    /* Every block: heap_4 from the heap's start; heap_5 (regions unknown) from each free block's
     * end, and the free blocks themselves. */
    size_t cap = 0;
    int ok = 1;
    if (e->have_heap)
        ok = walk_span(d, h, &cap, h->lo, h->end) == 0;
    for (size_t i = 0; i < h->nfl && ok; i++) {
        add_block(h, &cap, h->fl[i].addr, h->fl[i].size, 1);
        uint64_t stop = i + 1 < h->nfl ? h->fl[i + 1].addr : h->end;
        ok = walk_span(d, h, &cap, h->fl[i].addr + h->fl[i].size, stop) == 0 || !e->have_heap;
    }
    h->walked_all = ok && e->have_heap;
    h->scan_partial = !e->have_heap;
    if (!e->have_heap && !h->note[0])
        snprintf(h->note, sizeof(h->note), "heap_5: its regions are not in the ELF: allocated "
                 "blocks before a region's first free block are not walked");
    return 0;
}

/* newlib-nano (nano-mallocr.c): chunks of a size word (a long) then the payload, the first at
 * the break newlib found (__malloc_sbrk_start) aligned to a pointer's size, one after the other
 * (a payload 8-aligned by padding inside its chunk); free chunks on __malloc_free_list (address order, NULL-terminated: the size word,
 * then the next chunk). No allocated bit and no end: a chunk is free when on the list; the heap
 * ends at the first chunk whose size is 0 or out of range (the break). 0, or -1 with a message. */
static int walk_nano(const struct pm_dump *d, struct hw_heap *h, const struct elfinfo *e,
                     char *err, size_t errlen)
{
    h->allocator = "newlib-nano malloc";
    h->hdr = h->ptr; /* CHUNK_OFFSET: the payload (or a padding's negative offset) follows */
    uint64_t start, first;
    if (word(d, h, e->nano_start, &start) || word(d, h, e->nano_list, &first)) {
        snprintf(err, errlen, "%s: __malloc_sbrk_start or __malloc_free_list (0x%" PRIx64 ", 0x%"
                 PRIx64 ") not in the dump", h->allocator, e->nano_start, e->nano_list);
        return -1;
    }
    if (start == 0) {
        snprintf(err, errlen, "%s: __malloc_sbrk_start is NULL: no allocation before the dump",
                 h->allocator);
        return -1;
    }
    h->lo = (start + h->ptr - 1u) & ~(uint64_t)(h->ptr - 1u); /* CHUNK_ALIGN: a pointer's */
    if (h->lo < start) {
        snprintf(err, errlen, "%s: __malloc_sbrk_start 0x%" PRIx64 " at the address space's end",
                 h->allocator, start);
        return -1;
    }
    /* The chunks by their sizes up to the break: the heap's extent, which bounds the list. */
    size_t cap = 0;
    uint64_t a = h->lo, size;
    while (h->nb < MAX_BLOCKS && word(d, h, a, &size) == 0) {
        if (h->ptr == 4 && (size & 0x80000000u))
            break; /* a negative long */
        if (size < 2u * h->ptr || (size & 3u) || !pm_mem(d, a, size) || a + size < a)
            break;
        add_block(h, &cap, a, size, 0);
        a += size;
    }
    h->end = h->hi = a;
    char why[256];
    if (walk_free_list(d, h, first, 0, 1, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "%s: %s", h->allocator, why);
        return -1;
    }
    /* Each free chunk must be one of the chunks walked. */
    size_t k = 0;
    for (size_t i = 0; i < h->nfl; i++) {
        while (k < h->nb && h->b[k].addr < h->fl[i].addr)
            k++;
        if (k == h->nb || h->b[k].addr != h->fl[i].addr || h->b[k].size != h->fl[i].size) {
            snprintf(err, errlen, "%s: free chunk 0x%" PRIx64 " (%" PRIu64 " bytes) is not a chunk "
                     "of the walk by sizes from 0x%" PRIx64 " (a corrupt size or link)",
                     h->allocator, h->fl[i].addr, h->fl[i].size, h->lo);
            return -1;
        }
        h->b[k].free = 1;
    }
    h->walked_all = 1;
    return 0;
}

/* Full newlib (mallocr.c, dlmalloc 2.6): chunks of a prev_size and a size word (size_t each; the
 * size's bit 0 PREV_INUSE: the chunk before is allocated, bit 1 IS_MMAPPED) then the payload,
 * sizes multiples of 2 size_t's, from the break at the first allocation (__malloc_sbrk_base,
 * (char *)-1 before it) aligned so a payload is, one after the other up to the top chunk
 * (__malloc_av_[2]), the heap's free end, whose size reaches the break. A chunk is free when the
 * next one's PREV_INUSE is clear; the top chunk is free. Free chunks but top sit in the bins:
 * __malloc_av_[2i + 2] and [2i + 3] are bin i's first and last (the bin's header is a chunk
 * 2 size_t's before them, its fd and bk), bin 1 the last remainder, bins 1-127 walked by fd: each
 * entry must be a free chunk of the walk, each free chunk on one bin. */
#define NL_NAV 128 /* mallocr.c's NAV: bins */

/* newlib's heap extent: its start (h->lo) from __malloc_sbrk_base, the top chunk (*top, of
 * *topsize bytes) ending it (h->end). 0, or -1 with a message. */
static int nl_extent(const struct pm_dump *d, struct hw_heap *h, const struct elfinfo *e,
                     uint64_t *top, uint64_t *topsize, char *err, size_t errlen)
{
    const uint64_t sz = h->ptr, align = 2u * sz; /* SIZE_SZ */
    const uint64_t ones = sz == 8 ? UINT64_MAX : UINT32_MAX;
    uint64_t base;
    if (word(d, h, e->nl_base, &base) || word(d, h, e->nl_av + 2u * sz, top)) {
        snprintf(err, errlen, "%s: __malloc_sbrk_base or __malloc_av_ (0x%" PRIx64 ", 0x%" PRIx64
                 ") not in the dump", h->allocator, e->nl_base, e->nl_av);
        return -1;
    }
    if (base == ones) {
        snprintf(err, errlen, "%s: __malloc_sbrk_base is -1: no allocation before the dump",
                 h->allocator);
        return -1;
    }
    h->lo = (base + align - 1u) & ~(align - 1u);
    if (h->lo < base || *top < h->lo || (*top & (align - 1u)) || word(d, h, *top + sz, topsize)) {
        snprintf(err, errlen, "%s: the top chunk (__malloc_av_[2]) 0x%" PRIx64 " is %s "
                 "(__malloc_sbrk_base 0x%" PRIx64 ")", h->allocator, *top,
                 h->lo < base || *top < h->lo ? "not after the heap's start"
                 : *top & (align - 1u)        ? "not aligned"
                                              : "not in the dump", base);
        return -1;
    }
    *topsize &= ~(uint64_t)3u;
    if ((*topsize & (align - 1u)) || *topsize > ones - *top ||
        (*topsize && !pm_mem(d, *top, *topsize))) {
        snprintf(err, errlen, "%s: the top chunk 0x%" PRIx64 "'s size %" PRIu64 " is %s",
                 h->allocator, *top, *topsize, *topsize & (align - 1u) ? "not aligned"
                                                                      : "past the dump's memory");
        return -1;
    }
    h->end = h->hi = *top + *topsize;
    /* The bytes taken from _sbrk (sbrked_mem, mallinfo's arena: its first size_t) span the heap
     * but when another _sbrk caller took some between newlib's (the chunks then stop at a
     * fencepost, below) or malloc_trim gave back a misaligned part. */
    uint64_t arena;
    if (e->have_nl_info && word(d, h, e->nl_info, &arena) == 0 && arena != h->end - base)
        snprintf(h->note, sizeof(h->note), "__malloc_current_mallinfo.arena says %" PRIu64 " B "
                 "taken from _sbrk, the heap from __malloc_sbrk_base to the top chunk's end spans %"
                 PRIu64 " B", arena, h->end - base);
    return 0;
}

/* newlib's chunks by their sizes, from the heap's start to the top chunk. 0, or -1 with a
 * message. */
static int nl_chunks(const struct pm_dump *d, struct hw_heap *h, size_t *cap, uint64_t top,
                     char *err, size_t errlen)
{
    const uint64_t sz = h->ptr, align = 2u * sz, minsize = 4u * sz; /* SIZE_SZ, MINSIZE */
    for (uint64_t a = h->lo, size; a < top; a += size) {
        if (h->nb >= MAX_BLOCKS || word(d, h, a + sz, &size)) {
            snprintf(err, errlen, "%s: the chunk at 0x%" PRIx64 " is %s", h->allocator, a,
                     h->nb >= MAX_BLOCKS ? "past the walk's bound" : "not in the dump");
            return -1;
        }
        size &= ~(uint64_t)3u;
        if (size < minsize || (size & (align - 1u)) || size > top - a) {
            snprintf(err, errlen, "%s: the chunk at 0x%" PRIx64 ": size %" PRIu64 " is %s (the "
                     "top chunk: 0x%" PRIx64 ")", h->allocator, a, size,
                     size < minsize ? "too small" : size & (align - 1u) ? "not aligned"
                                                                        : "past the top chunk",
                     top);
            return -1;
        }
        add_block(h, cap, a, size, 0);
    }
    return 0;
}

/* newlib's free chunks: those whose next chunk's PREV_INUSE is clear (its size word was read by
 * nl_chunks), and the top chunk, added to the blocks; all listed in h->fl, in address order. */
static void nl_free(const struct pm_dump *d, struct hw_heap *h, size_t *cap, uint64_t top,
                    uint64_t topsize)
{
    const uint64_t sz = h->ptr;
    size_t cap_fl = 0, nchunks = h->nb;
    for (size_t i = 0; i <= nchunks; i++) {
        uint64_t next = i + 1 < nchunks ? h->b[i + 1].addr : top, nsize = 1;
        if (i == nchunks) { /* the top chunk */
            if (topsize == 0)
                break;
            add_block(h, cap, top, topsize, 1);
        } else if (word(d, h, next + sz, &nsize) == 0 && (nsize & 1u) == 0) {
            h->b[i].free = 1;
        }
        if (!h->b[i].free)
            continue;
        if (h->nfl == cap_fl) {
            cap_fl = cap_fl ? cap_fl * 2 : 256;
            h->fl = xrealloc(h->fl, cap_fl * sizeof(*h->fl));
        }
        h->fl[h->nfl].addr = h->b[i].addr;
        h->fl[h->nfl++].size = h->b[i].size;
        h->free_bytes += h->b[i].size;
        if (h->b[i].size > h->largest)
            h->largest = h->b[i].size, h->largest_at = h->b[i].addr;
    }
}

/* newlib's bins: every free chunk but top on one, nothing else on any. 0, or -1 with a message. */
static int nl_bins(const struct pm_dump *d, struct hw_heap *h, const struct elfinfo *e,
                   uint64_t topsize, char *err, size_t errlen)
{
    const uint64_t sz = h->ptr;
    size_t nfree = h->nfl - (topsize != 0), seen = 0;
    uint8_t *on = xcalloc(h->nfl + 1u, 1);
    int rc = 0;
    for (unsigned bin = 1; bin < NL_NAV && rc == 0; bin++) {
        uint64_t hdr = e->nl_av + (2u * bin + 2u) * sz - 2u * sz, p;
        if (word(d, h, hdr + 2u * sz, &p)) {
            snprintf(err, errlen, "%s: bin %u (0x%" PRIx64 ") not in the dump", h->allocator, bin,
                     hdr);
            rc = -1;
        }
        for (size_t steps = 0; rc == 0 && p != hdr; steps++) {
            size_t k = free_at(h, p);
            if (k == SIZE_MAX || (topsize != 0 && k == h->nfl - 1u) || on[k] || steps > nfree) {
                snprintf(err, errlen, "%s: bin %u's entry %zu, 0x%" PRIx64 ", is %s (a corrupt "
                         "link, size or PREV_INUSE bit)", h->allocator, bin, steps, p,
                         k == SIZE_MAX ? "not a free chunk of the walk by sizes"
                         : on[k]       ? "on a bin twice (a cycle)"
                                       : "the top chunk");
                rc = -1;
            } else if (word(d, h, p + 2u * sz, &p)) {
                snprintf(err, errlen, "%s: bin %u's entry %zu is not in the dump", h->allocator,
                         bin, steps);
                rc = -1;
            } else {
                on[k] = 1;
                seen++;
            }
        }
    }
    if (rc == 0 && seen != nfree) {
        size_t k = 0;
        while (k < nfree && on[k])
            k++;
        snprintf(err, errlen, "%s: %zu of the %zu free chunks (the next chunk's PREV_INUSE clear) "
                 "are on no bin, the first at 0x%" PRIx64 " (a corrupt size or PREV_INUSE bit)",
                 h->allocator, nfree - seen, nfree, k < nfree ? h->fl[k].addr : 0);
        rc = -1;
    }
    free(on);
    return rc;
}

/* The walk of full newlib's heap (above). 0, or -1 with a message. */
static int walk_newlib(const struct pm_dump *d, struct hw_heap *h, const struct elfinfo *e,
                       char *err, size_t errlen)
{
    h->allocator = "newlib malloc";
    h->hdr = 2u * h->ptr; /* chunk2mem */
    uint64_t top, topsize;
    size_t cap = 0;
    if (nl_extent(d, h, e, &top, &topsize, err, errlen) != 0 ||
        nl_chunks(d, h, &cap, top, err, errlen) != 0)
        return -1;
    nl_free(d, h, &cap, top, topsize);
    int rc = nl_bins(d, h, e, topsize, err, errlen);
    h->walked_all = rc == 0;
    return rc;
}

/* The walk of h (its roots and objects already set) at the allocator's symbols e. */
static struct hw_heap *walk(const struct pm_dump *d, struct hw_heap *h, const struct hw_syms *se,
                            const char *elf, char *err, size_t errlen)
{
    struct hw_syms e = *se;
    h->ptr = pm_ptr(d);
    h->big = pm_big(d);
    if (h->ptr != 4 && h->ptr != 8) {
        snprintf(err, errlen, "no heap walk: pointer size %u", h->ptr);
        goto fail;
    }
    if (e.have_start && e.have_end) {
        if (walk_freertos(d, h, &e, err, errlen) != 0)
            goto fail;
    } else if (e.have_nano_list && e.have_nano_start) {
        if (walk_nano(d, h, &e, err, errlen) != 0)
            goto fail;
    } else if (e.have_nl_av && e.have_nl_base) {
        if (walk_newlib(d, h, &e, err, errlen) != 0)
            goto fail;
    } else {
        snprintf(err, errlen, "no allocator known in %s (FreeRTOS heap_4/heap_5: symbols xStart "
                 "and pxEnd; newlib-nano: __malloc_free_list and __malloc_sbrk_start; newlib: "
                 "__malloc_av_ and __malloc_sbrk_base)", elf);
        goto fail;
    }
    if (h->nb)
        qsort(h->b, h->nb, sizeof(*h->b), by_block);
    for (size_t i = 0; i < h->nb; i++)
        if (!h->b[i].free)
            h->used_bytes += h->b[i].size, h->used_blocks++;
    /* The sampled live blocks, each in its heap block: its payload starts past the header (newlib:
     * its chunk's two size words), at most 8 bytes of alignment padding further (newlib-nano). */
    uint32_t cap_live = pm_live_capacity(d);
    h->live = xcalloc(cap_live + 1u, sizeof(*h->live));
    for (uint32_t i = 0; i < cap_live; i++) {
        struct hw_live *l = &h->live[h->nlive];
        if (!pm_live_slot(d, i, &l->addr, &l->size, &l->stack))
            continue;
        l->slot = i;
        l->block = l->addr >= h->hdr ? block_at(h, l->addr - h->hdr) : SIZE_MAX;
        if (l->block != SIZE_MAX &&
            (l->addr - h->hdr < h->b[l->block].addr || l->addr - h->hdr - h->b[l->block].addr >= 8u))
            l->block = SIZE_MAX;
        h->nlive++;
    }
    if (h->walked_all || h->scan_partial)
        reachability(d, h, &e);
    for (size_t i = 0; i < h->nlive; i++) {
        struct hw_live *l = &h->live[i];
        l->state = l->block == SIZE_MAX ? (block_at(h, l->addr) != SIZE_MAX &&
                                                   h->b[block_at(h, l->addr)].free
                                               ? HW_IN_FREE
                                               : HW_OUTSIDE)
                   : h->b[l->block].free ? HW_IN_FREE
                   : !h->walked_all && !h->scan_partial ? HW_NOT_SCANNED
                   : h->b[l->block].marked ? HW_REACHABLE
                                           : HW_UNREACHABLE;
        h->count[l->state]++;
    }
    return h;
fail:
    hw_free(h);
    return NULL;
}

struct hw_heap *hw_walk(const struct pm_dump *d, const char *elf, char *err, size_t errlen)
{
    struct hw_heap *h = xcalloc(1, sizeof(*h));
    struct hw_syms e;
    memset(&e, 0, sizeof(e));
    if (read_elf(h, elf, pm_bias(d), &e, err, errlen) != 0) {
        hw_free(h);
        return NULL;
    }
    return walk(d, h, &e, base_name(elf), err, errlen);
}

struct hw_heap *hw_walk_at(const struct pm_dump *d, const struct hw_syms *e, const uint64_t *lo,
                           const uint64_t *hi, size_t nroots, char *err, size_t errlen)
{
    struct hw_heap *h = xcalloc(1, sizeof(*h));
    for (size_t i = 0; i < nroots && i < HW_MAX_ROOTS; i++) {
        if (hi[i] <= lo[i])
            continue;
        h->root[h->nroot].lo = lo[i];
        h->root[h->nroot].hi = hi[i];
        snprintf(h->root[h->nroot++].name, sizeof(h->root[0].name), "root %zu", i);
    }
    return walk(d, h, e, "the symbols given", err, errlen);
}

void hw_describe(const struct hw_heap *h, char *out, size_t n)
{
    snprintf(out, n, "%s 0x%" PRIx64 "-0x%" PRIx64 ": free %" PRIu64 " B in %zu blocks, largest %"
             PRIu64 " B at 0x%" PRIx64 ", allocated %" PRIu64 " B in %" PRIu64 " blocks; %zu "
             "sampled live blocks: %zu reachable, %zu unreachable%s%s%s%s", h->allocator, h->lo,
             h->hi, h->free_bytes, h->nfl, h->largest, h->largest_at, h->used_bytes,
             h->used_blocks, h->nlive, h->count[HW_REACHABLE], h->count[HW_UNREACHABLE],
             h->count[HW_OUTSIDE] ? ", some outside the heap" : "",
             h->count[HW_IN_FREE] ? ", some in free blocks" : "",
             h->note[0] ? "; " : "", h->note);
}

void hw_holder(const struct hw_heap *h, uint64_t a, char *out, size_t n)
{
    size_t k = a >= h->lo && a < h->end ? block_at(h, a) : SIZE_MAX;
    if (k != SIZE_MAX) {
        snprintf(out, n, "heap block 0x%" PRIx64 "+%" PRIu64, h->b[k].addr + h->hdr,
                 a - h->b[k].addr - h->hdr);
        return;
    }
    size_t lo = 0, hi = h->nsym;
    while (lo < hi) { /* the last object starting at or below a */
        size_t m = lo + (hi - lo) / 2;
        if (h->sym[m].addr <= a)
            lo = m + 1;
        else
            hi = m;
    }
    if (lo > 0 && a - h->sym[lo - 1].addr < h->sym[lo - 1].size) {
        snprintf(out, n, "%s+%" PRIu64, h->sym[lo - 1].name, a - h->sym[lo - 1].addr);
        return;
    }
    for (size_t i = 0; i < h->nroot; i++)
        if (a >= h->root[i].lo && a < h->root[i].hi) {
            snprintf(out, n, "%s+0x%" PRIx64, h->root[i].name, a - h->root[i].lo);
            return;
        }
    snprintf(out, n, "0x%" PRIx64, a);
}
