#!/usr/bin/env bash
# Usage: tests/analysis/leaks_agree.sh LEAKS STEPS JSON TEXT...
# One verdict (docs/VERDICTS.md "Leaks by growth", docs/HEALTH.md): in drain's text (TEXT files:
# --top's heap section and --leaks) and its --json (JSON), the leaks by growth, the heap verdict's
# leaks and the steps, each by its site's innermost function (sorted, space-separated):
#   --leaks' leak lines, --top's heap "leak:" lines, JSON leaks[] and JSON heap.leaks[] must all be
#   LEAKS, and the heap verdict (text and JSON) "leak..." when LEAKS is not empty;
#   --leaks' step lines and JSON steps[] must be STEPS ('-': any, the same in both).
# JSON heap.leaks[] must hold the very stacks and tasks of JSON leaks[]. Prints one ok:/FAIL:
# line; exits 1 on a disagreement.
set -u
want=$1 want_steps=$2 json=$3; shift 3
names() { sed "s/$1//" | awk '{ print $1 }' | sort | tr '\n' ' ' | sed 's/ $//'; }
text=$(cat "$@")
leaks=$(awk '/^leaks by growth/ { f = 1; next } f && /^  \+/ { print } f && !/^  / { f = 0 }' <<<"$text" |
  names '.* since [0-9.]* s  ')
steps=$(grep '^  step ' <<<"$text" | names '.* at [0-9.]*\.\.[0-9.]* s  ')
heap=$(grep '^    leak: ' <<<"$text" | names '.* since [0-9.]* s  ')
verdict=$(sed -n 's/^  verdict: //p' <<<"$text")
read -r jleaks jheap jsteps jverdict same < <(python3 - "$json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["sessions"][0]
h = s.get("heap") or {}
first = lambda l: ",".join(sorted(x["stack"][0] for x in l)) or "-"
ident = lambda l: sorted((x["stack"], x["task"] or "") for x in l)
print(first(s["leaks"]), first(h.get("leaks", [])), first(s.get("steps", [])),
      (h.get("verdict") or "none").replace(" ", "_"),
      int(ident(h.get("leaks", [])) == ident(s["leaks"])))
PY
)
j() { [ "$1" = - ] && echo "" || tr ',' ' ' <<<"$1"; }
jleaks=$(j "$jleaks") jheap=$(j "$jheap") jsteps=$(j "$jsteps")
bad=""
[ "$leaks" = "$want" ] || bad="$bad --leaks [$leaks];"
[ "$heap" = "$want" ] || bad="$bad heap verdict's leaks [$heap];"
[ "$jleaks" = "$want" ] || bad="$bad JSON leaks [$jleaks];"
[ "$jheap" = "$want" ] || bad="$bad JSON heap.leaks [$jheap];"
[ "$same" = 1 ] || bad="$bad JSON heap.leaks not the stacks of leaks;"
if [ -n "$want" ]; then
  [[ $verdict == leak* ]] || bad="$bad heap verdict '$verdict';"
  [[ $jverdict == leak* ]] || bad="$bad JSON heap verdict '$jverdict';"
fi
[ "$steps" = "$jsteps" ] || bad="$bad --leaks steps [$steps], JSON steps [$jsteps];"
[ "$want_steps" = - ] || [ "$steps" = "$want_steps" ] || bad="$bad steps [$steps], want [$want_steps];"
if [ -z "$bad" ]; then
  echo "ok: leaks [$want] by --leaks, the heap verdict ('$verdict') and the JSON; steps [$steps]"
else
  echo "FAIL: want leaks [$want] steps [$want_steps]:$bad"
  exit 1
fi
