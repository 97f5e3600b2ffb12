#!/usr/bin/env python3
"""Usage: tests/bench/free_filter.py

The hosted free filter's probes that find nothing (issue 41, docs/PERFORMANCE.md "Issue 41: free
and realloc"): of 200 000 blocks a stride apart (as an allocator hands them out), a random subset
of L is sampled (live); the share of the other blocks whose probe says "maybe" is printed for the
word-per-bucket masks of 2^19 bits on the live table's mixed hash (main before issue 41) and for
the 2^17 byte counts on one 32-bit multiply (src/msamp_table.h, msamp_live_cell), both computed
as the C code does on a 64-bit host. Deterministic (seed 1).
"""
import random

M64 = (1 << 64) - 1
K64 = 0x9E3779B97F4A7C15
BLOCKS = 200000
BASE = 0x55555555A000


def mask_key(p):
    """The masks' word (bits 31..18 of the mixed hash) and bit (bits 17..13)."""
    x = (p * K64) & M64
    x ^= x >> 32
    h = ((x * K64) & M64) >> 32
    return (h >> 18, (h >> 13) & 31)


def cell_key(p):
    """msamp_live_cell: the top 17 bits of the low 32 bits times 0x9E3779B9."""
    return (((p & 0xFFFFFFFF) * 0x9E3779B9) & 0xFFFFFFFF) >> 15


def main():
    rng = random.Random(1)
    print("stride B  live   masks (2^19 bits)  counts (2^17 cells): share of unsampled frees probed")
    for stride in (16, 48, 1008, 65552):
        addrs = [BASE + i * stride for i in range(BLOCKS)]
        for live in (200, 2000, 10000):
            sampled = set(rng.sample(range(BLOCKS), live))
            masks = {mask_key(addrs[i]) for i in sampled}
            cells = {cell_key(addrs[i]) for i in sampled}
            rest = [a for i, a in enumerate(addrs) if i not in sampled]
            m = sum(mask_key(a) in masks for a in rest) / len(rest)
            c = sum(cell_key(a) in cells for a in rest) / len(rest)
            print(f"{stride:8d} {live:5d}   {100 * m:16.3f} %  {100 * c:17.3f} %")


if __name__ == "__main__":
    main()
