#!/usr/bin/env python3
"""drain's stage rule (docs/ARCHITECTURE.md "drain's stages") and its house measures.

Reads every .c and .h under host_tools/src/drain and fails, naming file and line, on:
  - an include of a drain header that is not by path from host_tools/src/drain ("model/est.h",
    "util.h"), such as a bare "session.h";
  - an include upward: a file of a stage including a header of a later stage (the order is
    DRAIN_STAGES in host_tools/drain.mk, the one place it is written; docs/ARCHITECTURE.md states
    it too and this checks they agree);
  - a file outside every stage folder (the root holds util.c and util.h alone: the base);
  - a circle between modules, however long the ring. A module is a header with the .c files that
    define what it declares and include it (one interface split over files: session.h and the
    model's files behind it), or a file alone. A module depends on every module whose .c defines a
    function that a header it includes declares: a header declaring another file's functions
    cannot hide a circle (or an upward tie);
  - a per-stage -I in drain.mk's DRAIN_INC (includes are by path);
  - a .c file that docs/ARCHITECTURE.md's stage table does not name in its stage's row;
  - a test source (tests/) that includes a drain header by its bare name.
Then prints the house measures: lines per folder, the largest files, files over 800 lines and
functions over 100 lines.

Usage: stages.py [REPO]   (default: the current directory). Exit 0: the rule holds; 1: it does
not (each violation on its own line, "stages: FILE:LINE: what"); 2: the repo cannot be read.
"""
import os
import re
import sys

ROOT = 'host_tools/src/drain'
BASE = {'util.c', 'util.h'}  # the root's files: the base every stage may include
OTHER_INC = ['host_tools/lib', 'include']  # headers outside drain, included as they are named
MAX_FILE, MAX_FUNC = 800, 100
# Known exceptions: (file, included header, why it is right). None today.
EXCEPTIONS = []


def fail_usage(msg):
    print(f'stages: {msg}', file=sys.stderr)
    sys.exit(2)


def stage_order(repo):
    """DRAIN_STAGES of drain.mk (lower first), and whether DRAIN_INC has a per-stage -I."""
    path = os.path.join(repo, 'host_tools/drain.mk')
    try:
        text = open(path, encoding='utf-8').read()
    except OSError as e:
        fail_usage(f'{path}: {e.strerror}')
    text = text.replace('\\\n', ' ')
    m = re.search(r'^DRAIN_STAGES\s*:?=\s*(.*)$', text, re.M)
    if not m or not m.group(1).split():
        fail_usage(f'{path}: no DRAIN_STAGES line')
    problems = []
    inc = re.search(r'^DRAIN_INC\s*:?=\s*(.*)$', text, re.M)
    if inc:
        for flag in re.findall(r'-I\s*(\S+)', inc.group(1)):
            if re.match(r'\$\(DRAIN_DIR\)/|host_tools/src/drain/', flag) or 'DRAIN_STAGES' in flag:
                problems.append(f'host_tools/drain.mk: DRAIN_INC has a per-stage -I{flag} '
                                '(includes are by path from $(DRAIN_DIR))')
    return m.group(1).split(), problems


def doc_order(repo, order):
    """docs/ARCHITECTURE.md states the order as `input < model < ...`: the same as drain.mk's."""
    path = os.path.join(repo, 'docs/ARCHITECTURE.md')
    try:
        text = open(path, encoding='utf-8').read()
    except OSError:
        return [f'docs/ARCHITECTURE.md: missing (it states the stage order)']
    want = ' < '.join(order)
    found = re.findall(r'`((?:[a-z]+ < )+[a-z]+)`', text)
    if want in found:
        return []
    return [f'docs/ARCHITECTURE.md: does not state the stage order `{want}` of drain.mk\'s '
            f'DRAIN_STAGES (it states: {", ".join(found) or "none"})']


def doc_files(repo, files):
    """docs/ARCHITECTURE.md's stage table names every .c file in its stage's row (the doc matches
    the tree)."""
    try:
        text = open(os.path.join(repo, 'docs/ARCHITECTURE.md'), encoding='utf-8').read()
    except OSError:
        return []  # said by doc_order
    rows = {}
    for m in re.finditer(r'^\| `([a-z]+)/` \| (.*)$', text, re.M):
        rows[m.group(1)] = m.group(2)
    out = []
    for rel in sorted(files):
        if rel.endswith('.c') and '/' in rel:
            folder, base = rel.split('/', 1)
            if f'`{base}`' not in rows.get(folder, ''):
                out.append(f'docs/ARCHITECTURE.md: the row of `{folder}/` in "drain\'s stages" does '
                           f'not name `{base}` ({ROOT}/{rel})')
    return out


def test_includes(repo, files):
    """Test sources (tests/) that build with drain's sources include its headers by path too: a
    bare "heapmap.h" built only while drain.mk had per-stage -I flags."""
    bases = {}
    for rel in files:
        if rel.endswith('.h') and '/' in rel:
            bases.setdefault(os.path.basename(rel), []).append(rel)
    out, own = [], set()  # own: the tests' own headers (tests/unit/check.h), not drain's
    for d, _, fs in os.walk(os.path.join(repo, 'tests')):
        own.update(f for f in fs if f.endswith('.h'))
    for d, _, fs in os.walk(os.path.join(repo, 'tests')):
        for f in sorted(fs):
            if not f.endswith(('.c', '.h', '.cc', '.cpp')):
                continue
            p = os.path.join(d, f)
            for n, ln in enumerate(open(p, encoding='utf-8', errors='replace'), 1):
                m = re.match(r'\s*#\s*include\s*"([^"/]+)"', ln)
                if m and m.group(1) in bases and m.group(1) not in own:
                    out.append(f'{os.path.relpath(p, repo)}:{n}: #include "{m.group(1)}" is not by path '
                               f'from {ROOT} (write {", ".join(bases[m.group(1)])})')
    return out


def read_files(repo):
    files = {}
    top = os.path.join(repo, ROOT)
    if not os.path.isdir(top):
        fail_usage(f'{top}: not a folder')
    for d, _, fs in os.walk(top):
        for f in fs:
            if f.endswith(('.c', '.h')):
                p = os.path.join(d, f)
                rel = os.path.relpath(p, top).replace(os.sep, '/')
                files[rel] = open(p, encoding='utf-8', errors='replace').read().split('\n')
    return files


def strip_comments(lines):
    """The lines with /* */ and // comments blanked (line count kept)."""
    out, inside = [], False
    for ln in lines:
        res, i = '', 0
        while i < len(ln):
            if inside:
                j = ln.find('*/', i)
                if j < 0:
                    i = len(ln)
                else:
                    inside, i = False, j + 2
            elif ln.startswith('/*', i):
                inside, i = True, i + 2
            elif ln.startswith('//', i):
                break
            else:
                res += ln[i]
                i += 1
        out.append(res)
    return out


def unit(rel):
    return rel[:-2]


def declared(lines):
    """Functions a header declares (top-level prototypes)."""
    names, text = set(), ' '.join(l for l in strip_comments(lines) if not l.lstrip().startswith('#'))
    depth, stmt = 0, ''
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
            stmt = ''
        elif depth == 0:
            if ch == ';':
                m = re.search(r'([A-Za-z_]\w*)\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*'
                              r'(__attribute__\s*\(\(.*\)\))?\s*$', stmt)
                if m and not re.match(r'\s*typedef\b', stmt) and '=' not in stmt:
                    names.add(m.group(1))
                stmt = ''
            else:
                stmt += ch
    return names


def functions(lines):
    """(name, first line, last line, static) of every function defined at column 0 ('{' alone)."""
    out, i = [], 0
    while i < len(lines):
        if lines[i] == '{':
            j = i - 1
            while j > 0 and not re.match(r'[A-Za-z_]', lines[j]):
                j -= 1
            sig = ' '.join(lines[j:i])
            m = re.search(r'([A-Za-z_]\w*)\s*\(', sig)
            k = i + 1
            while k < len(lines) and not lines[k].startswith('}'):
                k += 1
            if m and '=' not in sig.split('(')[0] and not sig.startswith(('struct', 'enum', 'union')):
                out.append((m.group(1), j + 1, k + 1, sig.startswith('static')))
            i = k
        i += 1
    return out


def check(repo):
    order, problems = stage_order(repo)
    problems += doc_order(repo, order)
    level = {s: n for n, s in enumerate(order)}
    files = read_files(repo)
    problems += doc_files(repo, files)
    problems += test_includes(repo, files)
    others = {}
    for d in OTHER_INC:
        full = os.path.join(repo, d)
        if os.path.isdir(full):
            for f in os.listdir(full):
                others[f] = d
    by_base = {}
    for rel in files:
        by_base.setdefault(os.path.basename(rel), []).append(rel)

    def stage_of(rel):
        if '/' not in rel:
            return -1 if rel in BASE else None
        return level.get(rel.split('/')[0])

    excepted = {(f, h) for f, h, _ in EXCEPTIONS}
    includes = {}  # rel -> [(line, included drain file)]
    for rel in sorted(files):
        st = stage_of(rel)
        if st is None:
            where = rel.split('/')[0] if '/' in rel else '(root)'
            problems.append(f'{ROOT}/{rel}: in {where}, which is no stage of DRAIN_STAGES '
                            f'({" ".join(order)}; the root holds {" and ".join(sorted(BASE))})')
        inc = includes.setdefault(rel, [])
        for n, ln in enumerate(strip_comments(files[rel]), 1):
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', ln)
            if not m:
                continue
            name = m.group(1)
            if name in files:
                inc.append((n, name))
            elif name in others and name not in by_base:
                continue
            elif os.path.basename(name) in by_base:
                cands = ', '.join(f'"{c}"' for c in by_base[os.path.basename(name)])
                problems.append(f'{ROOT}/{rel}:{n}: #include "{name}" is not by path from {ROOT} '
                                f'(write {cands})')
                if len(by_base[os.path.basename(name)]) != 1:
                    continue
                name = by_base[os.path.basename(name)][0]  # still a tie, for the circles
                inc.append((n, name))
            else:
                problems.append(f'{ROOT}/{rel}:{n}: #include "{name}": no such header in {ROOT}, '
                                f'{" or ".join(OTHER_INC)}')
                continue
            ts = stage_of(name)
            if st is not None and ts is not None and ts > st and (rel, name) not in excepted:
                problems.append(f'{ROOT}/{rel}:{n}: includes "{name}" of stage {order[ts]}, above '
                                f'its own stage {order[st] if st >= 0 else "base"} (order: '
                                f'{" < ".join(order)})')

    # Who defines what: a header's functions may be defined by another unit's .c.
    defined = {}
    for rel, lines in files.items():
        if rel.endswith('.c'):
            for name, _, _, static in functions(lines):
                if not static:
                    defined.setdefault(name, set()).add(unit(rel))
    providers = {}
    for rel, lines in files.items():
        if rel.endswith('.h'):
            prov = {unit(rel)}
            for name in declared(lines):
                prov |= defined.get(name, set())
            providers[rel] = prov
            for p in sorted(prov - {unit(rel)}):
                ps, hs = stage_of(p + '.c'), stage_of(rel)
                if ps is not None and hs is not None and ps > hs:
                    fn = sorted(x for x in declared(lines) if p in defined.get(x, ()))
                    problems.append(f'{ROOT}/{rel}: declares {", ".join(fn)} of {p}.c, a later '
                                    f'stage: every file that includes it depends upward')
    # Modules: a header and the .c files that define what it declares and include it.
    parent = {}

    def find(u):
        while parent.get(u, u) != u:
            u = parent[u]
        return u

    for h, prov in providers.items():
        for p in prov:
            if p != unit(h) and h in {name for _, name in includes.get(p + '.c', [])}:
                a, b = find(unit(h)), find(p)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    members = {}
    for rel in files:
        members.setdefault(find(unit(rel)), set()).add(unit(rel))
    name = {m: '+'.join(sorted(us)) if len(us) > 1 else m for m, us in members.items()}
    graph = {}
    for rel, inc in includes.items():
        u = name[find(unit(rel))]
        for n, h in inc:
            for p in providers.get(h, {unit(h)}):
                v = name[find(p)] if find(p) in name else p
                if v != u:
                    graph.setdefault(u, {}).setdefault(v, (rel, n, h))
    problems += circles(graph)
    return order, files, problems


def circles(graph):
    """Every ring of units (Tarjan's strongly connected components), one edge of it each."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    nodes = sorted(set(graph) | {v for e in graph.values() for v in e})

    def strong(v):  # iterative Tarjan
        work = [(v, iter(sorted(graph.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, {})))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in nodes:
        if v not in index:
            strong(v)
    msgs = []
    for comp in out:
        ties = []
        for u in comp:
            for v, (rel, n, h) in sorted(graph.get(u, {}).items()):
                if v in comp:
                    via = '' if unit(h) in v.split('+') else f' (it declares functions of {v})'
                    ties.append(f'{rel}:{n} includes "{h}"{via}')
        msgs.append(f'{ROOT}: circle between modules {", ".join(c for c in comp)}: ' + '; '.join(ties))
    return msgs


def measures(files):
    per, sizes, longf = {}, [], []
    for rel in sorted(files):
        lines = files[rel]
        n = len(lines) - (1 if lines and lines[-1] == '' else 0)
        folder = rel.split('/')[0] if '/' in rel else '.'
        per[folder] = per.get(folder, 0) + n
        sizes.append((n, rel))
        if rel.endswith('.c'):
            for name, a, b, _ in functions(lines):
                if b - a + 1 > MAX_FUNC:
                    longf.append((b - a + 1, rel, name))
    print('lines per folder:')
    for k in sorted(per):
        print(f'  {k:10} {per[k]:6}')
    print(f'  {"total":10} {sum(per.values()):6}')
    print('largest files:')
    for n, r in sorted(sizes, reverse=True)[:8]:
        print(f'  {n:6} {r}')
    over = sorted((s for s in sizes if s[0] > MAX_FILE), reverse=True)
    print(f'files over {MAX_FILE} lines: {len(over)}' + ''.join(f'\n  {n:6} {r}' for n, r in over))
    print(f'functions over {MAX_FUNC} lines: {len(longf)}')
    for ln, r, name in sorted(longf, reverse=True):
        print(f'  {ln:5} {r}:{name}')


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else '.'
    order, files, problems = check(repo)
    print(f'stages (drain.mk DRAIN_STAGES, lower first): {" < ".join(order)}; base: '
          f'{", ".join(sorted(BASE))}')
    measures(files)
    for f, h, why in EXCEPTIONS:
        print(f'known exception: {f} includes {h}: {why}')
    for p in problems:
        print(f'stages: {p}')
    print(f'stages: {len(problems)} violation(s) in {len(files)} files' if problems
          else f'stages: the rule holds in {len(files)} files')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
