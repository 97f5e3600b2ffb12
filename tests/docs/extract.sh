#!/usr/bin/env bash
# Fenced code blocks of the docs and their doc-test annotations (tests/docs/README... see docs.mk).
#   tests/docs/extract.sh FILE NAME       the text of the one block of FILE annotated
#                                         <!-- doc-test: NAME --> (or NAME (note)); exit 1 when
#                                         FILE has no such block or more than one
#   tests/docs/extract.sh -n FILE NAME    every block of FILE annotated NAME (at least one), each
#                                         line as LINE<TAB>TEXT (LINE in FILE)
#   tests/docs/extract.sh -l FILE...      one line per fenced block: FILE<TAB>LINE<TAB>ANNOTATION,
#                                         ANNOTATION the text after "doc-test:" on the line just
#                                         above the opening fence, or "-" when there is none;
#                                         a block never closed is listed again as "(unterminated)"
# A block opens with ``` or ~~~ (any indent, as in list items) and closes with a line of the
# same character, at least as many, and nothing else; its lines lose the fence's indent.
set -u
mode=text
case "${1:-}" in
  -n) mode=numbered; shift ;;
  -l) mode=list; shift ;;
esac
if [ "$mode" = list ]; then
  [ $# -ge 1 ] || { echo "usage: $0 -l FILE..." >&2; exit 2; }
else
  [ $# -eq 2 ] || { echo "usage: $0 [-n] FILE NAME | -l FILE..." >&2; exit 2; }
fi

blocks() { # FILE... -> records: L FILE LINE ANNOTATION | T LINE TEXT | E
  awk '
    function ws_len(s) { match(s, /^[ \t]*/); return RLENGTH }
    FNR == 1 { if (infence) print "U\t" lastfile "\t" start; infence = 0; prev = "" }
    { lastfile = FILENAME }
    {
      line = $0
      sub(/\r$/, "", line)
      if (!infence) {
        n = ws_len(line)
        rest = substr(line, n + 1)
        c = substr(rest, 1, 1)
        if ((c == "`" || c == "~") && substr(rest, 1, 3) == c c c) {
          flen = 0
          while (substr(rest, flen + 1, 1) == c) flen++
          fchar = c; indent = n; infence = 1
          ann = "-"
          p = prev
          if (p ~ /^[ \t]*<!--[ \t]*doc-test:.*-->[ \t]*$/) {
            sub(/^[ \t]*<!--[ \t]*doc-test:[ \t]*/, "", p)
            sub(/[ \t]*-->[ \t]*$/, "", p)
            ann = p
          }
          start = FNR
          printf "L\t%s\t%d\t%s\n", FILENAME, FNR, ann
          next
        }
        prev = line
        next
      }
      # inside a block: a closing fence?
      n = ws_len(line)
      rest = substr(line, n + 1)
      k = 0
      while (substr(rest, k + 1, 1) == fchar) k++
      tail = substr(rest, k + 1)
      if (k >= flen && tail ~ /^[ \t]*$/) { infence = 0; prev = line; print "E"; next }
      # drop up to the fence indent of leading spaces
      m = ws_len(line)
      if (m > indent) m = indent
      printf "T\t%d\t%s\n", FNR, substr(line, m + 1)
    }
    END { if (infence) print "U\t" lastfile "\t" start }
  ' "$@"
}

if [ "$mode" = list ]; then
  blocks "$@" | awk -F'\t' '$1 == "L" { print $2 "\t" $3 "\t" $4 } $1 == "U" { print $2 "\t" $3 "\t(unterminated)" }'
  exit 0
fi

file=$1 name=$2
[ -f "$file" ] || { echo "$0: no such file: $file" >&2; exit 1; }
blocks "$file" | awk -F'\t' -v name="$name" -v mode="$mode" -v file="$file" '
  function ann_name(a) { sub(/[ \t]*\(.*$/, "", a); return a }
  $1 == "L" { cur = (ann_name($4) == name); if (cur) { count++; first = $3 } next }
  $1 == "E" || $1 == "U" { cur = 0; next }
  $1 == "T" && cur && (count == 1 || mode == "numbered") {
    text = substr($0, length($1) + length($2) + 3)
    if (mode == "numbered") print $2 "\t" text; else print text
  }
  END {
    if (count == 0) { print file ": no fenced block annotated <!-- doc-test: " name " -->" > "/dev/stderr"; exit 1 }
    if (count > 1 && mode != "numbered") { print file ": " count " fenced blocks annotated doc-test: " name ", where one is taken as a file" > "/dev/stderr"; exit 1 }
  }'
