#!/usr/bin/env bash
# Usage: tests/cxx/check.sh ELF OBJ STREAM TRUTH WORKDIR M
# Checks the stream a C++ program of tests/cxx recorded at interval 1 (every allocation) against
# its truth (cxx_sites.h's lines). ELF is the program, OBJ its object with the sites' loops (what
# calls the allocator), M how the target mangles size_t (m: unsigned long, j: unsigned int).
#   - OBJ calls every operator new and delete form of C++17 (else the test proves little), ELF
#     links all 20 wrappers;
#   - for each site, allocated and in-use objects and bytes as the truth says, all of them at the
#     site's own frame (go tool pprof -top: flat = cum), none counted twice: no stack holds an
#     operator new or a wrapper frame (an allocation seen again by a wrapper that the real operator
#     new called would);
#   - every stack of a site reaches main (-traces);
#   - names are demangled (as binutils' c++filt spells the symbols nm finds) in pprof -top and
#     -traces, in drain's --top report and its folded stacks, and pprof -raw keeps the mangled name
#     as the system name; a template's too (std::vector<cxxsites::Obj...>::reserve);
#   - each failure (std::bad_alloc thrown through the wrapper, a nothrow new's NULL, the giant
#     guard's refusals) is one FAIL record of its kind and size (msamp-dump) and one failure at its
#     site in drain's report; the site run after them is still sampled in full.
set -u
elf=$1 obj=$2 stream=$3 truth=$4 dir=$5 m=$6
root=$(cd "$(dirname "$0")/../.." && pwd)
"$root/tests/need.sh" go c++filt || exit $?
D=$root/host_tools/drain
DUMP=$root/host_tools/msamp-dump
pp() { "$root/tests/drain/gopprof.sh" "$@"; }
nfail=0
fail() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
mkdir -p "$dir"
rm -f "$dir"/*
case $m in
  m) size_t="unsigned long" ;;
  j) size_t="unsigned int" ;;
  *) echo "$0: M is m or j" >&2; exit 2 ;;
esac
nm="nm"
command -v "${CROSS:-}nm" >/dev/null 2>&1 && nm=${CROSS:-}nm
# The names of the truth's lines of the given kinds (site inner fail), one each.
truth_names() {
  awk -v kinds="$1" '
    BEGIN { n = split(kinds, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
    $1 in want {
      last = $1 == "fail" ? NF - 2 : NF - 3; s = $2
      for (i = 3; i <= last; i++) s = s " " $i
      print s
    }' "$truth" | sort -u
}

# Every replaceable form, @ for size_t's letter.
forms=$(echo "_Znw@ _Zna@ _Znw@St11align_val_t _Zna@St11align_val_t _Znw@RKSt9nothrow_t
  _Zna@RKSt9nothrow_t _Znw@St11align_val_tRKSt9nothrow_t _Zna@St11align_val_tRKSt9nothrow_t _ZdlPv
  _ZdaPv _ZdlPv@ _ZdaPv@ _ZdlPvSt11align_val_t _ZdaPvSt11align_val_t _ZdlPv@St11align_val_t
  _ZdaPv@St11align_val_t _ZdlPvRKSt9nothrow_t _ZdaPvRKSt9nothrow_t _ZdlPvSt11align_val_tRKSt9nothrow_t
  _ZdaPvSt11align_val_tRKSt9nothrow_t" | tr @ "$m")
$nm -u "$obj" | awk '{ print $NF }' >"$dir/undef"
missing=$(for f in $forms; do grep -qx "$f" "$dir/undef" || echo "$f"; done)
[ -z "$missing" ] && ok "$(basename "$obj") calls all 20 forms" ||
  fail "$(basename "$obj") does not call:" $missing
$nm "$elf" | awk '$2 == "T" { print $3 }' >"$dir/defined"
missing=$(for f in $forms; do grep -qx "__wrap_$f" "$dir/defined" || echo "$f"; done)
[ -z "$missing" ] && ok "$(basename "$elf") links the 20 wrappers" ||
  fail "$(basename "$elf") lacks the wrappers of:" $missing
[ -s "$stream" ] || { fail "no stream"; exit 1; }

# The failures, as the device sent them.
"$DUMP" "$stream" >"$dir/dump" || fail "msamp-dump exit $?"
nfails=$(grep -c '^fail ' "$truth")
[ "$(grep -c 'FAIL kind=' "$dir/dump")" = "$nfails" ] && ok "$nfails FAIL records" ||
  fail "FAIL records: $(grep 'FAIL ' "$dir/dump" | tr '\n' ';'), truth: $nfails"
while read -r _ rest; do
  kind=${rest##* } rest=${rest% *}
  name=${rest% *} size=${rest##* }
  [ "$(grep -c "FAIL kind=$kind size=$size " "$dir/dump")" = 1 ] &&
    ok "FAIL kind=$kind size=$size ($name)" || fail "no single FAIL kind=$kind size=$size for $name"
done < <(grep '^fail ' "$truth")

"$D" -o "$dir/heap.pb.gz" --elf "$elf" --top 100 --folded "$dir/folded" "$stream" \
  >"$dir/report" 2>"$dir/drain.err" || { fail "drain exit $?"; cat "$dir/drain.err"; }

# Names: each site's demangled name is how c++filt spells a symbol of the program (failures are in
# the profile's comments, not its samples).
$nm "$elf" | awk '$3 ~ /^_ZN8cxxsites/ { print $3 }' | sort -u >"$dir/mangled"
c++filt <"$dir/mangled" >"$dir/demangled"
sites=$(truth_names "site inner")
pp -raw "$dir/heap.pb.gz" >"$dir/raw" 2>"$dir/raw.err" || fail "pprof -raw: $(cat "$dir/raw.err")"
while IFS= read -r name; do
  mangled=$(paste "$dir/demangled" "$dir/mangled" | awk -F'\t' -v n="$name" '$1 == n { print $2 }')
  [ -n "$mangled" ] || { fail "c++filt spells no symbol '$name'"; continue; }
  grep -qF " $name " "$dir/raw" && grep -F " $name " "$dir/raw" | grep -qF "($mangled)" &&
    ok "-raw: $name, system name $mangled" || fail "-raw lacks '$name' with system name $mangled"
done <<<"$sites"

# drain's report: each site (allocated bytes) and each failure at its site.
while IFS= read -r name; do
  grep -qF "  $name " "$dir/report" && ok "--top names $name" || fail "--top lacks $name"
done <<<"$(truth_names site)"
# CXX_FAIL_NOSTACK (environment): failure sites whose stack the target's walker cannot take (one
# per line): their failure must be there, at "[unknown stack]".
while read -r _ rest; do
  kind=${rest##* } rest=${rest% *}
  name=${rest% *} size=${rest##* } word=null
  [ "$kind" = 1 ] && word=giant
  at=$name
  grep -qxF "$name" <<<"${CXX_FAIL_NOSTACK:-}" && at="[unknown stack]"
  grep -E "^ +1 +$size +$size +$word +" "$dir/report" | grep -qF "  $at" &&
    ok "--top: one $word failure of $size bytes at $at" ||
    fail "--top: no $word failure of $size bytes at $at"
done < <(grep '^fail ' "$truth")
# Folded stacks (in-use bytes; spaces are underscores; frames FUNC@FILE:LINE): main;...;SITE BYTES,
# the truth's bytes.
awk 'FNR == NR {
       if ($1 != "site") next
       size = $NF; live = $(NF - 1); $1 = ""; $NF = ""; $(NF - 1) = ""; $(NF - 2) = ""
       sub(/^ +/, ""); sub(/ +$/, ""); gsub(/ /, "_"); want[$0] = live * size; next
     }
     { bytes = $NF; stack = $0; sub(/ [^ ]*$/, "", stack); n = split(stack, fr, ";")
       for (i = 1; i <= n; i++) sub(/@[^@]*:[0-9]+$/, "", fr[i])
       main = 0; for (i = 1; i < n; i++) if (fr[i] == "main") main = 1
       if (main) got[fr[n]] += bytes }
     END {
       bad = 0
       for (s in want)
         if (got[s] == want[s]) printf "ok: folded: main;...;%s %d\n", s, want[s]
         else { printf "FAIL: folded: main;...;%s has %d bytes, truth %d\n", s, got[s], want[s]; bad++ }
       exit bad > 0
     }' "$truth" "$dir/folded" || nfail=$((nfail + 1))

# Exact estimates per site: flat (the site's own frame) and cum (with what it called).
for idx in alloc_objects inuse_objects alloc_space inuse_space; do
  pp -top -nodecount=1000 -unit=B -sample_index=$idx "$dir/heap.pb.gz" >"$dir/top.$idx" 2>/dev/null ||
    fail "pprof -top -sample_index=$idx"
  awk -v idx=$idx '
    FNR == NR {
      if ($1 != "site" && $1 != "inner") next
      count = $(NF - 2); live = $(NF - 1); size = $NF; kind = $1
      $1 = ""; $NF = ""; $(NF - 1) = ""; $(NF - 2) = ""; sub(/^ +/, ""); sub(/ +$/, "")
      v = idx == "alloc_objects" ? count : idx == "inuse_objects" ? live : \
          idx == "alloc_space" ? count * size : live * size
      cum[$0] += v; if (kind == "site") flat[$0] += v
      next
    }
    /flat%/ { table = 1; next }
    table {
      f = $1; c = $4; sub(/B$/, "", f); sub(/B$/, "", c)
      name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
      gotf[name] = f; gotc[name] = c
    }
    END {
      bad = 0
      for (n in cum) {
        if (!(n in gotc)) { printf "FAIL: %s: %s not in -top\n", idx, n; bad++; continue }
        if (gotf[n] != flat[n] + 0 || gotc[n] != cum[n]) {
          printf "FAIL: %s: %s flat %s cum %s, truth %d and %d\n", idx, n, gotf[n], gotc[n], \
            flat[n], cum[n]
          bad++
        } else printf "ok: %s: %s flat %s cum %s\n", idx, n, gotf[n], gotc[n]
      }
      exit bad > 0
    }' "$truth" "$dir/top.$idx" || nfail=$((nfail + 1))
done

# Stacks: every one through a site reaches main; none has an operator new or wrapper frame (a block
# counted again by a wrapper that libstdc++'s operator new or new[] called would).
pp -traces -sample_index=alloc_objects "$dir/heap.pb.gz" >"$dir/traces" 2>/dev/null ||
  fail "pprof -traces"
awk '/^-----------\+/ { if (site && !main) bad++; if (site) n++; site = main = 0; next }
     /cxxsites::/ { site = 1 } $1 == "main" { main = 1 }
     END {
       if (site && !main) bad++
       if (site) n++
       printf "%d site stacks, %d without main\n", n, bad
       exit bad > 0 || n == 0
     }' \
  "$dir/traces" >"$dir/traces.check" && ok "-traces: $(cat "$dir/traces.check")" ||
  fail "-traces: $(cat "$dir/traces.check")"
bad=$(grep -m1 -E 'operator new|__wrap_' "$dir/traces")
[ -n "$bad" ] && fail "a stack holds an operator new or wrapper frame: $bad" ||
  ok "no stack holds an operator new frame"
reserve="std::vector<cxxsites::Obj, std::allocator<cxxsites::Obj> >::reserve($size_t)"
grep -qF "$reserve" "$dir/traces" && ok "-traces: a template's demangled name ($reserve)" ||
  fail "-traces lacks $reserve"

if [ $nfail -gt 0 ]; then
  echo "$(basename "$elf"): $nfail failure(s)"
  exit 1
fi
echo "$(basename "$elf"): all passed"
