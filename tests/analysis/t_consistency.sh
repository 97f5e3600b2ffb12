#!/usr/bin/env bash
# Usage: tests/analysis/t_consistency.sh OUTDIR STREAM:ELF[:LEAKS]...   (environment: DRAIN)
# LEAKS (comma-separated innermost functions, or empty for none): where the allocator's figures
# give a heap verdict, the leaks must be these (the program's own truth); unset: agreement only.
# One truth, said once (docs/VERDICTS.md "One verdict model"): for each stream (with the ELF that
# symbolizes it), drain writes every view of it (--top, --leaks, --json, the timeline and its CSV,
# the flame graph, folded stacks, the peak profile, lifetimes, the profile), drain check judges the
# peak, every site function's growth and in-use on the saved profile and on the stream, and drain
# diff compares the profile with itself; tests/analysis/consistency.py then requires every view to
# name the JSON's leaks, peak, low watermark, heap verdict and sites. First: every option and
# command of `drain --help` is a view consistency.py reads, or is named there as no view.
set -u
out=$1; shift
D=${DRAIN:-host_tools/drain}
here=$(dirname "$0")
nfail=0
mkdir -p "$out"
"$D" --help >"$out/help.txt" 2>&1
python3 "$here/consistency.py" --views "$out/help.txt" || nfail=$((nfail + 1))
for pair in "$@"; do
  stream=${pair%%:*} elf=${pair#*:}
  unset EXPECT_LEAKS
  case "$elf" in *:*) EXPECT_LEAKS=$(tr ',' ' ' <<<"${elf#*:}"); export EXPECT_LEAKS; elf=${elf%%:*} ;; esac
  d=$out/$(basename "$(dirname "$stream")")-$(basename "$stream" .bin)
  rm -rf "$d" && mkdir -p "$d"
  echo "== $stream ($elf)"
  if ! "$D" "$stream" -e "$elf" -o "$d/p.pb.gz" --top 30 --leaks --lifetimes --json "$d/d.json" \
      --timeline "$d/d.html" --timeline-csv "$d/d.csv" --flame "$d/d.svg" --folded "$d/d.folded" \
      --peak "$d/peak.pb.gz" >"$d/top.txt" 2>"$d/top.err"; then
    echo "FAIL: drain $stream: exit $? ($(head -c 300 "$d/top.err"))"; nfail=$((nfail + 1)); continue
  fi
  python3 "$here/consistency.py" --budgets "$d"
  # Exit 1 is a failed budget (the growth budgets of the leaks fail): only >= 2 is an error.
  "$D" check "$d/p.pb.gz" --budgets "$d/budgets.txt" --json "$d/check.json" >"$d/check.txt" 2>&1
  [ $? -lt 2 ] || { echo "FAIL: drain check of the profile: $(head -c 300 "$d/check.txt")"; nfail=$((nfail + 1)); }
  "$D" check "$stream" -e "$elf" --budgets "$d/budgets.txt" --json "$d/check_stream.json" >"$d/check_stream.txt" 2>&1
  [ $? -lt 2 ] || { echo "FAIL: drain check of the stream: $(head -c 300 "$d/check_stream.txt")"; nfail=$((nfail + 1)); }
  "$D" diff "$d/p.pb.gz" "$d/p.pb.gz" --json "$d/diff.json" >"$d/diff.txt" 2>&1 ||
    { echo "FAIL: drain diff: exit $?"; nfail=$((nfail + 1)); }
  python3 "$here/consistency.py" "$d" || { nfail=$((nfail + 1)); echo "  (outputs in $d)"; }
done
exit $((nfail > 0))
