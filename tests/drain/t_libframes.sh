#!/usr/bin/env bash
# Library frames as module + offset (docs/DRAIN.md "Shared libraries"): libframes_app reaches its
# allocations through liblf.so (tests/drain/libframes_lib.c: lf_walk -> lf_inner, a hidden
# function only its split debug file names, and lf_direct). Three processes (ASLR: the library
# at another address in each, as the streams' MAPPING records show) drained with --elf of the
# program: --top, --json and the folded stacks name the library's functions (lf_inner from
# liblf.so.debug, found by the .gnu_debuglink), no frame is a raw address, and the three list the
# same sites; drain diff of two matches their sites (3, not 6); drain merge of the three gives one
# site per code path with the sum of the three's values; pprof reads the Mapping of liblf.so with
# its build-id. A copy of the program and library elsewhere, run: without the debug file lf_inner
# is [liblf.so]+0xOFF (OFF its file offset: addr2line on the debug file names lf_inner there),
# with the library deleted every library frame is [liblf.so]+0xOFF with the same offsets (three
# processes merge into one site per code path), and with
# another ELF at the library's path (another build-id) too: never its symbols.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=${LF_APP:?}
dump=host_tools/msamp-dump
R=4096

# site_lines TOP-FILE: the in-use table's site column (the frames), sorted (rows of bytes N or >=N)
site_lines() {
  awk '/^top .* by in-use bytes/ { on = 1; next } /^top / { on = 0 } on && /^ +(>=)?[0-9]/ { sub(/.*\) +/, ""); print }' "$1" | sort
}

for i in 1 2 3; do
  MSAMP_OUTPUT=$W/p$i.bin MSAMP_INTERVAL=$R MSAMP_SEED=$((100 + i)) "$app" 2000 1000 >/dev/null ||
    fail "process $i: exit $?"
  "$dump" "$W/p$i.bin" | sed -n 's/^MAPPING start=\(0x[0-9a-f]*\) .*liblf\.so"$/\1/p' | sort -u >"$W/p$i.start"
  $D --elf "$app" --top 10 --json "$W/p$i.json" --folded "$W/p$i.folded" -o "$W/p$i.pb.gz" "$W/p$i.bin" \
    >"$W/p$i.top" 2>"$W/p$i.err" || { fail "drain process $i: exit $?"; cat "$W/p$i.err"; }
  site_lines "$W/p$i.top" >"$W/p$i.sites"
done
starts=$(cat "$W"/p[123].start | sort -u | wc -l)
if [ "$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null)" = 0 ]; then
  ok "ASLR is off on this machine: liblf.so at $(head -n1 "$W/p1.start") in each (the sites must match anyway)"
else
  [ "$starts" = 3 ] && ok "ASLR: liblf.so at 3 addresses ($(cat "$W"/p[123].start | tr '\n' ' '))" ||
    fail "liblf.so's MAPPING start: $starts distinct of 3 ($(cat "$W"/p[123].start | tr '\n' ' '))"
fi

l_cb=$(grep -n 'cb(n);' "$here/libframes_lib.c" | head -n1 | cut -d: -f1)
grep -q "keep libframes_app.c:[0-9]* < lf_inner:$l_cb < lf_walk:[0-9]* < main:" "$W/p1.sites" &&
  grep -q "keep libframes_app.c:[0-9]* < lf_direct:[0-9]* < main:" "$W/p1.sites" &&
  ok "--top: the library's frames by name and line (lf_inner:$l_cb from the split debug file)" ||
  { fail "--top lacks the library's frames"; cat "$W/p1.top"; }
if grep -Eq '0x[0-9a-f]{6,}' "$W"/p[123].sites "$W"/p[123].folded; then
  fail "a raw address in --top or --folded: $(grep -Eho '[^ ;]*0x[0-9a-f]{6,}[^ ;]*' "$W"/p[123].sites "$W"/p[123].folded | head -3)"
else
  ok "--top and --folded: no raw address"
fi
cmp -s "$W/p1.sites" "$W/p2.sites" && cmp -s "$W/p1.sites" "$W/p3.sites" &&
  ok "--top: the three processes list the same $(wc -l <"$W/p1.sites") sites" ||
  { fail "--top sites differ between processes"; diff "$W/p1.sites" "$W/p2.sites"; diff "$W/p1.sites" "$W/p3.sites"; }

# --json: the same stacks in each, none a raw address
python3 - "$W"/p[123].json <<'PY' && ok "--json: the same stacks in the three, lf_inner among them, no raw address" || fail "--json stacks"
import json, re, sys
sets = []
for f in sys.argv[1:]:
    st = set()
    for ses in json.load(open(f))["sessions"]:
        for s in ses["sites"]:
            st.add(tuple(s["stack"]))
    sets.append(st)
raw = [fr for st in sets for s in st for fr in s if re.fullmatch(r"0x[0-9a-f]+", fr)]
ok = all(s == sets[0] for s in sets) and any("lf_inner" in s for s in sets[0]) and not raw
if not ok:
    print(sets, raw)
sys.exit(0 if ok else 1)
PY

# diff: the sites of two processes match
$D diff "$W/p1.pb.gz" "$W/p2.pb.gz" >"$W/diff.txt" 2>&1 || fail "diff: exit $?"
n=$(wc -l <"$W/p1.sites")
grep -q "^drain diff: $n sites," "$W/diff.txt" && ! grep -Eq '0x[0-9a-f]{6,}' "$W/diff.txt" &&
  ok "diff: $n sites (each in both processes), no raw address" || { fail "diff"; cat "$W/diff.txt"; }

# merge: one site per code path, the three's values summed
$D merge "$W/m.pb.gz" "$W"/p[123].pb.gz 2>"$W/merge.err" || fail "merge: exit $? $(cat "$W/merge.err")"
$D diff "$W/m.pb.gz" "$W/m.pb.gz" --json "$W/m.json" >/dev/null 2>&1 || fail "diff of the merge: exit $?"
python3 - "$W/m.json" "$W"/p[123].json <<'PY' && ok "merge: one site per code path, each the sum of the three processes'" || fail "merge sums"
import json, sys
m = {}
for s in json.load(open(sys.argv[1]))["sites"]:
    k = tuple(s["stack"])
    if k in m:
        print("merged site twice:", k); sys.exit(1)
    m[k] = {e: s[e]["new"]["est"] for e in ("inuse_bytes", "alloc_bytes", "inuse_objects", "alloc_objects")}
want = {}
for f in sys.argv[2:]:
    for ses in json.load(open(f))["sessions"]:
        for s in ses["sites"]:
            w = want.setdefault(tuple(s["stack"]), {})
            for e in ("inuse_bytes", "alloc_bytes", "inuse_objects", "alloc_objects"):
                w[e] = w.get(e, 0) + s[e]["est"]
for k in sorted(want):
    print(" > ".join(k), m.get(k), want[k])
sys.exit(0 if m == want and len(m) >= 3 else 1)
PY

# pprof: the library's Mapping with its file and build-id, its functions in -top
bid=$(readelf -n "$(dirname "$app")/liblf.so" | sed -n 's/.*Build ID: //p')
pp -raw "$W/p1.pb.gz" >"$W/p1.raw" 2>/dev/null || fail "pprof -raw"
grep -Eq "^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ .*liblf\.so $bid" "$W/p1.raw" &&
  ok "pprof: Mapping liblf.so with build-id $bid" || { fail "pprof mapping"; sed -n '/^Mappings/,$p' "$W/p1.raw"; }
pp -top -sample_index=inuse_space "$W/p1.pb.gz" 2>/dev/null | grep -q ' lf_inner$' &&
  ok "pprof -top: lf_inner" || fail "pprof -top lacks lf_inner"

# Elsewhere: the library without its debug file, then deleted, then another ELF at its path
mkdir -p "$W/copy"
cp "$app" "$(dirname "$app")/liblf.so" "$W/copy/"
for i in 1 2 3; do
  MSAMP_OUTPUT=$W/c$i.bin MSAMP_INTERVAL=$R MSAMP_SEED=$((200 + i)) "$W/copy/$(basename "$app")" 2000 1000 >/dev/null ||
    fail "the copy, process $i: exit $?"
done
cp "$W/c1.bin" "$W/c.bin"
$D --elf "$app" --top 10 "$W/c.bin" -o /dev/null >"$W/c1.top" 2>&1 || fail "drain c1: exit $?"
site_lines "$W/c1.top" >"$W/c1.sites"
off=$(grep -o '< \[liblf\.so\]+0x[0-9a-f]* < lf_walk' "$W/c1.sites" | head -n1 | sed 's/.*+\(0x[0-9a-f]*\).*/\1/')
if [ -n "$off" ]; then
  fn=$(addr2line -f -e "$(dirname "$app")/liblf.so.debug" "$(printf '0x%x' $((off - 1)))" | head -n1)
  [ "$fn" = lf_inner ] && ok "no debug file: lf_inner is [liblf.so]+$off (addr2line: $fn), lf_walk and lf_direct from .dynsym" ||
    fail "[liblf.so]+$off is $fn, not lf_inner"
else
  fail "no debug file: no [liblf.so]+0x... < lf_walk"; cat "$W/c1.top"
fi
rm "$W/copy/liblf.so"
$D --elf "$app" --top 10 "$W/c.bin" -o /dev/null >"$W/c2.top" 2>&1 || fail "drain c2: exit $?"
site_lines "$W/c2.top" >"$W/c2.sites"
grep -q "keep libframes_app.c:[0-9]* < \[liblf\.so\]+$off < \[liblf\.so\]+0x[0-9a-f]* < main:" "$W/c2.sites" &&
  grep -q "keep libframes_app.c:[0-9]* < \[liblf\.so\]+0x[0-9a-f]* < main:" "$W/c2.sites" &&
  ! grep -Eq '0x[0-9a-f]{6,}' "$W/c2.sites" &&
  ok "library deleted: its frames as [liblf.so]+0xOFF: $(grep -o '\[liblf.so\]+0x[0-9a-f]*' "$W/c2.sites" | sort -u | tr '\n' ' ')" ||
  { fail "library deleted"; cat "$W/c2.top"; }
# the three processes' [liblf.so]+0xOFF sites merge
for i in 1 2 3; do
  $D --elf "$app" -q "$W/c$i.bin" -o "$W/c$i.pb.gz" 2>/dev/null || fail "drain copy $i: exit $?"
done
$D merge "$W/cm.pb.gz" "$W"/c[123].pb.gz 2>/dev/null || fail "merge of the copies: exit $?"
$D diff "$W/cm.pb.gz" "$W/cm.pb.gz" --json "$W/cm.json" >/dev/null 2>&1 || fail "diff of the copies' merge: exit $?"
python3 - "$W/cm.json" "$(wc -l <"$W/c2.sites")" <<'PY' && ok "library deleted: merge of three processes: one site per code path ($(wc -l <"$W/c2.sites"))" || fail "library deleted: merge"
import json, sys
st = [tuple(s["stack"]) for s in json.load(open(sys.argv[1]))["sites"]]
print(st)
sys.exit(0 if len(st) == len(set(st)) == int(sys.argv[2]) and any("[liblf.so]+0x" in f for s in st for f in s) else 1)
PY
cp "$app" "$W/copy/liblf.so"
$D --elf "$app" --top 10 "$W/c.bin" -o /dev/null >"$W/c3.top" 2>&1 || fail "drain c3: exit $?"
site_lines "$W/c3.top" >"$W/c3.sites"
cmp -s "$W/c2.sites" "$W/c3.sites" && ok "another build at the library's path (build-id differs): not used" ||
  { fail "another build's symbols used"; diff "$W/c2.sites" "$W/c3.sites"; }
finish
