#!/usr/bin/env bash
# Hosted devices add up in the fleet store (docs/FLEET.md "Hosted programs"): three processes of
# libframes_app (tests/drain/t_libframes.sh: its allocations reached through liblf.so, at another
# address in each process by ASLR), devices lf1..lf3, drained with --elf of the program and pushed
# to a scratch PostgreSQL server (tests/fleet/pg.sh): drain fleet top lists each site once (the
# library's frames by name, no raw address) with the sum of the three profiles' values (each
# profile's own sites from drain --json); then three processes of a copy whose library was
# deleted before drain read them (devices lfc1..lfc3): their library frames are [liblf.so]+0xOFF,
# and fleet top of those devices lists each site once with the sum too.
set -u
D=${DRAIN:?} W=${W:?} APP=${LF_APP:?}
T=$(dirname "$0")
. "$T/pg.sh"
pg_test
mkdir -p "$W/copy"
cp "$APP" "$(dirname "$APP")/liblf.so" "$W/copy/"

# run PREFIX DIR: three processes of DIR's program, devices PREFIX1..3, their streams
run() {
  for i in 1 2 3; do
    MSAMP_DEVICE_ID=$1$i MSAMP_OUTPUT=$W/$1$i.bin MSAMP_INTERVAL=4096 MSAMP_SEED=$((300 + i)) \
      "$2/$(basename "$APP")" 2000 1000 >/dev/null || fail "$1$i: exit $?"
  done
}
# drained PREFIX: drain the three streams to profiles and --json, push them
drained() {
  for i in 1 2 3; do
    "$D" -q --elf "$APP" --json "$W/$1$i.json" -o "$W/$1$i.pb.gz" "$W/$1$i.bin" 2>"$W/$1$i.err" ||
      fail "drain $1$i: exit $? ($(head -c 300 "$W/$1$i.err"))"
  done
  "$D" push --db "$PG_CONN" "$W/$1"[123].pb.gz 2>"$W/$1.push" || fail "push $1: exit $? ($(cat "$W/$1.push"))"
}
# top PREFIX WANT: fleet top of devices PREFIX1..3: each site once, the sums of the --json sites;
# WANT: a frame text pattern one site must have
top() {
  "$D" fleet --db "$PG_CONN" top --top 1000 --device "$11" --device "$12" --device "$13" \
    --json "$W/$1.top.json" >"$W/$1.top.txt" 2>&1 || { fail "fleet top $1: exit $?"; cat "$W/$1.top.txt"; return; }
  python3 - "$2" "$W/$1.top.json" "$W/$1"[123].json <<'PY' && ok "fleet top of $1*: each site once, the sum of the three processes" ||
import json, re, sys
want_frame = re.compile(sys.argv[1])
got = {}
for s in json.load(open(sys.argv[2]))["sites"]:
    k = tuple(s["stack"])
    if k in got:
        print("site listed twice:", k); sys.exit(1)
    got[k] = {e: s["values"][t]["value"] for e, t in (("inuse_bytes", "inuse_space"), ("inuse_objects", "inuse_objects"))}
want = {}
for f in sys.argv[3:]:
    for ses in json.load(open(f))["sessions"]:
        for s in ses["sites"]:
            w = want.setdefault(tuple(s["stack"]), {"inuse_bytes": 0, "inuse_objects": 0})
            for e in w:
                w[e] += s[e]["est"]
for k in sorted(got):
    print("  ", " < ".join(k), got[k], "want", want.get(k))
raw = [f for k in got for f in k if re.fullmatch(r"0x[0-9a-f]+", f)]
ok = (set(got) == set(want) and not raw and any(want_frame.search(f) for k in got for f in k)
      and all(abs(got[k][e] - want[k][e]) <= 1e-9 * max(1, want[k][e]) for k in got for e in want[k]))
sys.exit(0 if ok else 1)
PY
    { fail "fleet top $1*"; cat "$W/$1.top.txt"; }
}

run lf "$(dirname "$APP")"
drained lf
top lf '^lf_inner$'
run lfc "$W/copy"
rm "$W/copy/liblf.so"
drained lfc
top lfc '^\[liblf\.so\]\+0x[0-9a-f]+$'
[ $nfail -eq 0 ] && { echo "t_fleet_libframes: all passed"; exit 0; }
echo "t_fleet_libframes: $nfail failure(s)"
exit 1
