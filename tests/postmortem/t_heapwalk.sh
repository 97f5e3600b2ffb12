#!/usr/bin/env bash
# Usage: tests/postmortem/t_heapwalk.sh OUTDIR ELF [freertos|nano|full]   (environment: DRAIN
#   (ASan+UBSan), BOARD_QEMU, BOARD_QEMU_TIMEOUT, READELF, CHECK_VIEWS, ART)
# nano: the same for newlib-nano's malloc (tests/postmortem/nano_fw.c: "nano-heapwalk" lines, its
# held sites kept_block and the three held_by_*, no vPortGetHeapStats; the damaged dumps are
# mutheap.py's nano set). full: for full newlib's (tests/postmortem/newlib_fw.c: "newlib-heapwalk"
# lines, the firmware's own walk of its chunks, which must also equal _mallinfo_r's fordblks and
# ordblks; mutheap.py's full set).
# The heap from a RAM dump of the FreeRTOS demo mid-run (docs/POSTMORTEM.md "The heap map"). The
# demo-heapwalk build freezes its heap 400 ms in (a critical section it never leaves), prints
# heap_4's free list as heap_4 links it and "msamp-freertos heapwalk end"; QMP then stops QEMU and
# dumps code and RAM (pmemsave). drain --heap-map --top reads the dump:
#   - the map's free holes (its JSON) equal the firmware's list, entry for entry, and the health
#     numbers printed equal the firmware's and vPortGetHeapStats' (free, largest, free blocks);
#   - lost_block (its pointer dropped on purpose) is unreachable; held_by_static, held_by_heap and
#     held_by_stack are reachable, and so is every sampled block of the sites that hold theirs
#     (worker_buffer, consumer_log_entry, timer_sample, the kernel's prvCreateTask); leak_record's
#     are counted (reported: a stale word may still point to a leaked one);
#   - --top prints the reachability by site;
#   - the page in headless Chromium: its DOM has the map, the screenshot the free, unreachable and
#     a site's colours;
#   - damaged dumps (tests/postmortem/mutheap.py: the free list's links and sizes, pxEnd, xStart,
#     the heap's block sizes, a cycle, the RAM cut short) under ASan+UBSan: a warning or the map
#     not written with a message, never a crash, the profile written.
set -u
out=$1
elf=$(realpath "$2")
mode=${3:-freertos}
case $mode in
  nano) tag="nano-heapwalk" ;;
  full) tag="newlib-heapwalk" ;;
  *) tag="msamp-freertos heapwalk" ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
drain=$(realpath "${DRAIN:-host_tools/drain}")
check_views=$(realpath "${CHECK_VIEWS:-tests/views/check_views.py}")
readelf=${READELF:-readelf}
limit=${BOARD_QEMU_TIMEOUT:-60}
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
CHROME_DIR=$PWD
# shellcheck source=../views/chrome.sh
. "$here/../views/chrome.sh"
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

"$readelf" -SW "$elf" >sections.txt || exit 2
python3 "$here/regions.py" sections.txt >regions.txt || exit 2
cmds=()
ram_args=()
i=0
while read -r addr size; do
  cmds+=(pmemsave "{\"val\": $addr, \"size\": $size, \"filename\": \"$PWD/ram$i.bin\"}")
  ram_args+=(--ram "ram$i.bin@$(printf '0x%x' "$addr")")
  i=$((i + 1))
done <regions.txt

# -icount: the guest's clock counts its instructions, so the moment of the dump (T ms of guest
# time) holds the same heap on a loaded machine as on an idle one (without it, a loaded CI run
# reached the dump with 1 sampled leak_record block where an idle one had 20-57, and which stale
# words a conservative scan meets moved with it).
# shellcheck disable=SC2086  # BOARD_QEMU is a command line
timeout "$limit" $BOARD_QEMU -icount shift=4,sleep=off -S -qmp unix:qmp.sock,server,nowait -serial "file:$PWD/stream.bin" \
  -kernel "$elf" </dev/null >console.txt 2>&1 &
qpid=$!
python3 "$here/qmp.py" qmp.sock cont \
  wait-text "{\"file\": \"$PWD/console.txt\", \"text\": \"$tag end\", \"timeout\": $limit}" \
  stop "${cmds[@]}" quit >qmp.txt 2>qmp.err || { fail "QMP: $(cat qmp.err)"; kill $qpid 2>/dev/null; }
wait $qpid
grep -q "$tag end" console.txt && ok "the firmware froze its heap and printed its free list: $(grep -c 'heapwalk free ' console.txt) blocks" ||
  { fail "no heapwalk in the console: $(tail -3 console.txt)"; exit 1; }

"$drain" -e "$elf" "${ram_args[@]}" -o dump.pb.gz -t 40 --heap-map map.html >top.txt 2>err.txt
dr=$?
[ $dr = 0 ] && ok "drain --heap-map: $(grep -o 'heap: .*' err.txt)" || { fail "drain exit $dr: $(cat err.txt)"; }
grep -qi 'sanitizer\|runtime error' err.txt && fail "sanitizer report: $(grep -i -m1 'sanitizer\|runtime error' err.txt)"
if [ "$mode" = full ]; then # newlib's count of the bytes taken from _sbrk spans the heap walked
  grep -q 'mallinfo.arena' err.txt && fail "$(grep -o '__malloc_current_mallinfo.arena.*' err.txt)" ||
    ok "the heap walked spans __malloc_current_mallinfo.arena"
fi

python3 - console.txt map.html top.txt "$mode" <<'PY' || nfail=$((nfail + 1))
import json, re, sys
console, page, top = (open(p, errors="replace").read() for p in sys.argv[1:4])
full = sys.argv[4] == "full"
nano = sys.argv[4] == "nano" or full  # the same firmware's heap, but for the allocator
bad = 0
def check(cond, msg):
    global bad
    print(("ok: " if cond else "FAIL: ") + msg)
    bad += not cond
fw = [(int(a), int(s)) for a, s in re.findall(r"heapwalk free addr=(\d+) size=(\d+)", console)]
tot = dict(re.findall(r"(\w+)=(\d+)", re.search(r"heapwalk free_bytes=.*", console).group(0)))
tot = {k: int(v) for k, v in tot.items()}
data = json.loads(re.search(r'<script type="application/json" id="heap-data">(.*?)</script>', page, re.S).group(1))
holes = [tuple(x) for x in data["free"]]
check(holes == fw and len(fw) > 3,
      f"the map's {len(holes)} free holes are the allocator's free list as the firmware walked it ({len(fw)} blocks)"
      + ("" if holes == fw else f": first difference {next(((i, a, b) for i, (a, b) in enumerate(zip(holes, fw)) if a != b), None)}"))
check((data["free_bytes"], data["largest_free"], data["free_blocks"]) ==
      (tot["free_bytes"], tot["largest"], tot["free_blocks"]) ==
      ((tot["free_bytes"], tot["largest"], tot["free_blocks"]) if nano else
       (tot["stats_free"], tot["stats_largest"], tot["stats_blocks"])),
      f"free {data['free_bytes']} B, largest {data['largest_free']} B, {data['free_blocks']} free blocks: "
      "the firmware's walk" + ("" if nano else f" and vPortGetHeapStats' ({tot['stats_free']}, {tot['stats_largest']}, {tot['stats_blocks']})"))
if full:
    check((tot["fordblks"], tot["ordblks"]) == (data["free_bytes"], data["free_blocks"]),
          f"and _mallinfo_r's fordblks {tot['fordblks']} B, ordblks {tot['ordblks']} (newlib's own count over its bins and top)")
by = {}
for l in data["live"]:
    # the site: its first frame that is not the demo's allocator (heap_alloc)
    names = [f.split(" ")[0].split(":")[0] for f in l["site"].split(" < ")]
    fn = next((n for n in names if n not in ("heap_alloc", "malloc", "__wrap_malloc")), names[0])
    by.setdefault(fn, []).append(l["state"])
def states(fn):
    return by.get(fn, [])
check(states("lost_block") == ["unreachable"], f"lost_block, dropped on purpose: {states('lost_block')}")
for fn in ("held_by_static", "held_by_heap", "held_by_stack"):
    check(states(fn) == ["reachable"], f"{fn}: {states(fn)}")
held = {fn: states(fn) for fn in (("kept_block",) if nano else ("worker_buffer", "consumer_log_entry", "timer_sample", "prvCreateTask"))}
n = sum(len(v) for v in held.values())
check(n > 0 and all(x == "reachable" for v in held.values() for x in v),
      f"the {n} sampled blocks of the sites that keep theirs are all reachable: " +
      ", ".join(f"{k} {len(v)}" for k, v in held.items()))
if nano:
    check(len(held["kept_block"]) == 24, f"kept_block: the 24 blocks the firmware keeps are its sampled live blocks (interval 1): {len(held['kept_block'])}")
lr = [] if nano else states("leak_record")
if not nano:
  print(f"note: leak_record (dropped each time): {lr.count('unreachable')} of {len(lr)} sampled blocks unreachable, "
      f"{lr.count('reachable')} still pointed to by a stale word (conservative)")
  # A conservative scan: a dropped block that a stale word still names is "reachable". With a
  # handful of sampled blocks all of them may be (seen: 1 of 1 either way), so the share is
  # required from 10 blocks on; lost_block above is the block dropped for certain.
  if len(lr) >= 10:
      check(lr.count("unreachable") > 0, "leak_record's blocks are found unreachable")
check(re.search(r"^\s+0\s+1\s+0\s+\d+\s+.*\blost_block[: ]", top, re.M) is not None and
      re.search(r"^\s+1\s+0\s+0\s+\d+\s+.*\bheld_by_static[: ]", top, re.M) is not None,
      "--top: reachability by site (lost_block 0 reachable 1 unreachable, held_by_static 1 0)")
sys.exit(1 if bad else 0)
PY

# The page in Chromium: the DOM after loading, and the screenshot's colours (free, unreachable,
# the first site's).
chrome --dump-dom "file://$PWD/map.html" >map.dom &
chrome --screenshot="$PWD/map.png" --window-size=1040,700 "file://$PWD/map.html" >/dev/null &
wait
grep -q 'id="map"' map.dom && [ "$(grep -c 'class="hole"' map.dom)" -ge "$(grep -c 'heapwalk free ' console.txt)" ] &&
  ok "Chromium: the page's map with its holes" || fail "Chromium's DOM: $(tail -n 3 chrome.err)"
python3 "$check_views" png map.png 2ca02c d62728 1f77b4 || nfail=$((nfail + 1))
case $mode in
  nano) syms="__malloc_free_list __malloc_sbrk_start arena" ;;
  full) syms="__malloc_av_ __malloc_sbrk_base arena" ;;
  *) syms="xStart pxEnd ucHeap" ;;
esac

# Damaged dumps (the RAM image, the second region): each read under ASan+UBSan must end with a
# profile (exit 0) and, for --heap-map, the page or a message.
ram=$(sed -n 2p regions.txt | cut -d' ' -f1)
nm=$("$readelf" -sW "$elf")
sym() { echo "$nm" | awk -v n="$1" '$8 == n { print $2; exit }'; }
# shellcheck disable=SC2046  # the three symbols' addresses
python3 "$here/mutheap.py" "$mode" "ram1.bin" "$(printf '%x' "$ram")" $(for s in $syms; do sym "$s"; done) mut >mut.txt || fail "mutheap.py"
nmut=0
while read -r name what; do
  img=(--ram "mut/$name@$(printf '0x%x' "$ram")")
  [ -f "mut/$name.off" ] && img=(--ram "mut/$name.a@$(printf '0x%x' "$ram")"
    --ram "mut/$name.b@$(printf '0x%x' $((ram + $(cat "mut/$name.off"))))")
  rm -f m.html m.pb.gz
  "$drain" -q -e "$elf" --ram "ram0.bin@0x0" "${img[@]}" -o m.pb.gz -t 3 --heap-map m.html >m.top 2>m.err
  st=$?
  if grep -qi 'sanitizer\|runtime error' m.err; then
    fail "$name ($what): $(grep -i -m1 'sanitizer\|runtime error' m.err)"
  elif [ $st != 0 ] && ! grep -q 'heap map not written\|heap walk' m.err; then
    fail "$name ($what): exit $st without a heap message: $(head -2 m.err)"
  elif [ ! -s m.pb.gz ]; then
    fail "$name ($what): no profile"
  elif [ $st = 0 ] && ! grep -q 'id="heap-data"' m.html 2>/dev/null; then
    fail "$name ($what): exit 0 but no heap map"
  else
    nmut=$((nmut + 1))
    [ $st = 0 ] && said=$(sed -n 's/.*<p id="health">\([^<]*\)<.*/\1/p' m.html) || said=$(grep -m1 -o 'heap.*' m.err)
    echo "  $name ($what): exit $st: ${said:0:160}"
  fi
done <mut.txt
[ "$nmut" = "$(wc -l <mut.txt)" ] && ok "$nmut damaged dumps: each a profile and the map or a message, no sanitizer report" ||
  fail "damaged dumps: $nmut of $(wc -l <mut.txt) fine"

cp map.html map.png "${ART:-.}/" 2>/dev/null
[ $nfail = 0 ] && echo "t_heapwalk: all passed" || echo "t_heapwalk: $nfail failure(s)"
[ $nfail = 0 ]
