#!/usr/bin/env bash
# Writes msamp.pc for a built libmsamp.a to stdout. The --wrap list is read from the archive, so
# `pkg-config --libs msamp` names exactly the allocator entry points the library wraps. Each C
# wrapper is also named with -u: a static link must pull every wrapper while it reads libmsamp.a,
# since the libc.a members read after it call them too. The C++ wrappers (operator new and delete,
# mangled names _Z...) are not: a C program would then need libstdc++. A C++ program takes them
# all through CXXHEADER, which the Cflags force-include (port/hosted/hosted_cxx.c says why).
# Usage: port/hosted/gen_pc.sh NM LIBMSAMP.A INCLUDEDIR CXXHEADER [EXTRA_LIBS...]
set -eu
nm=$1 lib=$2 inc=$3 cxxh=$4
shift 4
names=$("$nm" -g --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^__wrap_/ { sub(/^__wrap_/, "", $3); print $3 }' | sort -u)
wraps=$(for n in $names; do printf -- '--wrap=%s\n' "$n"; done | paste -sd, -)
undef=$(for n in $names; do case $n in _Z*) ;; *) printf -- '-u,__wrap_%s\n' "$n" ;; esac; done | paste -sd, -)
if [ -z "$undef" ]; then
  echo "gen_pc.sh: $lib defines no __wrap_ functions of C allocators" >&2
  exit 1
fi
cxxflags=
if printf '%s\n' "$names" | grep -q '^_Z'; then cxxflags=" -include \${cxxheader}"; fi
libdir=$(cd "$(dirname "$lib")" && pwd)
cat <<PC
includedir=$inc
libdir=$libdir
cxxheader=$cxxh

Name: msamp
Description: Sampling heap profiler, hosted Linux port (link with the wrappers below)
Version: 0.1
Cflags: -I\${includedir} -fno-omit-frame-pointer$cxxflags
Libs: -Wl,$wraps -Wl,$undef -L\${libdir} -lmsamp -pthread $*
PC
