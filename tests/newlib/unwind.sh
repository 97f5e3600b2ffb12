#!/usr/bin/env bash
# Usage: BOARD_QEMU="..." tests/newlib/unwind.sh flags|extab OUTDIR
# The ARM port's exidx walker with gcc on qemu-mps2-an385 (Cortex-M3), on tests/newlib/newlib_fw.c
# built through port/msamp.mk (tests/newlib/fw.make) and run under QEMU, its stream listed by
# msamp-dump.
#   flags  (test arm-unwind-flags) port/msamp.mk's MSAMP_CFLAGS carry -funwind-tables for gcc on
#          arm (not for clang, nor on aarch64), and with them every stack is whole (site, main);
#          without them on any file the walk finds no frame: the device counts every sample in
#          DROPS no_frame and sends stack 0; with them on msamp's files but not the firmware's
#          own, stacks stop at the firmware's first function (why every file needs them).
#   extab  (test arm-unwind-extab) a linker script with .ARM.extab after .ARM.exidx
#          (boards/qemu-mps2-an385/link_extab_after.ld): stacks are whole all the same, through
#          functions whose unwind entries are in .ARM.extab.
set -u
mode=${1:?usage: $0 flags|extab OUTDIR}; out=${2:?usage: $0 flags|extab OUTDIR}
dump=${MSAMP_DUMP:-host_tools/msamp-dump}
[ -x "$dump" ] || { echo "FAIL: $dump is not built"; exit 1; }
wrap="malloc free calloc realloc"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
mkdir -p "$out"

# build_run NAME [make variables...]: the firmware built and run; its listing in NAME/listing.txt.
build_run() {
  local name=$1; shift
  local dir=$out/$name
  rm -rf "$dir/run"
  make --no-print-directory -s -j2 -f tests/newlib/fw.make OBJ_ROOT="${NL_OBJ:-$out}" OUT="$dir" LIBC=full WRAP="$wrap" "$@" \
    >"$dir.build.log" 2>&1 || { echo "FAIL: $name: the build failed:"; cat "$dir.build.log"; return 1; }
  BOARD_QEMU_TIMEOUT=${BOARD_QEMU_TIMEOUT:-30} boards/qemu_run.sh "$dir/fw.elf" uart "$dir/run" >/dev/null 2>&1
  if ! grep -q '^nl-done' "$dir/run/console.txt"; then
    echo "FAIL: $name: the firmware did not finish:"; cat "$dir/run/console.txt"; return 1
  fi
  "$dump" "$dir/run/stream.bin" >"$dir/listing.txt" || { echo "FAIL: $name: msamp-dump failed"; return 1; }
  arm-none-eabi-nm -S --defined-only "$dir/fw.elf" >"$dir/syms.txt"
}

# whole NAME: every record as the calls should give it, each stack from its site up through main.
whole() {
  local dir=$out/$1
  if awk -v wrap="$wrap" -f tests/newlib/check_counts.awk "$dir/syms.txt" "$dir/run/console.txt" \
      "$dir/listing.txt" >"$dir/check.txt"; then
    echo "ok: $1: $(sed 's/^ok: //' "$dir/check.txt"), every stack site<main"
  else
    bad "$1:"; cat "$dir/check.txt"
  fi
}

# An awk function: the value of a hexadecimal string (mawk has no strtonum).
hex='function hex(s,  v, i) { s = tolower(s); v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v } '

# stat NAME KEY: the firmware's counter KEY (nl-stats).
stat() { sed -n "s/^nl-stats.* $2=\([0-9]*\).*/\1/p" "$out/$1/run/console.txt"; }

case "$mode" in
flags)
  cflags() { make --no-print-directory -s -f port/msamp.mk "$@" --eval='cf: ; @echo $(MSAMP_CFLAGS)' cf; }
  grep -qw -- -funwind-tables <<<"$(cflags MSAMP_ARCH=arm CC=arm-none-eabi-gcc)" ||
    bad "port/msamp.mk: MSAMP_CFLAGS for arm with gcc lack -funwind-tables"
  grep -qw -- -funwind-tables <<<"$(cflags MSAMP_ARCH=arm CC='clang --target=thumbv7m-none-eabi')" &&
    bad "port/msamp.mk: MSAMP_CFLAGS for arm with clang (frame chain) have -funwind-tables"
  grep -qw -- -funwind-tables <<<"$(cflags MSAMP_ARCH=aarch64 CC=aarch64-linux-gnu-gcc)" &&
    bad "port/msamp.mk: MSAMP_CFLAGS for aarch64 have -funwind-tables"
  [ $fail = 0 ] && echo "ok: port/msamp.mk: -funwind-tables in MSAMP_CFLAGS for arm with gcc only"

  build_run tables && whole tables

  # No unwind tables on any file: no frame for any sample, every one counted.
  if build_run none MSAMP_CFLAGS_FILTER=-funwind-tables; then
    samples=$(stat none samples); noframe=$(stat none no_frame)
    drops=$(sed -n 's/^DROPS .*no_frame=\([0-9]*\).*/\1/p' "$out/none/listing.txt" | tail -1)
    recs=$(grep -cE '^(ALLOC|REALLOC) ' "$out/none/listing.txt")
    zero=$(grep -cE '^(ALLOC|REALLOC) .* stack=0 ' "$out/none/listing.txt")
    stacks=$(grep -c '^STACK ' "$out/none/listing.txt")
    if [ "${samples:-0}" -gt 0 ] && [ "$noframe" = "$samples" ] && [ "${drops:-}" = "$samples" ] &&
        [ "$recs" = "$samples" ] && [ "$zero" = "$recs" ] && [ "$stacks" = 0 ]; then
      echo "ok: no -funwind-tables: DROPS no_frame=$drops = samples $samples; all $recs records have stack 0"
    else
      bad "no -funwind-tables: samples=$samples device no_frame=$noframe stream DROPS no_frame=${drops:-none} records=$recs with stack 0: $zero, STACK records: $stacks"
    fi
  fi

  # msamp's files with the tables, the firmware's own without: the walk stops in the site.
  if build_run own-none EXTRA_CFLAGS=-fno-unwind-tables; then
    depths=$(sed -n 's/^STACK .* depth=\([0-9]*\) .*/\1/p' "$out/own-none/listing.txt" | sort -u | tr '\n' ' ')
    leaves=$(sed -n 's/^STACK .* frames=0x\([0-9a-f]*\).*/\1/p' "$out/own-none/listing.txt" |
      awk "$hex"'NR == FNR { if (NF == 4 && $3 ~ /^[tT]$/) { lo[++n] = hex($1); hi[n] = lo[n] + hex($2); nm[n] = $4 }; next }
        { a = hex($1) - 2; f = "?"; for (i = 1; i <= n; i++) if (a >= lo[i] && a < hi[i]) f = nm[i]; sub(/\..*/, "", f); print f }' \
        "$out/own-none/syms.txt" - | sort -u | tr '\n' ' ')
    if [ "$depths" = "1 " ] && ! grep -qv '^site_' <<<"$(tr ' ' '\n' <<<"$leaves" | grep .)" &&
        [ "$(stat own-none no_frame)" = 0 ]; then
      echo "ok: the firmware's own files without -funwind-tables: every stack is its site alone ($leaves)"
    else
      bad "the firmware's own files without -funwind-tables: stack depths '$depths', leaves '$leaves', no_frame $(stat own-none no_frame)"
    fi
  fi
  ;;
extab)
  ld=boards/qemu-mps2-an385/link_extab_after.ld
  if build_run after LDSCRIPT=$ld; then
    elf=$out/after/fw.elf
    sect() { arm-none-eabi-readelf -SW "$elf" | awk -v s="$1" "$hex"'{ for (i = 1; i < NF - 2; i++) if ($i == s) print hex($(i + 2)) }'; }
    exidx=$(sect .ARM.exidx); extab=$(sect .ARM.extab)
    [ -n "$exidx" ] && [ -n "$extab" ] && [ "$extab" -gt "$exidx" ] ||
      bad "$ld: .ARM.extab (${extab:-none}) does not follow .ARM.exidx (${exidx:-none})"
    # The test means something only if a walk goes through an entry in .ARM.extab: an allocating
    # site's (a walk starts at the site of an allocation, never of a free).
    inextab=$(arm-none-eabi-readelf -u "$elf" | sed -n 's/^0x[0-9a-f]* <\(site_[a-z_]*\)[.a-z0-9]*>: @0x.*/\1/p' |
      grep -v '^site_free' | sort -u | tr '\n' ' ')
    [ -n "$inextab" ] || bad "no allocating site has its unwind entry in .ARM.extab: the test shows nothing"
    [ $fail = 0 ] && echo "ok: .ARM.extab after .ARM.exidx; sites with .ARM.extab entries: $inextab"
    whole after
  fi
  ;;
*) echo "usage: $0 flags|extab OUTDIR" >&2; exit 2 ;;
esac
exit $fail
