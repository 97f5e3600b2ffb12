#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/newlib/verdict.sh OUTDIR   (environment: DRAIN, NL_OBJ, NL_SEEDS)
# One verdict on newlib's heap (test newlib-verdict, docs/HEALTH.md, docs/VERDICTS.md "One verdict
# model"): tests/newlib/growth_fw.c, a firmware that leaks 48 B every 10th call of leak_record
# among churn, a bounded cache and a one-time pool, built through port/msamp.mk with msamp's
# newlib heap hook (tests/newlib/fw.make) against full newlib and newlib-nano, with the firmware's
# heap end (msamp_newlib_heap_end(): the heap's total held) and without it (NL_NO_HEAP_END: the
# total is what _sbrk has given, it grows), each with msamp's seeds NL_SEEDS (default 1..5), run
# under QEMU with -icount (device time counts instructions: the same stream every run of a seed).
# drain --top --leaks --json on every stream must say:
#   - leak_record alone is the leak of --leaks, of the heap verdict and of the JSON (leaks, heap's
#     leaks), pool_once alone a step (tests/analysis/leaks_agree.sh);
#   - the heap verdict "leak": no fragmentation (the firmware has no failure, and below the break
#     of a heap that grows its free bytes are not all it has free: docs/HEALTH.md), never healthy;
#   - with the heap end: the headroom as a share of the arena (256 KiB), in the JSON too;
#     without it: "headroom: unknown", JSON null (no share of a total that grows);
#   - "fragment" (seed 1 per library): newlib's own layout, the heap from the linker's `end` up
#     to the stack (NL_SBRK_FRAGMENT) and no hook, linked by tests/newlib/link_fragment.ld, which
#     has `INCLUDE msamp.ld` alone: the headroom a share of port/msamp.ld's default heap end less
#     `end` (read from the ELF), exactly, in the JSON too: heap health with no extra code.
# A control per library (seed 1, no heap end): the firmware without its leak (NL_LEAK=0), whose
# heap still grows (the cache, the pool): no leak in any view, pool_once a step, the verdict
# healthy without "the free bytes mostly in one block". Then every view of every stream agrees
# (tests/analysis/t_consistency.sh: the leaks exactly leak_record, or none for the controls).
set -u
out=${1:?usage: $0 OUTDIR}
drain=${DRAIN:-host_tools/drain}
seeds=${NL_SEEDS:-1 2 3 4 5}
[ -x "$drain" ] || { echo "FAIL: $drain is not built"; exit 1; }
arena=262144 # growth_fw.c's NL_ARENA_BYTES
fail=0
streams=()
mkdir -p "$out"

# run NAME LIBC CFLAGS: builds and runs one firmware, and drain on its stream (OUT/NAME/top.txt,
# d.json); 1 on failure, with the reason printed.
run() {
  local name=$1 libc=$2 flags=$3 dir=$out/$1 status ld=boards/qemu-mps2-an385/link.ld
  [[ $flags == *NL_SBRK_FRAGMENT* ]] && ld=tests/newlib/link_fragment.ld
  rm -rf "$dir" && mkdir -p "$dir"
  if ! make --no-print-directory -s -j2 -f tests/newlib/fw.make OBJ_ROOT="${NL_OBJ:-$out}" \
      OUT="$dir" LIBC="$libc" SRC=tests/newlib/growth_fw.c EXTRA_CFLAGS="$flags" LDSCRIPT=$ld \
      >"$dir/build.log" 2>&1
  then
    echo "FAIL: $name: the build failed:"; cat "$dir/build.log"; return 1
  fi
  BOARD_QEMU_EXTRA="-icount shift=4,sleep=off" BOARD_QEMU_TIMEOUT=${BOARD_QEMU_TIMEOUT:-30} \
    boards/qemu_run.sh "$dir/fw.elf" uart "$dir/run" >/dev/null 2>&1
  status=$?
  if [ $status != 0 ] || ! grep -q '^nl-done' "$dir/run/console.txt"; then
    echo "FAIL: $name: the firmware did not finish (QEMU $status):"; cat "$dir/run/console.txt"
    return 1
  fi
  "$drain" -q -e "$dir/fw.elf" -o "$dir/heap.pb.gz" -t 8 --leaks --json "$dir/d.json" \
    "$dir/run/stream.bin" >"$dir/top.txt" 2>"$dir/drain.err" ||
    { echo "FAIL: $name: drain failed: $(head -c 300 "$dir/drain.err")"; return 1; }
}

# judge NAME END LEAKS WORD: OUT/NAME's --top and JSON: LEAKS the leaks of every view, pool_once
# the step, WORD the heap verdict, the headroom as END (end, none or fragment) wants it. One ok:/FAIL:
# line.
judge() {
  local name=$1 end=$2 leaks=$3 want=$4 dir=$out/$1 agree room jroom verdict bad=""
  agree=$(tests/analysis/leaks_agree.sh "$leaks" pool_once "$dir/d.json" "$dir/top.txt") ||
    bad="$bad ${agree#FAIL: };"
  verdict=$(sed -n 's/^  verdict: //p' "$dir/top.txt")
  [ "$verdict" = "$want" ] || bad="$bad heap verdict '$verdict', want '$want';"
  room=$(sed -n 's/^  headroom: //p' "$dir/top.txt")
  jroom=$(python3 -c 'import json, sys
print((json.load(open(sys.argv[1]))["sessions"][0]["heap"] or {}).get("headroom", "absent"))' \
    "$dir/d.json")
  if [ "$end" = end ]; then
    [[ $room == *" % of $arena B)" && $jroom != None ]] ||
      bad="$bad the heap's end known: want its headroom of $arena B, got '$room' (JSON $jroom);"
  elif [ "$end" = fragment ]; then
    local heap="" e b
    e=$(arm-none-eabi-nm "$dir/fw.elf" | awk '$3 == "__msamp_heap_end" { print $1 }')
    b=$(arm-none-eabi-nm "$dir/fw.elf" | awk '$3 == "end" { print $1 }')
    [ -n "$e" ] && [ -n "$b" ] && [ $((16#$e)) -gt $((16#$b)) ] && heap=$((16#$e - 16#$b))
    [[ -n $heap && $room == *" % of $heap B)" && $room != *" (0.0 % "* && $jroom != None && $jroom != 0.0 ]] ||
      bad="$bad msamp.ld's heap end: want a headroom of __msamp_heap_end - end = ${heap:-?} B, got '$room' (JSON $jroom);"
  else
    [[ $room == "unknown "* && $jroom == None ]] ||
      bad="$bad the heap grows: want 'headroom: unknown', got '$room' (JSON $jroom);"
    ! grep -q '^    healthy: .*in one block' "$dir/top.txt" ||
      bad="$bad the heap grows: '$(grep '^    healthy: ' "$dir/top.txt")';"
  fi
  [ -z "$bad" ] || { echo "FAIL: $name:$bad"; return 1; }
  echo "ok: $name: leaks [$leaks], steps [pool_once], verdict '$verdict', headroom ${room%% (the *}"
}

for libc in full nano; do
  for end in end none; do
    for seed in $seeds; do
      name=$libc-$end-s$seed
      run "$name" "$libc" "$([ $end = none ] && echo -DNL_NO_HEAP_END) -DNL_SEED=$seed" ||
        { fail=1; continue; }
      streams+=("$out/$name/run/stream.bin:$out/$name/fw.elf:leak_record")
      judge "$name" "$end" leak_record leak || fail=1
    done
  done
  name=$libc-fragment-s1 # newlib's own _sbrk, the heap's end from msamp.ld alone
  run "$name" "$libc" "-DNL_SBRK_FRAGMENT -DNL_SEED=1" && judge "$name" fragment leak_record leak || fail=1
  name=$libc-none-noleak # the control: no leak, the heap still growing
  run "$name" "$libc" "-DNL_NO_HEAP_END -DNL_LEAK=0 -DNL_SEED=1" || { fail=1; continue; }
  streams+=("$out/$name/run/stream.bin:$out/$name/fw.elf:")
  judge "$name" none "" healthy || fail=1
done

c=$out/consistency.txt
if DRAIN=$drain tests/analysis/t_consistency.sh "$out/consistency" "${streams[@]}" >"$c" 2>&1; then
  echo "ok: every view of the ${#streams[@]} streams agrees ($(grep -c '^ok' "$c") checks of" \
    "tests/analysis/t_consistency.sh in $c)"
else
  echo "FAIL: the views disagree (tests/analysis/t_consistency.sh, all in $c):"
  grep '^==\|FAIL' "$c" | grep -B1 FAIL | head -40
  fail=1
fi
exit $fail
