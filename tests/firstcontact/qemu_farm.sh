#!/usr/bin/env bash
# Usage: tests/firstcontact/qemu_farm.sh FARM QEMU...
# Builds FARM, a QEMU installation as `apt-get install --no-install-recommends qemu-system-<arch>`
# leaves it: each named qemu-system-* binary in FARM/bin (a hard link, or a copy), and beside it
# the files of the packages that binary's package Depends on for its data (qemu-system-data,
# qemu-system-common and its own package), as symbolic links under FARM/share and FARM/lib.
# QEMU looks for its firmware and modules relative to its executable (`-L help` lists the
# folders), so the farm's QEMU sees none of the files that only Recommends bring (ipxe-qemu's
# network boot ROMs, seabios's BIOS and VGA ROMs, the EFI firmware packages), even when they are
# installed on this machine. Prints the farm's firmware folders (`-L help` of its first QEMU).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 FARM QEMU..." >&2; exit 2; }
farm=$1; shift
rm -rf "$farm"
mkdir -p "$farm/bin"
pkgs="qemu-system-data qemu-system-common"
for q in "$@"; do
  path=$(command -v "$q") || { echo "$0: no $q" >&2; exit 2; }
  path=$(realpath "$path")
  pkgs="$pkgs $(dpkg-query -S "$path" | cut -d: -f1)"
  ln "$path" "$farm/bin/$q" 2>/dev/null || cp "$path" "$farm/bin/$q"
done
# shellcheck disable=SC2086  # a list of package names
dpkg-query -L $(printf '%s\n' $pkgs | sort -u) | while read -r f; do
  case "$f" in
    /usr/bin/* | /usr/sbin/* | /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/*) continue ;;
    /usr/*) ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  mkdir -p "$farm/$(dirname "${f#/usr/}")"
  ln -sf "$f" "$farm/${f#/usr/}"
done
# The farm holds only if this QEMU looks for its files relative to its executable (a relocatable
# build, as Debian's is): every folder it searches must be inside the farm.
dirs=$("$farm/bin/$1" -L help) || exit 1
echo "$dirs"
abs=$(realpath "$farm")
while read -r d; do
  case "$(realpath -m "$d")/" in
    "$abs"/*) ;;
    *) echo "$0: $1 looks for its files in $d, outside the farm: it cannot hide what is installed" >&2; exit 1 ;;
  esac
done <<<"$dirs"
