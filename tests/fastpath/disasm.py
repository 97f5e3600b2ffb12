#!/usr/bin/env python3
"""Usage: tests/fastpath/disasm.py OBJDUMP LIBRARY ARCH NAME=MAX...

Reads the wrappers' code in LIBRARY (objdump -dr) and checks each named wrapper's unsampled path:
the shortest path through its code from the entry to the tail jump to __real_NAME (a jump
carrying a relocation against that symbol) must be at most MAX instructions, counting that jump.
The wrapper must hold no call, no return and nothing that builds a frame (its fast path is
frameless: the real allocator returns straight to the application), and its every other exit
must be a tail jump to a function of its own object that builds a frame pointer (the slow path,
which walks from its own frame: its caller is then the application). Prints each wrapper's count.
ARCH: x86_64 or aarch64. Exit 1 when a check fails, 2 on bad usage.
"""
import re
import subprocess
import sys

ARCH = {
    "x86_64": {
        "cond": re.compile(r"^j(?!mp)[a-z]+$"),
        "jump": re.compile(r"^jmp[q]?$"),
        "call": re.compile(r"^call[q]?$"),
        "ret": re.compile(r"^ret[q]?$"),
        "frame_ops": lambda m, ops: m.startswith("push") or m in ("enter", "leave") or
        (m.startswith("sub") and ops.endswith("%rsp")),
        "builds_fp": lambda body: any(m.startswith("push") and ops == "%rbp" for _, m, ops, _ in body),
    },
    "aarch64": {
        "cond": re.compile(r"^(b\.[a-z]+|cbn?z|tbn?z)$"),
        "jump": re.compile(r"^b$"),
        "call": re.compile(r"^(bl|blr)$"),
        "ret": re.compile(r"^ret$"),
        "frame_ops": lambda m, ops: m in ("stp", "str") and "sp" in ops or
        (m == "sub" and ops.startswith("sp")),
        "builds_fp": lambda body: any(m == "stp" and ops.startswith("x29, x30") for _, m, ops, _ in body),
    },
}

INSN = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*?)\s*$")
RELOC = re.compile(r"^\s*([0-9a-f]+):\s+R_\S+\s+(\S+)")
FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")


def parse(text, comment):
    """{object: {function: [(addr, mnemonic, operands, reloc_symbol)]}}"""
    objs, obj, fn = {}, None, None
    for line in text.splitlines():
        m = re.match(r"^(\S+\.o):\s+file format", line)
        if m:
            obj = m.group(1)
            objs[obj] = {}
            continue
        m = FUNC.match(line)
        if m and obj is not None:
            fn = m.group(2)
            objs[obj][fn] = []
            continue
        if fn is None or obj is None:
            continue
        m = RELOC.match(line)
        if m and objs[obj][fn]:
            a, mn, ops, _ = objs[obj][fn][-1]
            objs[obj][fn][-1] = (a, mn, ops, re.sub(r"[-+]0x[0-9a-f]+$", "", m.group(2)))
            continue
        m = INSN.match(line)
        if m:
            ops = re.sub(comment, "", m.group(3))
            objs[obj][fn].append((int(m.group(1), 16), m.group(2), ops, None))
    return objs


def target(ops):
    m = re.match(r"^([0-9a-f]+)\b", ops)
    return int(m.group(1), 16) if m else None


def check(arch, objs, name, limit):
    a = ARCH[arch]
    wrap = "__wrap_" + name
    found = [(o, f) for o, f in objs.items() if wrap in f]
    if len(found) != 1:
        return f"{wrap}: found in {len(found)} objects"
    obj, funcs = found[0]
    body = funcs[wrap]
    index = {insn[0]: i for i, insn in enumerate(body)}
    for _, mn, ops, _ in body:
        if a["call"].match(mn) or a["ret"].match(mn):
            return f"{wrap}: '{mn} {ops}' (the wrapper must only tail-jump)"
        if a["frame_ops"](mn, ops):
            return f"{wrap}: '{mn} {ops}' builds a frame"
    # Shortest path (instruction count) from the entry to the tail jump to __real_NAME.
    best, frontier, seen = None, [(0, 0)], set()
    exits_checked = set()
    while frontier:
        frontier.sort()
        n, i = frontier.pop(0)
        if i in seen or i >= len(body):
            continue
        seen.add(i)
        addr, mn, ops, rel = body[i]
        n += 1
        if a["jump"].match(mn):
            if rel is not None:
                if rel == "__real_" + name:
                    best = n if best is None else min(best, n)
                    continue
                if rel in funcs and rel != wrap:
                    exits_checked.add(rel)
                    continue
                return f"{wrap}: tail jump to {rel}, neither __real_{name} nor a local function"
            t = target(ops)
            # A jump to a local function shows as a jump to its address without a relocation.
            local = [f for f, b in funcs.items() if b and b[0][0] == t and f != wrap]
            if local:
                exits_checked.add(local[0])
                continue
            if t not in index:
                return f"{wrap}: jump to {ops} outside the function"
            frontier.append((n, index[t]))
            continue
        if a["cond"].match(mn):
            t = target(ops.split(",")[-1].strip()) if arch == "aarch64" else target(ops)
            if t in index:
                frontier.append((n, index[t]))
        frontier.append((n, i + 1))
    if best is None:
        return f"{wrap}: no path to a tail jump to __real_{name}"
    if not exits_checked:
        return f"{wrap}: no tail jump to a slow path"
    for f in exits_checked:
        if not a["builds_fp"](funcs[f]):
            return f"{wrap}: its slow path {f} builds no frame pointer"
    print(f"{arch} __wrap_{name}: unsampled path {best} instructions (at most {limit}); "
          f"slow path {', '.join(sorted(exits_checked))} tail-called, with its own frame")
    if best > limit:
        return f"{wrap}: {best} instructions on the unsampled path, above {limit}"
    return None


def main():
    if len(sys.argv) < 5 or sys.argv[3] not in ARCH:
        print(__doc__, file=sys.stderr)
        return 2
    objdump, lib, arch = sys.argv[1:4]
    text = subprocess.run([objdump, "-dr", "--no-show-raw-insn", lib], check=True,
                          capture_output=True, text=True).stdout
    objs = parse(text, r"\s*#.*$" if arch == "x86_64" else r"\s*//.*$")
    bad = 0
    for spec in sys.argv[4:]:
        name, limit = spec.split("=")
        err = check(arch, objs, name, int(limit))
        if err:
            print("FAIL: " + err)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
