#!/usr/bin/env bash
# Usage: tests/budgets/suggest.sh [MEASURED]   (default build/budgets/measured.tsv, from make budgets)
# Prints a line of tests/budgets/budgets.tsv for each measure taken: the budget is the measure plus
# its class's headroom, rounded up (whole numbers stay whole, others to two decimals). For a new
# measure, or a budget lowered after an improvement; a budget is raised only in a commit of its own
# that says why (docs/PERFORMANCE.md#budgets-make-budgets).
set -u
awk -F'\t' -v OFS='\t' '
  function up(x, dec) { return dec ? sprintf("%.2f", int(x * 100 + 0.999999) / 100) : sprintf("%.0f", int(x + 0.999999)) }
  /^[ \t]*$/ { next }
  {
    m = $1; v = $2; dec = (v ~ /\./)
    if (m ~ /^size\./) {
      h = 0; unit = "bytes"
      if (m ~ /lib-default-text$/) how = "library text (libmsamp.a + UART transport), default configuration"
      else if (m ~ /lib-default-ram$/) how = "library data+bss, default configuration"
      else if (m ~ /lib-small-text$/) how = "library text, smallest configuration (msamp_config_small.h)"
      else if (m ~ /lib-small-ram$/) how = "library data+bss, smallest configuration"
      else if (m ~ /fw-small-code$/) how = "code msamp adds to a firmware (size probe), smallest configuration"
      else if (m ~ /fw-small-ram$/) how = "RAM (data+bss) msamp adds to a firmware (size probe), smallest configuration"
      else if (m ~ /ram-per-task$/) how = "FreeRTOS layer: RAM per task (pool slot, registry, TCB)"
      else if (m ~ /ram$/) how = "FreeRTOS layer: data+bss of its members"
      else how = "FreeRTOS layer: text of its members"
      how = "make size: " how
    } else if (m ~ /^hosted\.wire-per-sampled-pair-64k$/) {
      h = 3; unit = "B/pair"
      how = "micro workload (4e6 malloc+free of 16..1040 B), interval 65536, seed 1, inline flush; msamp_check wire: stream bytes / sampled allocations"
    } else if (m ~ /^hosted\.wire/) {
      h = 3; unit = "B/event"
      how = "app workload, interval 1024, seed 1, inline flush; msamp_check wire (framing shared; varies with the flush times)"
    } else if (m ~ /^demo\..*stream-per-event$/) {
      h = 2; unit = "B/event"
      how = "demo over the UART, QEMU -icount shift=4 (the same stream every run): stream bytes / (ALLOC+FREE+REALLOC)"
    } else if (m ~ /^demo\..*wire-per-heap-record$/) {
      h = 2; unit = "B/record"
      how = "demo over the UART, QEMU -icount shift=4 (the same stream every run): msamp_check wire, a HEAP record with its framing"
    } else if (m ~ /^demo\./) {
      h = 2; unit = "B/event"
      how = "demo over the UART, QEMU -icount shift=4 (the same stream every run): msamp_check wire"
    } else if (m ~ /^wrapper\./) {
      h = 2; unit = "instructions/call"
      how = "bench-wrappers (callgrind, N=20000): unsampled, beyond a bare --wrap"
    } else if (m ~ /^ports\..*heap-stats-call$/) {
      h = 2; unit = "instructions/call"
      how = "bench-ports (QEMU, one instruction per TB, -icount shift=4): a call of msamp_port_heap_stats (the demo heap hook)"
    } else if (m ~ /^ports\..*unsampled-malloc-free$/) {
      h = 2; unit = "instructions"
      how = "bench-ports (QEMU, one instruction per TB, -icount shift=4): an unsampled malloc+free, 6-deep chain"
    } else if (m ~ /^ports\./) {
      h = 2; unit = "instructions"
      how = "bench-ports (QEMU, one instruction per TB, -icount shift=4): a sampled malloc+free, 6-deep chain"
    } else if (m ~ /^drain\.instructions-unique/) {
      h = 1; unit = "instructions"
      how = "callgrind: drain -q -o on gen --allocs 1000000 --unique-stacks (27.5 MB, 10^6 distinct stacks: the cost of the profile; turn 2: 5.65 G)"
    } else if (m ~ /^drain\.instructions/) {
      h = 2; unit = "instructions/MB"
      how = "callgrind: drain -q -o on gen --allocs 400000 --sites 1000 (4.8 MB; decode, model, profile)"
    } else if (m ~ /^drain\.peak-rss-sites/) {
      h = 10; unit = "MiB"
      how = "drain peak RSS (ru_maxrss) on the same 4.8 MB stream, 1000 stacks"
    } else if (m ~ /^drain\.peak-rss-unique/) {
      h = 10; unit = "MiB"
      how = "drain peak RSS (ru_maxrss) on gen --allocs 1000000 --unique-stacks: 10^6 distinct stacks"
    } else { h = 0; unit = "?"; how = "?" }
    print m, (h ? up(v * (1 + h / 100), dec) : v), unit, (h ? "+" h "%" : "exact"), how
  }' "${1:-build/budgets/measured.tsv}"
