#!/usr/bin/env bash
# Usage: tests/rtos/check_task_budget.sh OUTDIR
# Per-task budgets (docs/HEALTH.md#task-budgets) in a run of qemu-mps2-an385-freertos's demo: its
# task `budgeted` sets a budget (msamp_task_budget) and, twice, builds a backlog of 2 KB buffers
# until msamp's hook says it passed, then sheds it; the firmware prints its truth ("msamp-demo
# task-budget task=budgeted id=.. budget=.. peak=.. passed=.. hook_calls=.. hook_task=..
# hook_in_use=..": its true peak in-use bytes, the times its own accounting passed the budget, the
# hook's calls). Checks against drain's --json (OUTDIR/demo.json) and --top (OUTDIR/drain.txt):
#   events   the hook was called (at least once, for the task's own id), and drain's tasks[] has
#            the budget and as many events as hook calls for budgeted, all received, and no budget
#            and no event for any other task; --top says the task passed its budget
#   peak     drain's peak interval for budgeted at 4 standard errors (lo_4se..hi_4se) holds the
#            task's true peak (the 95 % one is printed)
set -u
out=${1:?outdir}
console=$out/console.txt json=$out/demo.json report=$out/drain.txt
line=$(grep -m1 '^msamp-demo task-budget task=budgeted ' "$console") ||
  { echo "FAIL: no task-budget line in $console"; exit 1; }
kv() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$line"; }
[ -s "$json" ] || { echo "FAIL: no drain --json $json"; exit 1; }
python3 - "$json" "$(kv id)" "$(kv budget)" "$(kv peak)" "$(kv passed)" "$(kv hook_calls)" \
  "$(kv hook_task)" <<'PY' || exit 1
import json, sys
path, tid, budget, peak, passed, calls, hook_task = sys.argv[1], *map(int, sys.argv[2:])
fail = 0
def check(ok, what):
    global fail
    print(("ok: " if ok else "FAIL: ") + what)
    fail |= not ok
tasks = {t["task"]: t for t in json.load(open(path))["sessions"][0]["tasks"]}
b = tasks.get("budgeted")
check(b is not None, "drain's tasks[] has budgeted")
if b is None:
    sys.exit(1)
check(calls >= 1 and hook_task == tid,
      f"the hook was called {calls} time(s), for task {hook_task} (budgeted is {tid}); "
      f"the task's own accounting passed its budget {passed} time(s)")
check(b["budget"] == budget, f"budgeted's budget in drain {b['budget']}, the firmware's {budget}")
check(b["events"] == calls and b["events_received"] == calls,
      f"budgeted's budget events in drain {b['events']} (received {b['events_received']}), "
      f"hook calls {calls}")
others = [n for n, t in tasks.items() if n != "budgeted" and (t["events"] or t["budget"] is not None)]
check(not others, f"no other task has a budget or budget events ({others})")
p = b["peak"]["inuse_bytes"]
check(p["lo_4se"] <= peak <= p["hi_4se"],
      f"budgeted's true peak {peak} B in drain's peak interval at 4 standard errors "
      f"{p['lo_4se']}-{p['hi_4se']} (95 %: {p['lo']}-{p['hi']}, estimate {p['est']})")
sys.exit(fail)
PY
grep -q '^budget: task budgeted passed its budget of' "$report" ||
  { echo "FAIL: --top does not say budgeted passed its budget"; exit 1; }
echo "ok: --top: $(grep -m1 '^budget: task budgeted' "$report")"
