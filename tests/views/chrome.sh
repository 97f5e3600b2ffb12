# Sourced by the tests that load pages in headless Chromium (tests/views/t_browser.sh,
# tests/analysis/t_analysis_board.sh). CHROME_DIR: where each run's profile directory and the
# browser's stderr (chrome.err) go. Chromium headless as root: no sandbox, no GPU; a profile
# directory per run (runs go in parallel).
chrome() {
  local dir
  dir=$(mktemp -d "$CHROME_DIR/chrome.XXXXXX")
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$dir" "$@" 2>>"$CHROME_DIR/chrome.err"
}
