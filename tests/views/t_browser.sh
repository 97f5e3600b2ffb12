#!/usr/bin/env bash
# drain's views in a real browser: views_app (the hosted library, a known growth/shrink pattern,
# a MARK per phase, one interval change) records a stream; drain (ASan+UBSan) writes the timeline
# (HTML, CSV), the flame graph (SVG) and folded stacks. glibc holds 64 MiB free beside the
# program's 4 MiB in use. Checks: the CSV's total and grow_cache's series at each mark against the
# program's truth (within 4 sigma of the estimate + 0.5% + 16 KiB), one header per CSV column;
# headless Chromium loads the page and the SVG: their DOM after the scripts ran (path data, legend
# naming the sites as --top does, byte labels to 3 significant digits, the total filling most of
# the in-use axis and the allocator's lines on an axis of their own, axis and mark labels; flame
# frames fitted, #search= and #zoom= driven through the URL fragment) and their screenshots'
# pixels (not blank, the total's
# and a site's colours drawn; the search's magenta). Screenshots are kept in $ART.
# Env: DRAIN (sanitized drain), T (build dir with views_app), ART (artifact dir).
set -u
export MSAMP_HEAP_WALK_US=1000000000 # every walk: glibc's exact heap figures (docs/HEALTH.md)
here=$(cd "$(dirname "$0")" && pwd)
T=$(cd "$T" && pwd)
DRAIN=$(cd "$(dirname "$DRAIN")" && pwd)/$(basename "$DRAIN")
W=$T/work-browser
rm -rf "$W"
mkdir -p "$W" "$ART"
ART=$(cd "$ART" && pwd)
nfail=0
fail() { echo "FAIL: $*" >&2; nfail=$((nfail + 1)); }
ok() { echo "ok: $*"; }
check() { python3 "$here/check_views.py" "$@" || fail "check_views.py $1"; }
app=$T/views_app

CHROME_DIR=$W
. "$here/chrome.sh"

# glibc keeps 64 MiB free at the top of its heap (top_pad: no allocation, msamp sees none): the
# allocator's free bytes 16 times the program's 4 MiB in use, as a firmware's heap is to its use.
GLIBC_TUNABLES=glibc.malloc.top_pad=67108864:glibc.malloc.trim_threshold=268435456 \
  MSAMP_OUTPUT=$W/v.bin MSAMP_INTERVAL=4096 MSAMP_SEED=7 "$app" "$W/truth.txt" || fail "views_app exit $?"
[ -s "$W/v.bin" ] && [ -s "$W/truth.txt" ] || { fail "no stream or truth"; exit 1; }
# docs/VIEWS.md's command, as written but for the program, the stream and the sanitized drain.
cmd=$("$here/../docs/extract.sh" "$here/../../docs/VIEWS.md" views-browser) || { fail "no views-browser block in docs/VIEWS.md"; exit 1; }
cmd=${cmd/#drain /\$DRAIN -q }
cmd=${cmd/ app / \$app }
cmd=${cmd/% stream.bin/ v.bin}
(cd "$W" && DRAIN=$DRAIN app=$app eval "$cmd") 2>"$W/drain.err" ||
  { fail "drain exit $? ($cmd)"; cat "$W/drain.err"; exit 1; }
for f in heap.html heap.csv heap.svg; do mv "$W/$f" "$W/v.${f#heap.}" || fail "$f not written"; done
$DRAIN -q --elf "$app" -o "$W/f.pb.gz" --folded "$W/v.folded" --top 20 "$W/v.bin" >"$W/v.top" || fail "drain --folded"
ok "docs/VIEWS.md's command wrote heap.html, heap.csv, heap.svg"
# The SVG namespace is a name, not a resource: anything else that could load one fails.
! sed 's/xmlns="http:\/\/www.w3.org\/2000\/svg"//g' "$W/v.html" "$W/v.svg" |
  grep -iE 'https?:|src=|href=|@import|url\(|@font-face' &&
  ok "self-contained: no URL, src, href, import or font face in the page or the SVG" ||
  fail "an external reference"

svg="file://$W/v.svg"
chrome --dump-dom "file://$W/v.html" >"$W/html.dom" &
chrome --screenshot="$ART/timeline.png" --window-size=1040,760 "file://$W/v.html" >/dev/null &
wait
chrome --dump-dom "$svg" >"$W/svg.dom" &
chrome --dump-dom "$svg#search=grow_cache" >"$W/search.dom" &
wait
chrome --dump-dom "$svg#zoom=grow_cache" >"$W/zoom.dom" &
chrome --screenshot="$ART/flame-search.png" --window-size=1200,260 "$svg#search=grow_cache" >/dev/null &
wait
for f in html.dom svg.dom search.dom zoom.dom; do
  [ -s "$W/$f" ] || fail "Chromium dumped no DOM ($f): $(tail -n 3 "$W/chrome.err")"
done
[ -s "$ART/timeline.png" ] && [ -s "$ART/flame-search.png" ] || fail "no screenshot: $(tail -n 3 "$W/chrome.err")"

check csv "$W/truth.txt" "$W/v.csv" "$W/html.dom"
check html "$W/html.dom" "$W/v.top"
# The total's colour (#1f4e9c), grow_cache's (the first site: #d62728).
check png "$ART/timeline.png" 1f4e9c d62728
check svg "$W/svg.dom"
check search "$W/search.dom" "$W/v.folded" grow_cache
check zoom "$W/zoom.dom" grow_cache
check png "$ART/flame-search.png" e600e6

# Allocated bytes: burst's blocks (all freed) are in it, not in the in-use graph.
$DRAIN -q --elf "$app" -o "$W/a.pb.gz" --flame "$W/a.svg" --flame-type alloc "$W/v.bin" ||
  fail "drain --flame-type alloc exit $?"
grep -q 'data-n="burst"' "$W/a.svg" && ! grep -q 'data-n="burst"' "$W/v.svg" &&
  grep -q 'allocated bytes' "$W/a.svg" &&
  ok "--flame-type alloc shows burst (freed), the in-use graph does not" || fail "--flame-type alloc"

cp "$W/v.html" "$W/v.csv" "$W/v.svg" "$ART/" 2>/dev/null
if [ $nfail -gt 0 ]; then
  echo "t_browser: $nfail failure(s)"
  exit 1
fi
echo "t_browser: all passed (screenshots in $ART)"
