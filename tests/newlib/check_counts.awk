# What msamp must record for tests/newlib/newlib_fw.c's calls, against what it recorded.
#   awk -v wrap="malloc _malloc_r ..." [-v show=1] -f check_counts.awk SYMS CONSOLE LISTING
# SYMS: `nm -S --defined-only` of the firmware; CONSOLE: its nl-op and nl-stats lines; LISTING:
# msamp-dump's listing of its stream. Every allocation is sampled (interval 1).
#
# Expected, from each call the firmware made (nl-op ENTRY SITE size= old= ret=), the wrap set and
# newlib's calls (malloc, free, calloc, realloc jump to their _r functions; _calloc_r calls
# _malloc_r; _realloc_r calls _malloc_r and _free_r), with msamp's live table kept by address:
#   an allocation seen by a wrapper (the entry's own, or an inner one) gives one ALLOC of its size,
#     after a FREE of a block still tracked at the same address (its free was not seen);
#   a realloc seen by realloc's or _realloc_r's wrapper gives one REALLOC of the tracked old block
#     (a FREE when the new size is 0; an ALLOC when the old block is not tracked);
#   a free seen by free's or _free_r's wrapper gives one FREE of a tracked block.
# Each ALLOC and REALLOC must come from the right place: its stack's first frame in the calling
# site and the next one in main; except an allocation seen only by _malloc_r's wrapper inside
# newlib's _calloc_r, whose first frame is _calloc_r (newlib has no unwind tables: the walk ends
# there). Observed: the listing's records in order, blocks named by the record that made them.
# Then msamp's counters (nl-stats) must equal the records: samples, frees, and no loss. show=1
# prints both lists side by side even when they agree.
function hex(s,    v, i, c) {
  s = tolower(s); sub(/^0x/, "", s); v = 0
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
  return v
}
function field(k,    i) {
  for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2)
  return ""
}
# The function holding the call before return address pc (Thumb: the call ends at pc).
function fn_at(pc,    i, a) {
  a = pc - 2
  for (i = 1; i <= nsym; i++) if (a >= sym_lo[i] && a < sym_hi[i]) return sym_name[i]
  return sprintf("?0x%x", pc)
}
function expect(s) { exp_ev[++nexp] = s }
function exp_alloc(addr, size, leaf) {
  if (addr in tracked) { expect("free #" tracked[addr]); nfree++ }
  ++nev; tracked[addr] = nev; nsamp++
  expect("alloc #" nev " size=" size " at=" leaf)
}
function exp_free(addr) {
  if (!(addr in tracked)) return
  expect("free #" tracked[addr]); delete tracked[addr]; nfree++
}
function exp_realloc(old, addr, size, site) {
  if (old == 0 || !(old in tracked)) { if (addr != 0 && size > 0) exp_alloc(addr, size, site); return }
  if (addr == 0 || size == 0) { exp_free(old); return }
  if (addr != old && (addr in tracked)) { expect("free #" tracked[addr]); nfree++ }
  ++nev; expect("realloc #" nev " of #" tracked[old] " size=" size " at=" site)
  delete tracked[old]; tracked[addr] = nev; nsamp++; nfree++
}
BEGIN {
  n = split(wrap, w, " "); for (i = 1; i <= n; i++) W[w[i]] = 1
  file = 0
}
FNR == 1 { file++ }
# SYMS: functions (code symbols) with a size.
file == 1 && NF == 4 && $3 ~ /^[tTW]$/ {
  nsym++; sym_lo[nsym] = hex($1); sym_hi[nsym] = hex($1) + hex($2); name = $4; sub(/\..*/, "", name)
  sym_name[nsym] = name
  next
}
file == 2 && $1 == "nl-op" {
  entry = $2; site = $3; size = field("size") + 0; old = hex(field("old")); ret = hex(field("ret"))
  calls++
  at = site "<main"
  if (entry == "malloc") {
    if ((W["malloc"] || W["_malloc_r"]) && ret != 0 && size > 0) exp_alloc(ret, size, at)
  } else if (entry == "_malloc_r") {
    if (W["_malloc_r"] && ret != 0 && size > 0) exp_alloc(ret, size, at)
  } else if (entry == "calloc" || entry == "_calloc_r") {
    if (W[entry] || W["_calloc_r"]) { if (ret != 0 && size > 0) exp_alloc(ret, size, at) }
    else if (W["_malloc_r"] && ret != 0 && size > 0) exp_alloc(ret, size, "_calloc_r")
  } else if (entry == "realloc" || entry == "_realloc_r") {
    if (W[entry] || W["_realloc_r"]) exp_realloc(old, ret, size, at)
    else if (old == 0 && W["_malloc_r"] && ret != 0 && size > 0) exp_alloc(ret, size, at)
    else if (old != 0 && (W["_malloc_r"] || W["_free_r"])) bad_call = bad_call " " entry
  } else if (entry == "free") {
    if (W["free"] || W["_free_r"]) exp_free(old)
  } else if (entry == "_free_r") {
    if (W["_free_r"]) exp_free(old)
  } else {
    unknown = unknown " " entry
  }
  next
}
file == 2 && $1 == "nl-stats" {
  stats = 1
  st_samples = field("samples") + 0; st_frees = field("frees") + 0
  st_lost = field("reentrant") + field("no_frame") + field("truncated") + field("ring_records") + \
    field("live_full") + field("stack_full") + field("failed")
  st_line = $0
  next
}
file == 3 && $1 == "STACK" {
  id = field("id"); split(field("frames"), fr, ",")
  leaf = fn_at(hex(fr[1]))
  stk[id] = (leaf ~ /^site_/) ? leaf "<" (fr[2] != "" ? fn_at(hex(fr[2])) : "(end)") : leaf
  next
}
file == 3 && ($1 == "ALLOC" || $1 == "REALLOC") {
  id = field("stack"); where = (id in stk) ? stk[id] : "stack" id "?"
  ++nobs
  if ($1 == "ALLOC") {
    s1 = field("slot1") + 0
    obs_ev[++nobsev] = "alloc #" nobs " size=" field("size") " at=" where
  } else {
    o = field("old_slot") + 0; s1 = field("new_slot1") + 0
    obs_ev[++nobsev] = "realloc #" nobs " of #" ((o in slot) ? slot[o] : "slot" o "?") " size=" field("size") " at=" where
    delete slot[o]
  }
  if (s1 == 0) obs_ev[nobsev] = obs_ev[nobsev] " (untracked)"
  else slot[s1 - 1] = nobs
  next
}
file == 3 && $1 == "FREE" {
  s = field("slot") + 0
  obs_ev[++nobsev] = "free #" ((s in slot) ? slot[s] : "slot" s "?")
  delete slot[s]
  next
}
file == 3 && $1 == "FAIL" { obs_ev[++nobsev] = "fail " $0; next }
file == 3 && $1 == "DROPS" { drops = $0; next }
END {
  fail = 0
  if (calls == 0) { print "FAIL: no nl-op line from the firmware"; exit 1 }
  if (!stats) { print "FAIL: no nl-stats line from the firmware"; exit 1 }
  if (unknown != "") { print "FAIL: unknown calls:" unknown; fail = 1 }
  if (bad_call != "") { print "FAIL: the firmware made calls the check cannot predict:" bad_call; fail = 1 }
  m = nexp > nobsev ? nexp : nobsev
  diff = 0
  for (i = 1; i <= m; i++) if (exp_ev[i] != obs_ev[i]) diff++
  if (diff || show) {
    if (diff) fail = 1
    if (diff) printf "FAIL: %d of %d records differ from what the calls should give (expected | recorded):\n", diff, m
    for (i = 1; i <= m; i++)
      printf "  %s %-44s | %s\n", (exp_ev[i] == obs_ev[i] ? " " : "*"), exp_ev[i], obs_ev[i]
  }
  if (st_samples != nsamp || st_frees != nfree) {
    printf "FAIL: device counters samples=%d frees=%d, the calls give samples=%d frees=%d\n", st_samples, st_frees, nsamp, nfree
    fail = 1
  }
  if (st_lost != 0) { print "FAIL: the device lost or refused something: " st_line; fail = 1 }
  if (drops ~ /=[1-9]/) { print "FAIL: the stream reports losses: " drops; fail = 1 }
  if (!fail)
    printf "ok: %d calls, %d records as expected (%d samples, %d frees; device counters equal)\n", calls, m, nsamp, nfree
  exit fail
}
