#!/usr/bin/env bash
# Checks that the Debian packages a task needs are installed. As root it installs the missing ones;
# otherwise it prints the exact apt-get line and exits 1.
# Usage: ci/deps.sh GROUP...   groups: host cross qemu test demo bench all
#        ci/deps.sh list          every package of every group (what CI installs)
#        ci/deps.sh --print GROUP...   the packages of the groups, installing nothing
set -u
print=""
[ "${1:-}" = --print ] && { print=1; shift; }
# drain links libstdc++ (C++ names demangled): libstdc++-12-dev, the one of Debian 12's gcc.
# libpq-dev: drain push and drain fleet store profiles in PostgreSQL (docs/FLEET.md): its header to
# build; drain loads libpq.so.5 (libpq5, which libpq-dev depends on) when a store is used.
pkgs_host="gcc make libc6-dev pkg-config zlib1g-dev libdw-dev libelf-dev libstdc++-12-dev libpq-dev"
# python3 (drain's tests, the QMP client of tests/postmortem), curl (docs-readme-intro reads pprof's web UI), g++ (tests/cxx): none
# is on a minimal Debian 12 (g++ only a Recommends of golang-go). strace: test-hosted-exit-wake
# reads the writer thread's waits from its log. gdb: test-postmortem-hosted-gcore takes a core with gcore.
# chromium, fonts-dejavu-core: tests/views loads drain's HTML and SVG views in headless Chromium
# (as root: --no-sandbox); with --no-install-recommends no font comes with it.
# libxml2-utils: xmllint reads drain check's JUnit XML (drain-verdict-check).
# heaptrack, sqlite3, git: test-hosted-preload-heaptrack runs Debian's sqlite3 shell and git (and
# python3) under the preload library and under heaptrack, whose exact figures it compares.
# postgresql: tests/fleet starts a scratch server (initdb, postgres in /usr/lib/postgresql/*/bin).
# graphviz: the graph view of go tool pprof's web UI (docs-readme-intro asks for it; make demo
# prints the command that opens it).
pkgs_test="heaptrack sqlite3 git postgresql libxml2-utils libsqlite3-dev clang libclang-rt-14-dev valgrind gdb golang-go socat cmake lld iproute2 python3 curl g++ strace chromium fonts-dejavu-core graphviz"
# Newlib for the Cortex-M3 (tests/newlib) and its libstdc++ (tests/cxx): only Recommends of
# gcc-arm-none-eabi and of libnewlib-arm-none-eabi.
# gcc-riscv64-unknown-elf: the bare-metal RISC-V gcc whose rv32imac/ilp32 multilib (libgcc) builds
# qemu-virt-riscv32 (the Linux one has no 32-bit libgcc).
pkgs_cross="gcc-aarch64-linux-gnu gcc-arm-none-eabi gcc-mips64el-linux-gnuabi64 gcc-riscv64-linux-gnu libc6-dev-arm64-cross libc6-dev-mips64el-cross libc6-dev-riscv64-cross libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib gcc-riscv64-unknown-elf"
pkgs_qemu="qemu-user qemu-system-arm qemu-system-mips qemu-system-x86 qemu-system-misc"
pkgs_demo="gcc-aarch64-linux-gnu qemu-system-arm golang-go graphviz"
# make bench-wrappers and bench-apps (tests/bench/): callgrind, and the workloads and peers they
# link: Lua 5.4's and SQLite's static libraries, jemalloc and tcmalloc (their heap profilers).
pkgs_bench="valgrind liblua5.4-dev libsqlite3-dev libjemalloc-dev libgoogle-perftools-dev"

want=""
for g in "$@"; do
  case "$g" in
    host) want="$want $pkgs_host" ;;
    test) want="$want $pkgs_host $pkgs_test $pkgs_cross $pkgs_qemu" ;;
    cross) want="$want $pkgs_cross" ;;
    qemu) want="$want $pkgs_qemu" ;;
    demo) want="$want $pkgs_host $pkgs_demo" ;;
    bench) want="$want $pkgs_host $pkgs_bench" ;;
    all) want="$want $pkgs_host $pkgs_test $pkgs_cross $pkgs_qemu" ;;
    list) echo "$pkgs_host $pkgs_test $pkgs_cross $pkgs_qemu $pkgs_bench"; exit 0 ;;
    *) echo "ci/deps.sh: unknown group '$g'" >&2; exit 2 ;;
  esac
done

if [ -n "$print" ]; then
  # shellcheck disable=SC2086  # a list of packages
  printf '%s\n' $want | awk '!seen[$0]++'
  exit 0
fi

missing=""
for p in $want; do
  case " $missing " in *" $p "*) continue ;; esac
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
  [ "$status" = "install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
  echo "msamp: installing Debian packages:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $missing >&2 && exit 0
  echo "msamp: package installation failed" >&2
  exit 1
fi
echo "msamp: missing Debian packages. Install them with:" >&2
echo "  sudo apt-get update && sudo $line" >&2
exit 1
