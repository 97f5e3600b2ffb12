#!/usr/bin/env python3
"""Usage: mutheap.py freertos RAM BASE XSTART PXEND UCHEAP OUTDIR
       mutheap.py nano RAM BASE FREE_LIST SBRK_START ARENA OUTDIR
       mutheap.py full RAM BASE MALLOC_AV SBRK_BASE ARENA OUTDIR
Writes damaged copies of a little-endian 32-bit RAM image (starting at device address BASE) of a
FreeRTOS heap_4 firmware (or a newlib-nano one: __malloc_free_list, __malloc_sbrk_start, its
arena; or a full newlib one: __malloc_av_, __malloc_sbrk_base, its arena) to OUTDIR, and one line "NAME what" for each (t_heapwalk.sh reads them
with drain --heap-map under ASan+UBSan): the free list's links (wild, unaligned, a cycle, a link
back, out of the image), its sizes (huge, marked allocated, zero), xStart and pxEnd, an allocated
block's size word, the heap zeroed or random, 4 KiB not dumped inside the heap, 64 bytes over xStart.
Addresses are hex (readelf's) or 0x-prefixed."""
import os
import random
import struct
import sys


class Muts:
    """The damaged copies of a RAM image at BASE: word reads and writes, and each copy written."""

    def __init__(self, ram, base, out):
        self.ram, self.base, self.out, self.names = ram, base, out, []

    def get(self, img, a):
        return struct.unpack_from("<I", img, a - self.base)[0]

    def put(self, img, a, v):
        struct.pack_into("<I", img, a - self.base, v & 0xFFFFFFFF)

    def mut(self, name, what, fn):
        img = bytearray(self.ram)
        fn(img)
        open(os.path.join(self.out, name), "wb").write(img)
        self.names.append((name, what))

    def heap(self, lo, end):
        """The heap [lo, end) zeroed, and random bytes."""
        def zero(m):
            m[lo - self.base:end - self.base] = bytes(end - lo)

        def rand(m):
            r = random.Random(1234)
            m[lo - self.base:end - self.base] = bytes(r.getrandbits(8) for _ in range(end - lo))
        self.mut("heap-zero", "the heap zeroed", zero)
        self.mut("heap-random", "the heap random bytes", rand)

    def done(self):
        for name, what in self.names:
            print(name, what)


def main():
    mode = sys.argv[1]
    ram = open(sys.argv[2], "rb").read()
    base, xstart, pxend, ucheap = (int(a, 16) for a in sys.argv[3:7])
    out = sys.argv[7]
    os.makedirs(out, exist_ok=True)
    if mode == "nano":
        return nano(ram, base, xstart, pxend, ucheap, out)
    if mode == "full":
        return full(ram, base, xstart, pxend, out)

    m = Muts(ram, base, out)
    get, put, mut = m.get, m.put, m.mut
    end = get(ram, pxend)
    first = get(ram, xstart)
    frees = []
    p = first
    while p != end and len(frees) < 100000:
        frees.append(p)
        p = get(ram, p)
    lo = (ucheap + 7) & ~7
    alloc = lo  # the first allocated block (the heap's start is allocated in the demo, else after a hole)
    while get(ram, alloc + 4) & 0x80000000 == 0:
        alloc += get(ram, alloc + 4)

    mut("xstart-wild", "xStart's link 0xdeadbeef", lambda m: put(m, xstart, 0xDEADBEEF))
    mut("xstart-unaligned", "xStart's link 2 bytes off", lambda m: put(m, xstart, first + 2))
    mut("xstart-null", "xStart's link NULL", lambda m: put(m, xstart, 0))
    mut("pxend-null", "pxEnd NULL (never initialised)", lambda m: put(m, pxend, 0))
    mut("pxend-outside", "pxEnd out of ucHeap", lambda m: put(m, pxend, 0x10))
    mut("pxend-early", "pxEnd before the last free block", lambda m: put(m, pxend, frees[-1] - 8))
    mut("link-cycle", "the third free block linked to the second", lambda m: put(m, frees[2], frees[1]))
    mut("link-self", "a free block linked to itself", lambda m: put(m, frees[1], frees[1]))
    mut("link-back", "a free block linked to the heap's start", lambda m: put(m, frees[3], lo))
    mut("link-out", "a free block linked past the image", lambda m: put(m, frees[1], base + len(ram) + 64))
    mut("link-into-block", "a link into an allocated block", lambda m: put(m, frees[1], alloc + 16))
    mut("size-huge", "a free block's size 0x7fffffff", lambda m: put(m, frees[1] + 4, 0x7FFFFFFF))
    mut("size-allocated", "a free block's size marked allocated", lambda m: put(m, frees[1] + 4, get(m, frees[1] + 4) | 0x80000000))
    mut("size-zero", "a free block's size 0", lambda m: put(m, frees[1] + 4, 0))
    mut("size-overlap", "a free block's size over the next free block", lambda m: put(m, frees[1] + 4, frees[2] - frees[1] + 64))
    mut("block-tiny", "an allocated block's size 3", lambda m: put(m, alloc + 4, 0x80000003))
    mut("block-huge", "an allocated block's size past the heap", lambda m: put(m, alloc + 4, 0xFFFFFFF0))
    mut("block-unmarked", "an allocated block's size without its allocated bit", lambda m: put(m, alloc + 4, get(m, alloc + 4) & 0x7FFFFFFF))
    mut("block-zero", "an allocated block's size 0", lambda m: put(m, alloc + 4, 0))

    m.heap(lo, end)

    def pointers_everywhere(m):
        for a in range(lo, end, 4):
            put(m, a, lo + 8 + (a - lo) // 2 * 0 + 0)
        put(m, xstart, first)
    mut("heap-selfpointers", "every heap word a pointer to the first block", pointers_everywhere)

    m.done()
    gaps(ram, base, out, (("gap-heap", frees[len(frees) // 2] - base & ~0xFFF, 4096, "4 KiB of the heap not dumped"),
                          ("gap-xstart", xstart - base & ~15, 64, "the 64 bytes around xStart not dumped")))


def gaps(ram, base, out, spans):
    """Memory not dumped: the image in two parts (NAME.a at BASE, NAME.b at BASE + NAME.off)."""
    for name, at, gap, what in spans:
        open(os.path.join(out, name + ".a"), "wb").write(ram[:at])
        open(os.path.join(out, name + ".b"), "wb").write(ram[at + gap:])
        open(os.path.join(out, name + ".off"), "w").write(str(at + gap))
        print(name, what)


def nano(ram, base, flist, sstart, arena, out):
    m = Muts(ram, base, out)
    get, put, mut = m.get, m.put, m.mut
    frees = []
    p = get(ram, flist)
    while p and len(frees) < 100000:
        frees.append(p)
        p = get(ram, p + 4)
    start = get(ram, sstart)
    lo = (start + 3) & ~3
    alloc = lo
    while alloc in frees:
        alloc += get(ram, alloc)

    mut("list-wild", "__malloc_free_list 0xdeadbeef", lambda m: put(m, flist, 0xDEADBEEF))
    mut("list-unaligned", "__malloc_free_list 2 bytes off", lambda m: put(m, flist, frees[0] + 2))
    mut("list-null", "__malloc_free_list NULL (no free chunk: valid)", lambda m: put(m, flist, 0))
    mut("start-null", "__malloc_sbrk_start NULL", lambda m: put(m, sstart, 0))
    mut("start-wild", "__malloc_sbrk_start 0xfffffff0", lambda m: put(m, sstart, 0xFFFFFFF0))
    mut("start-late", "__malloc_sbrk_start past the first free chunk", lambda m: put(m, sstart, frees[0] + 64))
    mut("link-cycle", "the third free chunk linked to the second", lambda m: put(m, frees[2] + 4, frees[1]))
    mut("link-self", "a free chunk linked to itself", lambda m: put(m, frees[1] + 4, frees[1]))
    mut("link-back", "a free chunk linked to the heap's start", lambda m: put(m, frees[3] + 4, lo))
    mut("link-out", "a free chunk linked past the image", lambda m: put(m, frees[1] + 4, base + len(ram) + 64))
    mut("link-into-chunk", "a link into an allocated chunk", lambda m: put(m, frees[1] + 4, alloc + 8))
    mut("size-huge", "a free chunk's size 0x7fffffff", lambda m: put(m, frees[1], 0x7FFFFFFF))
    mut("size-negative", "a free chunk's size -16", lambda m: put(m, frees[1], -16))
    mut("size-zero", "a free chunk's size 0", lambda m: put(m, frees[1], 0))
    mut("size-odd", "a free chunk's size 8 bytes more", lambda m: put(m, frees[1], get(m, frees[1]) + 8))
    mut("chunk-zero", "an allocated chunk's size 0 (the walk ends early)", lambda m: put(m, alloc, 0))
    mut("chunk-huge", "an allocated chunk's size past the image", lambda m: put(m, alloc, 0x7FFFFFF0))

    m.heap(lo, frees[-1] + get(ram, frees[-1]))
    m.done()
    gaps(ram, base, out, (("gap-heap", frees[len(frees) // 2] - base & ~0xFF, 256, "256 bytes of the heap not dumped"),
                          ("gap-list", flist - base & ~15, 16, "__malloc_free_list not dumped")))


def full(ram, base, av, sbase, out):
    """Full newlib (dlmalloc): its chunks from __malloc_sbrk_base to the top chunk
    (__malloc_av_[2]), the bins' links at __malloc_av_[2i + 2]."""
    m = Muts(ram, base, out)
    get, put, mut = m.get, m.put, m.mut
    top = get(ram, av + 8)
    lo = (get(ram, sbase) + 7) & ~7
    chunks = []
    a = lo
    while a < top and len(chunks) < 100000:
        chunks.append(a)
        a += get(ram, a + 4) & ~3
    frees = [c for i, c in enumerate(chunks) if get(ram, (chunks[i + 1] if i + 1 < len(chunks) else top) + 4) & 1 == 0]
    alloc = next(c for c in chunks if c not in frees)
    bin_hdr = next(av + 8 * i for i in range(1, 128) if get(ram, av + 8 * i + 8) != av + 8 * i)  # a bin in use
    first = get(ram, bin_hdr + 8)
    end = top + (get(ram, top + 4) & ~3)

    mut("top-wild", "the top chunk 0xdeadbee8", lambda m: put(m, av + 8, 0xDEADBEE8))
    mut("top-unaligned", "the top chunk 4 bytes off", lambda m: put(m, av + 8, top + 4))
    mut("top-early", "the top chunk before the heap", lambda m: put(m, av + 8, lo - 64))
    mut("top-inside", "the top chunk at an allocated chunk", lambda m: put(m, av + 8, alloc))
    mut("top-huge", "the top chunk's size 0x7ffffff0", lambda m: put(m, top + 4, 0x7FFFFFF1))
    mut("base-unset", "__malloc_sbrk_base -1 (no allocation)", lambda m: put(m, sbase, 0xFFFFFFFF))
    mut("base-wild", "__malloc_sbrk_base 0xfffffff0", lambda m: put(m, sbase, 0xFFFFFFF0))
    mut("base-late", "__malloc_sbrk_base inside the first chunk", lambda m: put(m, sbase, lo + 8))
    mut("chunk-zero", "an allocated chunk's size 0", lambda m: put(m, alloc + 4, 0))
    mut("chunk-huge", "an allocated chunk's size past top", lambda m: put(m, alloc + 4, 0x7FFFFFF1))
    mut("chunk-odd", "an allocated chunk's size 4 bytes more", lambda m: put(m, alloc + 4, get(m, alloc + 4) + 4))
    after = alloc + (get(ram, alloc + 4) & ~3)
    mut("chunk-freed", "the PREV_INUSE bit after an allocated chunk cleared (a free chunk on no bin)",
        lambda m: put(m, after + 4, get(m, after + 4) & ~1))
    mut("bin-wild", "a bin's first link 0xdeadbeef", lambda m: put(m, bin_hdr + 8, 0xDEADBEEF))
    mut("bin-alloc", "a bin's first link an allocated chunk", lambda m: put(m, bin_hdr + 8, alloc))
    mut("bin-top", "a bin's first link the top chunk", lambda m: put(m, bin_hdr + 8, top))
    mut("link-self", "a free chunk's fd itself (a cycle)", lambda m: put(m, first + 8, first))
    mut("link-out", "a free chunk's fd past the image", lambda m: put(m, first + 8, base + len(ram) + 64))
    mut("bin-empty", "a bin emptied (its chunks on no bin)", lambda m: put(m, bin_hdr + 8, bin_hdr))

    m.heap(lo, end)
    m.done()
    gaps(ram, base, out, (("gap-heap", chunks[len(chunks) // 2] - base & ~0xFF, 256, "256 bytes of the heap not dumped"),
                          ("gap-av", av - base & ~15, 16, "the start of __malloc_av_ (top) not dumped")))


if __name__ == "__main__":
    main()
