#!/usr/bin/env bash
# Writes msamp.pc for a built libmsamp.a to stdout. The --wrap list is read from the archive, so
# `pkg-config --libs msamp` names exactly the allocator entry points the library wraps. Each
# wrapper is also named with -u: a static link must pull every wrapper while it reads libmsamp.a,
# since the libc.a members read after it call them too.
# Usage: port/hosted/gen_pc.sh NM LIBMSAMP.A INCLUDEDIR [EXTRA_LIBS...]
set -eu
nm=$1 lib=$2 inc=$3
shift 3
names=$("$nm" -g --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^__wrap_/ { sub(/^__wrap_/, "", $3); print $3 }' | sort -u)
wraps=$(for n in $names; do printf -- '--wrap=%s\n' "$n"; done | paste -sd, -)
undef=$(for n in $names; do printf -- '-u,__wrap_%s\n' "$n"; done | paste -sd, -)
if [ -z "$wraps" ]; then
  echo "gen_pc.sh: $lib defines no __wrap_ functions" >&2
  exit 1
fi
libdir=$(cd "$(dirname "$lib")" && pwd)
cat <<PC
includedir=$inc
libdir=$libdir

Name: msamp
Description: Sampling heap profiler, hosted Linux port (link with the wrappers below)
Version: 0.1
Cflags: -I\${includedir} -fno-omit-frame-pointer
Libs: -Wl,$wraps -Wl,$undef -L\${libdir} -lmsamp -pthread $*
PC
