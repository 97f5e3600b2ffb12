#!/usr/bin/env bash
# The fleet store end to end (docs/FLEET.md) on a scratch PostgreSQL server (tests/fleet/pg.sh):
# three hosted devices (growth_app, which leaks, as "leaky"; peak_app, which does not, as "q1" and
# "q2"), each run once per seed (3 seeds: 3 sessions a device), each session stored as 3 partial
# profiles (the stream's first quarter, half, three quarters) and its whole (drained with --leaks
# so the verdicts are in it), all with the HEAP records of the hosted library (glibc's mallinfo2);
# and two QEMU boards' profiles ($BOARD_PROF, analysis_app on the default board, and
# $BOARD2_ELF's run on $BOARD2_QEMU: both device board-1, two builds). Checks: push stores each
# once (a second push stores none); drain fleet merge is byte-identical to drain merge of the same
# files in the same order, for all and for selections by device, build id, time and label, and its
# six totals equal drain merge's; top's totals equal the merge's; devices ranked by minimum free
# heap as the profiles' HEAP figures say; leaks by the latest profile's verdict and across
# consecutive profiles (each seed's fleet of three, and all sessions: the leaky device's
# leak_record alone, with both; a device that pushed one profile: by its verdict, with its slope);
# schema version 3's partitions
# by month (the boards' profiles moved two months back, one to 1999: the default partition),
# pruning seen in drain's own query plans, prune --before (retention), a version 1 and a
# version 2 store migrated;
# errors: the server down, a wrong password, a newer schema, a full disk on the server (profile
# files unchanged), --json to a full disk, libpq missing (MSAMP_DRAIN_LIBPQ); drain without a
# store loads no libpq.
set -u
export MSAMP_HEAP_WALK_US=1000000000 # every walk: glibc's exact heap figures (docs/HEALTH.md)
D=${DRAIN:?} W=${W:?} ENOSPC_SHIM=${ENOSPC_SHIM:?} GROWTH=${GROWTH_APP:?} PEAK=${PEAK_APP:?} BOARD_PROF=${BOARD_PROF:?}
BOARD2_ELF=${BOARD2_ELF:?} BOARD2_QEMU=${BOARD2_QEMU:?}
T=$(dirname "$0")
. "$T/pg.sh"
pg_test

# The boards' profiles first (the time selections below rely on it): the second board's run.
cp "$BOARD_PROF" "$W/board.pb.gz"
BOARD_QEMU=$BOARD2_QEMU DRAIN=$D boards/examples/demo/run_demo.sh "$BOARD2_ELF" uart "$W/board2" "$W/board2/live.pb.gz" >/dev/null ||
  fail "the second board's run: $(tail -3 "$W/board2/console.txt" "$W/board2/drain.err" 2>/dev/null)"
"$D" -q "$W/board2/stream.bin" --elf "$BOARD2_ELF" -o "$W/board2.pb.gz" --leaks >/dev/null 2>"$W/board2.err" ||
  fail "drain board2: $(head -c 300 "$W/board2.err")"
# The boards' profiles two months back (drain stamps a profile with the host's clock: its
# time_nanos moved, tests/fleet/relabel.py), and a copy of the first board's in 1999 (before
# 2000: the DEFAULT partition): the store then spans the old month's partition, the current
# month's and the default one.
python3 "$T/relabel.py" "$BOARD_PROF" "$W/board-1999.pb.gz" $((930787200 - $(date +%s))) &&
  for b in board board2; do python3 "$T/relabel.py" "$W/$b.pb.gz" "$W/$b.old.pb.gz" -$((62 * 86400)) && mv "$W/$b.old.pb.gz" "$W/$b.pb.gz"; done ||
  fail "relabel the boards' profiles"
# The hosted devices' profiles: per seed a session of each; its partial profiles are drains of
# the stream's prefixes (as drain --every writes them from a live stream, without its timing).
files="$W/board-1999.pb.gz $W/board.pb.gz $W/board2.pb.gz"
# A profile's time range is drain's start plus the device time it covers (under a second here):
# a second between seeds keeps each seed's profiles inside its own range.
for seed in 1 2 3; do
  sleep 1
  date +%s.%N >"$W/t0.s$seed"
  for dev in leaky q1 q2; do
    app=$PEAK; [ $dev = leaky ] && app=$GROWTH
    b=$W/$dev.s$seed
    MSAMP_DEVICE_ID=$dev MSAMP_OUTPUT=$b.bin MSAMP_SEED=$seed "$app" >/dev/null || fail "$dev seed $seed: exit $?"
    n=$(stat -c %s "$b.bin")
    for k in 1 2 3; do
      head -c $((n * k / 4)) "$b.bin" >"$W/prefix.bin"
      "$D" -q "$W/prefix.bin" --elf "$app" -o "$b.p$k.pb.gz" 2>"$W/$dev.err" ||
        fail "drain $dev seed $seed part $k: exit $? ($(head -c 300 "$W/$dev.err"))"
      files="$files $b.p$k.pb.gz"
    done
    "$D" -q "$b.bin" --elf "$app" -o "$b.pb.gz" --leaks >"$b.out" 2>"$W/$dev.err" ||
      fail "drain $dev seed $seed: exit $? ($(head -c 300 "$W/$dev.err"))"
    files="$files $b.pb.gz"
  done
  # t1: now, or the seed's latest profile end when later (a profile ends at drain's start plus the
  # device time it covers: the hosted clock is the real one, so under load the leaky device's run
  # can end after the drains of the two others: leaks s2 failed once so), then the next seed after it
  python3 "$T/pbend.py" "$W"/{leaky,q1,q2}.s$seed*.pb.gz >"$W/t1.s$seed" || fail "pbend.py seed $seed"
  python3 -c 'import sys, time; time.sleep(max(0, float(sys.argv[1]) - time.time()))' "$(cat "$W/t1.s$seed")"
done
# shellcheck disable=SC2086
sha256sum $files >"$W/files.sha"
nf=$(echo $files | wc -w)

# push, twice
"$D" push --db "$PG_CONN" $files 2>"$W/push1.err" || fail "push: exit $? ($(cat "$W/push1.err"))"
grep -q "$nf profiles stored, 0 already there" "$W/push1.err" && ok "push: $nf stored" || fail "push: $(cat "$W/push1.err")"
"$D" push --db "$PG_CONN" $W/q1.s1.pb.gz $files 2>"$W/push2.err" || fail "push again: exit $?"
grep -q "0 profiles stored, $((nf + 1)) already there" "$W/push2.err" && [ "$(pg_sql 'select count(*) from msamp_profile')" = $nf ] &&
  ok "push again: stored once" || fail "push again: $(cat "$W/push2.err"), $(pg_sql 'select count(*) from msamp_profile') rows"
# Partitions (schema version 3): each profile in its month's (UTC) partition, 1999's in the
# default one; its site and leak rows in the same month's; at least two months.
part() { echo "regexp_replace($1.tableoid::regclass::text, '^msamp_[a-z]+_', '')"; }
want_part="CASE WHEN p.t_end < '2000-01-01 00:00+00' THEN 'default' ELSE to_char(p.t_end AT TIME ZONE 'UTC', '\"p\"YYYYMM') END"
got="$(pg_sql "select count(*) filter (where $(part p) <> $want_part), count(distinct $(part p)) filter (where $(part p) <> 'default'), count(*) filter (where $(part p) = 'default') from msamp_profile p")|$(pg_sql "select count(*) from msamp_site s join msamp_profile p on p.device = s.device and p.id = s.profile_id where $(part s) <> $(part p)")|$(pg_sql "select count(*) from msamp_leak l join msamp_profile p on p.device = l.device and p.id = l.profile_id where $(part l) <> $(part p)")"
[ "$got" = "0|2|1|0|0" ] && ok "partitions: every row in its month's partition (2 months) or the default one (1999): $(pg_sql "select string_agg(relname || '=' || (select count(*) from msamp_profile p where p.tableoid = c.oid), ' ' order by relname) from pg_class c join pg_inherits i on i.inhrelid = c.oid where i.inhparent = 'msamp_profile'::regclass")" ||
  fail "partitions: [$got] (misplaced profiles|months|default|misplaced sites|misplaced leaks), want 0|2|1|0|0"

# The stored files of a selection in fleet merge's order (by their SHA-256).
order() {
  pg_sql "select encode(sha256, 'hex') from msamp_profile p where $1 order by t_start, device, id" |
    while read -r h; do awk -v h="$h" '$1 == h { print $2 }' "$W/files.sha"; done
}
# check NAME SQL-WHERE FILTER...: fleet merge --exact of the filter equals drain merge of the files
# SQL selects byte for byte; fleet merge (the buckets' merged profiles) equals it as canon.py's text
# (docs/FLEET.md "Merged buckets": the same samples, values and comments, in another order)
check() {
  local name=$1 where=$2
  shift 2
  local sel
  sel=$(order "$where")
  [ -n "$sel" ] || { fail "$name: the selection is empty"; return; }
  "$D" fleet --db "$PG_CONN" merge "$W/f.$name.pb.gz" "$@" 2>"$W/f.$name.err" ||
    { fail "$name: fleet merge exit $? ($(cat "$W/f.$name.err"))"; return; }
  "$D" fleet --db "$PG_CONN" merge "$W/x.$name.pb.gz" --exact "$@" 2>"$W/x.$name.err" ||
    { fail "$name: fleet merge --exact exit $? ($(cat "$W/x.$name.err"))"; return; }
  # shellcheck disable=SC2086
  "$D" merge "$W/m.$name.pb.gz" $sel || { fail "$name: drain merge exit $?"; return; }
  # the six standard sample types (the variance types after them are compared with the bytes)
  "$T/../analysis/pprof_sum.sh" "$W/f.$name.pb.gz" |
    grep -E '^TOTAL (inuse|alloc|freed)_(objects|space) ' >"$W/f.$name.tot"
  "$T/../analysis/pprof_sum.sh" "$W/m.$name.pb.gz" |
    grep -E '^TOTAL (inuse|alloc|freed)_(objects|space) ' >"$W/m.$name.tot"
  python3 "$T/canon.py" "$W/f.$name.pb.gz" >"$W/f.$name.txt" && python3 "$T/canon.py" "$W/m.$name.pb.gz" >"$W/m.$name.txt" ||
    fail "$name: canon.py"
  if cmp -s "$W/x.$name.pb.gz" "$W/m.$name.pb.gz" && [ "$(wc -l <"$W/f.$name.tot")" = 6 ] &&
     cmp -s "$W/f.$name.tot" "$W/m.$name.tot" && cmp -s "$W/f.$name.txt" "$W/m.$name.txt"; then
    ok "$name: fleet merge --exact = drain merge of $(echo "$sel" | wc -l) files (bytes); fleet merge = it as canon.py's text ($(sed 's/.*(//; s/)$//' "$W/f.$name.err"))"
  else
    diff "$W/f.$name.txt" "$W/m.$name.txt" | head -6
    fail "$name: fleet merge differs from drain merge of $(echo $sel)"; diff "$W/f.$name.tot" "$W/m.$name.tot"
  fi
}
check all "true"
check dev-leaky "device = 'leaky'" --device leaky
check dev-q "device in ('q1', 'q2')" --device q1 --device q2
# the two boards: two builds (board-1, and the second board's, whose configuration sends no
# device id: known by its session)
boards="sha256 in (decode('$(sha256sum "$W/board.pb.gz" | cut -c1-64)', 'hex'), decode('$(sha256sum "$W/board2.pb.gz" | cut -c1-64)', 'hex'))"
[ "$(pg_sql "select string_agg(device, ',' order by id) || ' ' || count(distinct build_id) from msamp_profile where $boards")" = "board-1,session-$(pg_sql "select session from msamp_profile where $boards and device <> 'board-1'") 2" ] &&
  ok "two boards stored: two build ids, $(pg_sql "select string_agg(device, ', ' order by id) from msamp_profile where $boards")" ||
  fail "two boards: $(pg_sql "select device, build_id from msamp_profile where $boards")"
for bid in $(pg_sql "select build_id from msamp_profile where $boards order by id"); do
  check "build-${bid:0:8}" "build_id = '$bid'" --build-id "$bid"
done
check label "'device=q2' = any(labels)" --label device=q2
# time: the boards' profiles were made before the hosted ones
cut=$(pg_sql "select extract(epoch from max(t_end)) + 0.001 from msamp_profile where $boards")
[ "$(pg_sql "select count(*) from msamp_profile where t_start <= to_timestamp($cut)")" = 3 ] ||
  fail "time: the boards' profiles are not older than the hosted ones"
check until "t_start <= to_timestamp($cut)" --until "$cut"
check since "t_end >= to_timestamp($cut)" --since "$cut"
# Partition pruning: the plans of drain's own queries (auto_explain, sent to drain's stderr as
# warnings) scan only the partitions a --since selection needs: those ending after it and the
# default one (it holds any time outside them), not the old month's. merge and top (profile
# and site partitions), and leaks with --since and --until.
explain="-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c auto_explain.log_level=warning"
t0=$(cat "$W/t0.s1")
needed() { # TABLE: the partitions of TABLE a selection from t0 on needs
  pg_sql "select string_agg(c.relname, ' ' order by c.relname) from pg_class c join pg_inherits i on i.inhrelid = c.oid where i.inhparent = '$1'::regclass and case when c.relname = '$1_default' then true else (to_date(substr(c.relname, length('$1') + 3), 'YYYYMM') + interval '1 month')::timestamp at time zone 'UTC' > to_timestamp($t0) end"
}
scanned() { # TABLE FILE: the partitions of TABLE the plans in FILE scan
  grep -o " on $1_[a-z0-9]*" "$2" | sed 's/^ on //' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
PGOPTIONS=$explain check since-hosted "t_end >= to_timestamp($t0)" --since "$t0"
PGOPTIONS=$explain "$D" fleet --db "$PG_CONN" top --since "$t0" >/dev/null 2>"$W/plan.top" || fail "top --since: exit $?"
PGOPTIONS=$explain "$D" fleet --db "$PG_CONN" leaks --since "$t0" --until "$(cat "$W/t1.s1")" >/dev/null 2>"$W/plan.leaks" || fail "leaks --since: exit $?"
for pq in "msamp_profile $W/f.since-hosted.err merge" "msamp_profile $W/plan.top top" "msamp_site $W/plan.top top" "msamp_site $W/plan.leaks leaks"; do
  set -- $pq
  [ -n "$(scanned "$1" "$2")" ] && [ "$(scanned "$1" "$2")" = "$(needed "$1")" ] &&
    ok "pruning, $3 --since: $1 scans $(scanned "$1" "$2") only, of $(pg_sql "select count(*) from pg_inherits where inhparent = '$1'::regclass")" ||
    fail "pruning, $3 --since: $1 scans [$(scanned "$1" "$2")], needs [$(needed "$1")]"
done
"$D" fleet --db "$PG_CONN" merge "$W/none.pb.gz" --device nobody 2>"$W/none.err" &&
  fail "an empty selection: exit 0" || ok "an empty selection: $(cat "$W/none.err")"

# top: its totals over all sites equal the merge's
"$D" fleet --db "$PG_CONN" top --top 1000000 --json "$W/top.json" >"$W/top.txt" 2>&1 || fail "top: exit $?"
python3 - "$W/top.json" "$W/m.all.tot" <<'PY' && ok "top: totals equal the merge's" || fail "top: totals differ"
import json, sys
top = json.load(open(sys.argv[1]))
tot = {}
for s in top["sites"]:
    for k, v in s["values"].items():
        tot[k] = tot.get(k, 0) + v["value"]
want = {l.split()[1]: float(l.split()[2]) for l in open(sys.argv[2])}
print("top:", tot, "merge:", want)
# pprof_sum.sh prints 6 significant digits
sys.exit(0 if len(want) == 6 and all(abs(tot.get(k, -1) - v) <= 1e-5 * v for k, v in want.items()) else 1)
PY
# devices: ranked by minimum free heap, then failures, then in-use; each device's figures as its
# profiles' comments say (the msamp-heap comment: the last HEAP record's min_free; allocation
# failures, per session the most, summed over sessions; in-use of the latest profile); each
# device's time to exhaustion one its profiles stored (docs/VERDICTS.md "Time to exhaustion": the
# msamp-verdict exhaustion comment of its latest, read from the profile's string table: a
# comment's neighbours in the bytes are other strings' tags and lengths), unknown (the reason
# kept) for the hosted devices' glibc heap, which grows
"$D" fleet --db "$PG_CONN" devices --json "$W/dev.json" >"$W/dev.txt" || fail "devices: exit $?"
python3 - "$W/dev.json" "$W/m.all.pb.gz" $files <<'PY' && ok "devices: ranked by min free heap, the profiles' figures and time to exhaustion" || { fail "devices"; cat "$W/dev.txt"; }
import gzip, json, math, re, sys
got = json.load(open(sys.argv[1]))["devices"]
def varint(b, i):
    v = k = 0
    while True:
        v |= (b[i] & 0x7F) << k
        k += 7
        i += 1
        if not b[i - 1] & 0x80:
            return v, i
def strings(b):
    """The profile's string table (field 6), read as protobuf."""
    out, i = [], 0
    while i < len(b):
        tag, i = varint(b, i)
        wt = tag & 7
        if wt == 0:
            _, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if tag >> 3 == 6:
                out.append(b[i:i + n])
            i += n
        elif wt in (1, 5):
            i += 8 if wt == 1 else 4
        else:
            raise ValueError("wire type %d" % wt)
    return out
def same(j, f):
    if f is None:
        return j is None
    if f["known"] == "0":
        return j == {"known": False, "why": f["why"]}
    hi = float(f["hi"])
    num = lambda a, b: (a is None and not math.isfinite(b)) or (a is not None and abs(a - b) <= 1e-6 * abs(b))
    return j["known"] and j["running_out"] == math.isfinite(hi) and num(j["lo"], float(f["lo"])) and num(j["hi"], hi)
ex = {}
want = {}
for f in sys.argv[3:]:
    b = gzip.open(f).read()
    dev = re.search(rb"device id: ([!-~]+) ", b)
    ses = re.search(rb"session_id=(0x[0-9a-f]+)", b).group(1)
    dev = dev.group(1).decode() if dev else "session-" + ses.decode()
    h = re.search(rb"msamp-heap free=[0-9?]+ min_free=([0-9]+)", b)
    fl = re.search(rb"allocation failures: null=([0-9]+) giant_refused=([0-9]+)", b)
    c = [x for x in strings(b) if x.startswith(b"msamp-verdict exhaustion|")]
    ex.setdefault(dev, []).append(dict(x.split("=", 1) for x in c[0].decode().split("|")[1:]) if c else None)
    w = want.setdefault(dev, {"min_free": None, "ses": {}, "profiles": 0})
    w["profiles"] += 1
    if h:
        v = int(h.group(1))
        w["min_free"] = v if w["min_free"] is None else min(w["min_free"], v)
    w["ses"][ses] = max(w["ses"].get(ses, 0), int(fl.group(1)) + int(fl.group(2)) if fl else 0)
bad = 0
for d in got:
    w = want.get(d["device"])
    exp = w and (w["min_free"], sum(w["ses"].values()), w["profiles"])
    ok = any(same(d["exhaustion"], f) for f in ex.get(d["device"], []))
    print(d["device"], (d["min_free"], d["failures"], d["profiles"]), "want", exp, d["exhaustion"],
          "one of its profiles'" if ok else "NOT one of its profiles' forecasts")
    bad |= exp != (d["min_free"], d["failures"], d["profiles"]) or not ok
order = [(d["min_free"] is None, d["min_free"] or 0, -d["failures"]) for d in got]
known = sum(1 for d in got if d["min_free"] is not None)
hosted = [d for d in got if d["device"] in ("leaky", "q1", "q2")]
bad |= len(hosted) != 3 or any(d["exhaustion"]["known"] for d in hosted)
sys.exit(1 if bad or len(got) != len(want) or order != sorted(order) or known < 3 else 0)
PY
# leaks: each seed's fleet of three (its time range: one session a device), then all three seeds
# (three sessions a device): the leaky device's leak_record alone, with both kinds of evidence
# (the leak verdict of its latest profile, the growth across consecutive profiles)
leaks_check() { # NAME WANT FILTER...: WANT "device:innermost:sessions:evidence... / innermost@devices..."
  local name=$1 want=$2 got; shift 2
  "$D" fleet --db "$PG_CONN" leaks --json "$W/leaks.$name.json" "$@" >"$W/leaks.$name.txt" || fail "leaks $name: exit $?"
  got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted("%s:%s:%s:%s" % (x["device"], x["stack"][0], x["sessions"], "+".join(x["evidence"])) for x in d["leaks"])), "/", " ".join(sorted(x["stack"][0] + "@" + ",".join(x["devices"]) for x in d["sites"])))' "$W/leaks.$name.json")
  [ "$got" = "$want" ] && ok "leaks $name: $got" || { fail "leaks $name: [$got], want [$2]"; cat "$W/leaks.$name.txt"; }
}
for seed in 1 2 3; do
  leaks_check s$seed "leaky:leak_record:1:verdict+growth / leak_record@leaky" --since "$(cat "$W/t0.s$seed")" \
    --until "$(cat "$W/t1.s$seed")" --device leaky --device q1 --device q2
done
leaks_check all-seeds "leaky:leak_record:3:verdict+growth / leak_record@leaky" --device leaky --device q1 --device q2
# A device that pushed one profile, its final (no consecutive profiles to compare): listed by the
# leak verdict that profile carries, with that verdict's slope and interval (drain --json's).
MSAMP_DEVICE_ID=lone MSAMP_OUTPUT=$W/lone.bin MSAMP_SEED=4 "$GROWTH" >/dev/null || fail "lone: exit $?"
"$D" -q "$W/lone.bin" --elf "$GROWTH" -o "$W/lone.pb.gz" --json "$W/lone.json" 2>"$W/lone.err" ||
  fail "drain lone: exit $? ($(head -c 300 "$W/lone.err"))"
"$D" push --db "$PG_CONN" "$W/lone.pb.gz" 2>"$W/lone.push" || fail "push lone: $(cat "$W/lone.push")"
sha256sum "$W/lone.pb.gz" >>"$W/files.sha"
leaks_check lone "lone:leak_record:0:verdict / leak_record@lone" --device lone
python3 - "$W/leaks.lone.json" "$W/lone.json" <<'PY' && ok "leaks lone: the verdict's slope and interval, as drain --json gives them" || fail "leaks lone: slope"
import json, sys
got = json.load(open(sys.argv[1]))["leaks"][0]
want = [l for l in json.load(open(sys.argv[2]))["sessions"][0]["leaks"] if l["stack"][0].startswith("leak_record")][0]
w = want["growth_bytes_per_s"]
print("fleet:", got["slope"], got["lo"], got["hi"], got["verdict"]["since_s"], "drain --json:", w, want["since_s"])
close = lambda a, b: abs(a - b) <= 1e-6 * max(1.0, abs(b))
sys.exit(0 if close(got["slope"], w["est"]) and close(got["lo"], w["lo"]) and close(got["hi"], w["hi"])
         and close(got["verdict"]["since_s"], want["since_s"]) and got["growth_bytes"] is None else 1)
PY

# drain --push while draining: the profile written is stored as well
"$D" -q "$W/q1.s1.bin" --elf "$PEAK" -o "$W/q1b.pb.gz" --push "$PG_CONN" 2>"$W/q1b.err" || fail "drain --push: exit $?"
h=$(sha256sum "$W/q1b.pb.gz" | cut -d' ' -f1)
[ "$(pg_sql "select count(*) from msamp_profile where sha256 = decode('$h', 'hex') and device = 'q1'")" = 1 ] &&
  ok "drain --push: the profile written is stored" || fail "drain --push: not stored ($(cat "$W/q1b.err"))"
sha256sum "$W/q1b.pb.gz" >>"$W/files.sha"
# Errors. The server down: a port nothing listens on.
down="host=127.0.0.1 port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') user=postgres connect_timeout=5"
"$D" push --db "$down" $files 2>"$W/down.err"; rc=$?
"$D" -q "$W/q2.s1.bin" --elf "$PEAK" -o "$W/q2b.pb.gz" --push "$down" 2>"$W/down2.err" && [ -s "$W/q2b.pb.gz" ] &&
  grep -q 'the profile is kept in' "$W/down2.err" && ok "drain --push, server down: profile written, the failure reported" ||
  fail "drain --push, server down: $(cat "$W/down2.err")"
[ $rc = 1 ] && grep -q 'cannot connect to the database' "$W/down.err" && ok "server down: exit 1, $(head -1 "$W/down.err")" ||
  fail "server down: exit $rc, $(cat "$W/down.err")"
# A file that is no profile: reported, the others still stored, exit 1.
"$D" push --db "$PG_CONN" "$W/q1.s1.bin" "$W/q1.s1.pb.gz" 2>"$W/bad.err"; rc=$?
[ $rc = 1 ] && grep -q "q1.s1.bin: not a profile" "$W/bad.err" && grep -q '0 profiles stored, 1 already there' "$W/bad.err" &&
  ok "a file that is no profile: exit 1, $(head -1 "$W/bad.err")" || fail "no profile: exit $rc, $(cat "$W/bad.err")"
# A wrong password (scram over TCP).
pg_sql "create role fleet login password 'right'; grant all on schema public to fleet" || fail "create role"
"$D" push --db "host=127.0.0.1 port=$PG_PORT user=fleet password=wrong dbname=postgres" $files 2>"$W/pw.err"; rc=$?
[ $rc = 1 ] && grep -q 'password authentication failed' "$W/pw.err" && ok "wrong password: exit 1" ||
  fail "wrong password: exit $rc, $(cat "$W/pw.err")"
PGPASSWORD=right "$D" fleet --db "host=127.0.0.1 port=$PG_PORT user=fleet dbname=postgres" devices >/dev/null 2>"$W/pwok.err"; rc=$?
# the role may not read the superuser's tables: the query's error is clear and nonzero
[ $rc = 1 ] && grep -q 'permission denied' "$W/pwok.err" && ok "right password, no grant: $(cat "$W/pwok.err")" ||
  fail "right password: exit $rc, $(cat "$W/pwok.err")"
# A version 1 store (made by MSAMP_DRAIN_FLEET_SCHEMA=1, its rows as a version 1 drain stored
# them: no totals, no heap columns) is migrated by the first command that reads it: totals from
# its sites, the heap from its profiles' msamp-heap comments (unknown without one).
pg_sql "create database old" || fail "create database old"
OLD="${PG_CONN/dbname=postgres/dbname=old}"
MSAMP_DRAIN_FLEET_SCHEMA=1 "$D" push --db "$OLD" "$W/q1.s1.pb.gz" 2>"$W/v1.err"; rc=$?
[ $rc = 1 ] && grep -q 'at version 1 at most' "$W/v1.err" && [ "$(pg_sql_db "$OLD" 'select max(version) from msamp_schema')" = 1 ] &&
  ok "a version 1 store made" || fail "version 1: exit $rc, $(cat "$W/v1.err")"
pg_sql_db "$OLD" "insert into msamp_profile (device, sha256, build_id, session, kind, t_start, t_end, labels,
  sample_types, comments, failures, bytes) values
  ('old-heap', '\x01', 'b', 's', 'final', now(), now(), '{}', '{inuse_space,inuse_space_var}',
   array['msamp-heap free=900 min_free=40 largest_free=? free_blocks=2 total=1000'], 2, '\x00'),
  ('old-none', '\x02', 'b', 's', 'final', now(), now(), '{}', '{inuse_space,inuse_space_var}',
   array['device drops: not reported'], 0, '\x00');
  insert into msamp_site select device, id, 0, '{f}', '', '{\"inuse_space\": 5, \"inuse_space_var\": 3}' from msamp_profile;
  insert into msamp_site select device, id, 1, '{g}', '', '{\"inuse_space\": 7}' from msamp_profile where device = 'old-heap'" ||
  fail "version 1 rows"
"$D" fleet --db "$OLD" devices --json "$W/old.json" >"$W/old.txt" 2>&1 || fail "devices on a version 1 store: $(cat "$W/old.txt")"
got=$(python3 -c 'import json,sys; print(" ".join("%s:%s:%s:%s:%s:%s" % (d["device"], d["min_free"], d["free"], d["largest_free"], d["heap_total"], d["inuse"]) for d in json.load(open(sys.argv[1]))["devices"]))' "$W/old.json")
[ "$got" = "old-heap:40:900:None:1000:12 old-none:None:None:None:None:5" ] && [ "$(pg_sql_db "$OLD" 'select max(version) from msamp_schema')" = 8 ] &&
  ok "version 1 migrated to 8: $got" || fail "migration: [$got], version $(pg_sql_db "$OLD" 'select max(version) from msamp_schema')"
"$D" push --db "$OLD" "$W/q1.s1.pb.gz" 2>"$W/old-push.err" && grep -q '1 profiles stored' "$W/old-push.err" &&
  ok "push to the migrated store" || fail "push to the migrated store: $(cat "$W/old-push.err")"
# A version 2 store (MSAMP_DRAIN_FLEET_SCHEMA=2) holding this store's rows as version 2 kept
# them (copied by psql: no t_end in the site and leak rows, no partitions) is migrated by the
# first fleet command: its merge equals this store's, byte for byte, its rows in their
# partitions. Then retention: prune --before the hosted profiles' start drops the boards' old
# month whole and deletes 1999's from the default partition; the rest stay and their merge equals
# drain merge of those files.
pg_sql "create database v2" || fail "create database v2"
V2="${PG_CONN/dbname=postgres/dbname=v2}"
MSAMP_DRAIN_FLEET_SCHEMA=2 "$D" push --db "$V2" "$W/q1.s1.pb.gz" 2>/dev/null
cols="device, id, sha256, build_id, session, kind, t_start, t_end, labels, sample_types, comments, failures, bytes, pushed, totals, heap_free, heap_min_free, heap_largest_free, heap_total"
# (the site rows' vals as version 2's jsonb: msamp_vals of schema version 6)
for tc in "msamp_profile|$cols" "msamp_site s join msamp_profile p on p.device = s.device and p.id = s.profile_id and p.t_end = s.t_end join msamp_stack k on k.h = s.h|s.device, s.profile_id, s.site, k.stack, k.task, msamp_vals(p.sample_types, s.vals)" "msamp_leak|device, profile_id, site, slope, slope_var, since_s"; do
  "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$PG_CONN" -c "\\copy (select ${tc#*|} from ${tc%%|*}) to stdout" |
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$V2" -c "\\copy ${tc%%[ |]*} ($(echo "${tc#*|}" | sed 's/[sk]\.//g; s/msamp_vals(.*)/vals/')) from stdin" || fail "copy ${tc%%[ |]*} into the version 2 store"
done
pg_sql_db "$V2" "select setval('msamp_profile_id_seq', (select max(id) from msamp_profile))" >/dev/null
[ "$(pg_sql_db "$V2" 'select max(version) from msamp_schema')|$(pg_sql_db "$V2" "select count(*) from pg_inherits")" = "2|0" ] || fail "the version 2 store is not one"
"$D" fleet --db "$PG_CONN" merge "$W/store.pb.gz" --exact 2>/dev/null || fail "fleet merge of the store"
"$D" fleet --db "$V2" merge "$W/v2.pb.gz" --exact 2>"$W/v2.err" && cmp -s "$W/v2.pb.gz" "$W/store.pb.gz" &&
  [ "$(pg_sql_db "$V2" 'select max(version) from msamp_schema')" = 8 ] &&
  [ "$(pg_sql_db "$V2" "select (select count(*) from msamp_site) || ' ' || (select count(*) from msamp_leak)")" = "$(pg_sql "select (select count(*) from msamp_site) || ' ' || (select count(*) from msamp_leak)")" ] &&
  [ "$(pg_sql_db "$V2" "select string_agg(relname, ' ' order by relname) from pg_class where relname like 'msamp%' and relkind in ('r', 'p')")" = "$(pg_sql "select string_agg(relname, ' ' order by relname) from pg_class where relname like 'msamp%' and relkind in ('r', 'p')")" ] &&
  ok "version 2 migrated to 8: merge = the store's, the same partitions" ||
  fail "version 2 migration: $(cat "$W/v2.err"), version $(pg_sql_db "$V2" 'select max(version) from msamp_schema')"
old_month=$(pg_sql_db "$V2" "select string_agg(distinct to_char(t_end at time zone 'UTC', '\"p\"YYYYMM'), ' ') from msamp_profile where t_end >= '2000-01-01 00:00+00' and t_end < to_timestamp($t0)")
"$D" fleet --db "$V2" prune --before "$t0" >"$W/prune.out" 2>&1 || fail "prune: exit $? ($(cat "$W/prune.out"))"
sel=$(order "t_end >= to_timestamp($t0)")
"$D" fleet --db "$V2" merge "$W/pruned.pb.gz" --exact 2>"$W/pruned.err" && "$D" merge "$W/kept.pb.gz" $sel &&
  cmp -s "$W/pruned.pb.gz" "$W/kept.pb.gz" && "$D" fleet --db "$V2" merge "$W/pruned-b.pb.gz" 2>>"$W/pruned.err" &&
  [ "$(python3 "$T/canon.py" "$W/pruned-b.pb.gz")" = "$(python3 "$T/canon.py" "$W/kept.pb.gz")" ] && [ "$(pg_sql_db "$V2" "select count(*) from msamp_profile where t_end < to_timestamp($t0)")|$(pg_sql_db "$V2" "select count(*) from msamp_site where t_end < to_timestamp($t0)")" = "0|0" ] &&
  [ -z "$(pg_sql_db "$V2" "select relname from pg_class where relname like '%_$old_month'")" ] && [ -n "$old_month" ] &&
  [ -n "$(pg_sql_db "$V2" "select relname from pg_class where relname = 'msamp_profile_default'")" ] &&
  ok "prune --before the hosted start: $(cat "$W/prune.out" | cut -c20-); merge --exact = drain merge of the $(echo "$sel" | wc -l) files kept, merge = it as canon.py's text" ||
  fail "prune: $(cat "$W/prune.out" "$W/pruned.err"), old month [$old_month]"
# A month's partition made while its rows wait in the default partition (they got there before
# it existed): they move into it, with their sites.
pg_sql_db "$V2" "insert into msamp_profile_default (device, sha256, build_id, session, kind, t_start, t_end, labels, sample_types, comments, failures, bytes, totals) values ('waiting', '\x01', 'b', 's', 'final', '2025-01-15 00:00+00', '2025-01-15 00:00+00', '{}', '{}', '{}', 0, '\x00', '{}');
  insert into msamp_site (device, profile_id, t_end, site, h, vals) select device, id, t_end, 0, 0, '{}' from msamp_profile where device = 'waiting'" >/dev/null || fail "rows in the default partition"
[ "$(pg_sql_db "$V2" "select msamp_partition('2025-01-20 00:00+00')")|$(pg_sql_db "$V2" "select p.tableoid::regclass::text || ' ' || s.tableoid::regclass::text from msamp_profile p join msamp_site s on s.device = p.device and s.profile_id = p.id where p.device = 'waiting'")" = "202501|msamp_profile_p202501 msamp_site_p202501" ] &&
  ok "a new month's partition takes its rows from the default one" || fail "default rows moved: $(pg_sql_db "$V2" "select tableoid::regclass from msamp_profile where device = 'waiting'")"
# --json to a full disk: said, exit 1
"$D" fleet --db "$PG_CONN" top --json /dev/full >/dev/null 2>"$W/full.err"; rc=$?
[ $rc = 1 ] && grep -q -- '--json /dev/full: ' "$W/full.err" && ok "--json to a full disk: exit 1, $(cat "$W/full.err")" ||
  fail "--json /dev/full: exit $rc, $(cat "$W/full.err")"
# A full disk on the server (ENOSPC_SHIM, LD_PRELOAD into it: once the trigger file is there, a
# relation's file cannot grow): push says so with the SQLSTATE, exit 1 (a profile that fits in
# the tables' free pages may still be stored, whole: one transaction each); the files stay
# (checked at the end); the same push once there is room again stores the rest.
sha256sum "$W/q2b.pb.gz" "$W/board2/live.pb.gz" >>"$W/files.sha"
pg_restart LD_PRELOAD="$ENOSPC_SHIM" ENOSPC_TRIGGER="$PG_DIR/disk-full"
n0=$(pg_sql "select count(*) from msamp_profile")
touch "$PG_DIR/disk-full"
"$D" push --db "$PG_CONN" $W/*.s2.pb.gz "$W/q2b.pb.gz" "$W/board2/live.pb.gz" 2>"$W/enospc.err"; rc=$?
rm -f "$PG_DIR/disk-full"
[ $rc = 1 ] && grep -q 'No space left on device.*(SQLSTATE 53100: the database server.s disk is full)' "$W/enospc.err" &&
  ok "server disk full: exit 1, $(grep -m1 53100 "$W/enospc.err")" || fail "server disk full: exit $rc, $(cat "$W/enospc.err")"
"$D" push --db "$PG_CONN" "$W/q2b.pb.gz" "$W/board2/live.pb.gz" 2>"$W/enospc2.err" &&
  [ "$(pg_sql "select count(*) from msamp_profile")" = $((n0 + 2)) ] &&
  ok "room again: the same files stored" || fail "room again: $(cat "$W/enospc2.err")"
# A newer schema.
pg_sql "insert into msamp_schema values (99)"
"$D" push --db "$PG_CONN" "$W/q1.s1.pb.gz" 2>"$W/new.err"; rc=$?
[ $rc = 1 ] && grep -q 'version 99, newer than this drain' "$W/new.err" && ok "newer schema: push refused" ||
  fail "newer schema: exit $rc, $(cat "$W/new.err")"
"$D" fleet --db "$PG_CONN" top >/dev/null 2>"$W/new2.err"; rc=$?
[ $rc = 1 ] && grep -q 'newer than this drain' "$W/new2.err" && ok "newer schema: fleet refused" ||
  fail "newer schema (fleet): exit $rc, $(cat "$W/new2.err")"
# libpq missing (MSAMP_DRAIN_LIBPQ names one that is not there): push, fleet and --push say so,
# exit 1, and --push before it drains anything; drain without a store does not load it at all.
nolib="$W/no-such-dir/libpq.so.5"
nolib_check() { # NAME ARG...: drain ARG... with libpq missing
  local name=$1 rc; shift
  MSAMP_DRAIN_LIBPQ=$nolib "$D" "$@" >/dev/null 2>"$W/nolib.err"; rc=$?
  [ $rc = 1 ] && grep -q "^drain: the PostgreSQL store needs libpq (Debian package libpq5): $nolib" "$W/nolib.err" &&
    [ ! -e "$W/q2c.pb.gz" ] && ok "no libpq, $name: exit 1, $(head -1 "$W/nolib.err")" ||
    fail "no libpq, $name: exit $rc, $(cat "$W/nolib.err")"
}
nolib_check push push --db "$PG_CONN" "$W/q1.s1.pb.gz"
nolib_check fleet fleet --db "$PG_CONN" top
nolib_check --push -q "$W/q2.s1.bin" --elf "$PEAK" -o "$W/q2c.pb.gz" --push "$PG_CONN"
MSAMP_DRAIN_LIBPQ=$nolib LD_DEBUG=files "$D" -q "$W/q2.s1.bin" --elf "$PEAK" -o "$W/q2d.pb.gz" 2>"$W/nostore.err" &&
  [ -s "$W/q2d.pb.gz" ] && grep -q 'file=libz' "$W/nostore.err" && ! grep -q 'libpq' "$W/nostore.err" && ok "no store: drain works without libpq, loads none" ||
  fail "no store: $(grep -m3 'libpq\|drain' "$W/nostore.err")"
# Frames' text through push's COPY (its own escaping of a text[] literal and of COPY's text): a
# hosted profile whose function sqlite3_step is named with a quote, a backslash, a tab, a newline,
# a control byte, UTF-8, an ill-formed byte, braces, a comma and NULL, and run with a 3-byte UTF-8
# character and a surrogate's bytes: each stored as Python's decode(errors="replace") of its bytes
# (drain's JSON rule, DRAIN.md), in a database of its own.
odd1=$'st"ep\\x\ty\nz\x01\xc3\xa9\xff{a,b}NULL' odd2=$'\xe2\x82\xac r\xed\xa0\x80'
python3 "$T/strtab.py" "$W/q1.s1.pb.gz" "$W/odd.pb.gz" sqlite3_step "$odd1" run "$odd2" || fail "odd names: strtab.py"
want=$(for n in "$odd1" "$odd2"; do printf '%s' "$n" | python3 -c 'import sys; print(sys.stdin.buffer.read().decode("utf-8", errors="replace").encode().hex())'; done)
pg_sql "create database odd" || fail "create database odd"
ODD="${PG_CONN/dbname=postgres/dbname=odd}"
"$D" push --db "$ODD" "$W/odd.pb.gz" 2>"$W/odd.err" || fail "odd names: push: $(cat "$W/odd.err")"
got=$(pg_sql_db "$ODD" "select encode(convert_to(f, 'UTF8'), 'hex') from (select distinct f from msamp_site s join msamp_stack k on k.h = s.h, unnest(k.stack) f where f like 'st\"ep%' or f like '€ r%') x order by f like '€%'")
[ -n "$want" ] && [ "$got" = "$want" ] &&
  [ "$(pg_sql_db "$ODD" "select count(*) from msamp_rollup r join msamp_stack s on s.h = r.h where s.stack @> (select array_agg(distinct f) from msamp_stack, unnest(stack) f where f like 'st\"ep%')")" -gt 0 ] &&
  ok "odd names: each frame's text stored as drain's JSON rule gives it, in the site and rollup rows" ||
  fail "odd names: stored [$got], want [$want]"
sha256sum -c --quiet "$W/files.sha" && ok "profile files unchanged" || fail "profile files changed"

[ $nfail = 0 ] && echo "fleet: all passed" || echo "fleet: $nfail failed"
exit $((nfail != 0))
