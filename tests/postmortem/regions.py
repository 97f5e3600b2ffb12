#!/usr/bin/env python3
"""Usage: regions.py SECTIONS  (readelf -SW output)
The ELF's allocated sections in groups, a gap over 1 MiB starting a new one, each widened to
4 KiB pages: "ADDR SIZE" lines (decimal), the memory to dump (t_postmortem.sh, t_heapwalk.sh)."""
import re
import sys

spans = []
for line in open(sys.argv[1]):
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
    if m and "A" in m.group(5) and int(m.group(4), 16) and m.group(2) != "NULL":
        a = int(m.group(3), 16)
        spans.append((a, a + int(m.group(4), 16)))
spans.sort()
groups = []
for a, b in spans:
    if groups and a - groups[-1][1] < (1 << 20):
        groups[-1][1] = max(groups[-1][1], b)
    else:
        groups.append([a, b])
for a, b in groups:
    a &= ~0xFFF
    b = (b + 0xFFF) & ~0xFFF
    print(a, b - a)
