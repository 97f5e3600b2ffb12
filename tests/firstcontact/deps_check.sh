#!/usr/bin/env bash
# Usage: tests/firstcontact/deps_check.sh WHAT "GROUP..." ITEM...
# Checks that `ci/deps.sh GROUP...` (what `make WHAT` installs first) brings every ITEM it uses on a
# Debian 12 base system (the packages are installed here, so dpkg can tell who brings what): ITEM is a command (looked up in PATH) or a file (a header, a library);
# its package (dpkg -S) must be one of the groups' packages or of what they Depend on (recursively;
# Recommends are not installed), or part of every Debian system (Essential or Priority required).
set -u
[ $# -ge 3 ] || { echo "usage: $0 WHAT \"GROUP...\" ITEM..." >&2; exit 2; }
what=$1; groups=$2; shift 2
# shellcheck disable=SC2086  # a list of groups
pkgs=$(ci/deps.sh --print $groups) || { echo "FAIL: ci/deps.sh --print $groups"; exit 1; }
# shellcheck disable=SC2086  # a list of packages
closure=$(apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
  --no-breaks --no-replaces --no-enhances $pkgs | grep -v '^ ' | sed 's/:.*//' | sort -u)
base=$(dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' | awk '$2 == "yes" || $3 == "required" { print $1 }')
# Each item as a path: a command through PATH, a file as named (symbolic links kept: libdw.so is
# libdw-dev's, libdw.so.1 libdw1's; `..` resolved, in one call).
fail=0; missing=""
declare -A path_of in_closure in_base
for p in $closure; do in_closure[$p]=1; done
for p in $base; do in_base[$p]=1; done
files=()
for item in "$@"; do
  case "$item" in
    /*) files+=("$item") ;;
    *) # Debian's own command first (a PATH may put pyenv's or a local build before it).
      for d in /usr/bin /usr/sbin /bin /sbin ""; do
        if [ -z "$d" ]; then
          path_of[$item]=$(command -v "$item") || { echo "missing: $item (not installed here)"; missing=1; }
        elif [ -x "$d/$item" ]; then
          path_of[$item]=$d/$item; break
        fi
      done ;;
  esac
done
if [ ${#files[@]} -gt 0 ]; then
  mapfile -t norm < <(realpath -s -- "${files[@]}")
  for i in "${!files[@]}"; do path_of[${files[$i]}]=${norm[$i]}; done
fi
paths=()
for item in "$@"; do [ -n "${path_of[$item]:-}" ] && paths+=("${path_of[$item]}"); done
# Their packages, in one query (merged /usr: dpkg may know a file under /lib or /bin instead).
declare -A pkg_of
owners() {
  dpkg-query -S "$@" 2>/dev/null | grep -v '^diversion' | while IFS= read -r line; do
    f=${line#*: }; p=${line%%: *}; p=${p%%,*}; echo "${p%%:*}"$'\t'"$f"
  done
}
while IFS=$'\t' read -r p f; do pkg_of[$f]=$p; done < <(owners "${paths[@]}")
retry=()
for p in "${paths[@]}"; do
  [ -z "${pkg_of[$p]:-}" ] && [[ "$p" == /usr/* ]] && retry+=("${p#/usr}")
done
if [ ${#retry[@]} -gt 0 ]; then
  while IFS=$'\t' read -r p f; do pkg_of[/usr$f]=$p; done < <(owners "${retry[@]}")
fi
# Through /etc/alternatives (cc, arm-none-eabi's lib/): the file the links end at.
declare -A real_of
retry=()
for p in "${paths[@]}"; do
  [ -z "${pkg_of[$p]:-}" ] || continue
  real_of[$p]=$(realpath -e -- "$p" 2>/dev/null) && retry+=("${real_of[$p]}")
done
if [ ${#retry[@]} -gt 0 ]; then
  declare -A pkg_real
  while IFS=$'\t' read -r p f; do pkg_real[$f]=$p; done < <(owners "${retry[@]}")
  for p in "${!real_of[@]}"; do pkg_of[$p]=${pkg_real[${real_of[$p]}]:-}; done
fi
n=0
for item in "$@"; do
  path=${path_of[$item]:-}
  [ -n "$path" ] || continue
  n=$((n + 1))
  pkg=${pkg_of[$path]:-}
  if [ -z "$pkg" ]; then
    echo "FAIL: $item ($path): no Debian package owns it"; fail=1
  elif [ -n "${in_closure[$pkg]:-}" ]; then
    echo "ok    $item: $pkg"
  elif [ -n "${in_base[$pkg]:-}" ]; then
    echo "ok    $item: $pkg (in every Debian system)"
  else
    echo "FAIL: $item ($path) comes with $pkg, which ci/deps.sh $groups (make $what) does not install"
    fail=1
  fi
done
[ $fail = 0 ] || exit 1
# A command missing here cannot be looked up: in CI (everything installed) that is a failure,
# elsewhere the test is skipped, as tests/need.sh does.
if [ -n "$missing" ]; then
  [ "${CI:-}" = true ] && { echo "FAIL: commands missing after ci/deps.sh $groups"; exit 1; }
  echo "missing tool(s): see above (run ci/deps.sh all as root)" >&2
  exit 77
fi
echo "PASS: ci/deps.sh $groups installs what make $what uses ($n items)"
