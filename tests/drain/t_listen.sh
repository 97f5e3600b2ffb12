#!/usr/bin/env bash
# drain tcp-listen:[HOST:]PORT, end to end on 127.0.0.1 only: a hosted program whose
# MSAMP_OUTPUT=tcp:127.0.0.1:PORT connects to drain (the profile's sites and estimates checked
# against the program's truth); the "listening on" line (port 0: the port the kernel chose; bound
# to 127.0.0.1, never wider); a second client refused while the first is read; --follow accepting
# the next connection (one session per program run); SIGINT and SIGTERM while waiting in accept
# (exit 4, no profile, within 1 s) and mid-connection (exit 0, every sample); a connection sending
# no frame (exit 4); a port in use (exit 1). drain under ASan+UBSan.
. "$(dirname "$0")/lib.sh"
D=$DRAIN
app=$T/hosted_app
R=4096
$GEN --allocs 20000 --snap-every 5000 "$W/s.bin" "$W/s.truth"
$D -q -o "$W/ref.pb.gz" "$W/s.bin" || fail "reference run"
want=$(counter samples "$W/ref.pb.gz")
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

# start NAME ARGS...: drain ARGS in the background (stdout in NAME.out, stderr in NAME.err); waits
# for its "listening on" line and sets dpid and port.
start() {
  local name=$1
  shift
  port=""
  $D "$@" >"$W/$name.out" 2>"$W/$name.err" &
  dpid=$!
  pids="$pids $dpid"
  for _ in $(seq 100); do
    port=$(sed -n 's/^drain: listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$W/$name.err")
    [ -n "$port" ] && return 0
    kill -0 $dpid 2>/dev/null || break
    sleep 0.05
  done
  fail "$name: no 'listening on 127.0.0.1:PORT' line"; sed 's/^/    /' "$W/$name.err" >&2
  return 1
}
# finish_drain NAME WANT_RC [LIMIT_S [WHAT]]: waits for drain (killed after LIMIT_S, default 60)
# and checks its exit status and stderr (NAME.err); WHAT names the case (default NAME).
finish_drain() {
  local name=$1 want=$2 limit=${3:-60} what=${4:-$1} rc
  for _ in $(seq $((limit * 10))); do kill -0 $dpid 2>/dev/null || break; sleep 0.1; done
  kill -0 $dpid 2>/dev/null && { fail "$what: drain still running after ${limit} s"; kill -KILL $dpid; }
  wait $dpid
  rc=$?
  if [ $rc -ne "$want" ] || grep -q 'Sanitizer\|runtime error' "$W/$name.err"; then
    fail "$what: exit $rc, want $want"; sed 's/^/    /' "$W/$name.err" >&2
  else
    ok "$what: exit $rc"
  fi
}
bound_to() { ss -ltnH "sport = :$1" 2>/dev/null | awk '{ print $4 }'; }

# --- (a) a hosted program connects to drain ----------------------------------------------------
start hosted -o "$W/h.pb.gz" --elf "$app" --top 5 tcp-listen:127.0.0.1:0 || finish
[ "$port" -gt 0 ] && ok "port 0: drain says the port the kernel chose ($port)" || fail "port $port"
b=$(bound_to "$port")
[ "$b" = "127.0.0.1:$port" ] && ok "bound to $b only" || fail "bound to '$b', want 127.0.0.1:$port"
MSAMP_OUTPUT=tcp:127.0.0.1:$port MSAMP_INTERVAL=$R MSAMP_SEED=12345 "$app" "$W/h.truth" >"$W/h.app" 2>&1 ||
  { fail "hosted_app exit $?"; cat "$W/h.app" >&2; }
finish_drain hosted 0
grep -q "connection 1 from 127.0.0.1:" "$W/hosted.err" && ok "the connection is announced" ||
  fail "no connection line"
pp -raw "$W/h.pb.gz" >"$W/h.raw" 2>/dev/null && ok "pprof -raw reads the profile" || fail "pprof -raw"
pp -top -sample_index=inuse_space "$W/h.pb.gz" >"$W/h.top" 2>/dev/null
grep -q 'load_table' "$W/h.top" && grep -q 'inline_node' "$W/h.top" && grep -q 'grow_buffers' "$W/h.top" &&
  ! grep -q 'churn_buffers' "$W/h.top" && ok "in use: load_table, inline_node, grow_buffers; not churn_buffers" ||
  { fail "in-use sites"; cat "$W/h.top" >&2; }
l_inl=$(grep -n 'void \*p = malloc(n);' "$here/hosted_app.c" | cut -d: -f1)
grep -q "inline_node [^ ]*tests/drain/hosted_app.c:$l_inl " "$W/h.raw" && ok "symbolized to hosted_app.c:$l_inl" ||
  fail "inline_node not at hosted_app.c:$l_inl"
"$here/check_truth.sh" "$W/h.raw" "$W/h.truth" $R 1 >"$W/h.check" && ok "$(tail -n1 "$W/h.check")" ||
  { fail "estimates vs truth"; cat "$W/h.check" >&2; }

# --- docs/DRAIN.md's example (its block annotated doc-test: drain-listen) ----------------------
# Its lines with this test's drain, hosted_app (and a truth file) for ./app, a free port for 5555
# and the output in $W; the first one's comment is the line drain prints.
dport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$here/../docs/extract.sh" "$here/../../docs/DRAIN.md" drain-listen |
  sed -e "s|host_tools/drain|$D|" -e "s|--elf \./app|--elf $app|" -e "s|\./app\$|$app $W/doc.truth|" \
    -e "s|5555|$dport|g" \
    -e "s|app\.pb\.gz|$W/doc.pb.gz|" >"$W/doc.sh"
if [ "$(wc -l <"$W/doc.sh")" -ne 2 ] || ! grep -q ' &  *# drain: listening on ' "$W/doc.sh"; then
  fail "docs/DRAIN.md drain-listen block: not two lines, the first backgrounded with its comment"
  cat "$W/doc.sh" >&2
else
  l1=$(sed -n '1s/ *&  *#.*$//p' "$W/doc.sh")
  said=$(sed -n '1s/^.*&  *# *//p' "$W/doc.sh")
  bash -c "exec $l1" 2>"$W/doc.err" &
  dpid=$!
  pids="$pids $dpid"
  for _ in $(seq 100); do grep -q 'listening' "$W/doc.err" && break; sleep 0.05; done
  grep -qxF "$said" "$W/doc.err" && ok "docs example: drain printed '$said'" ||
    { fail "docs example: drain did not print '$said'"; cat "$W/doc.err" >&2; }
  MSAMP_INTERVAL=$R bash -c "$(sed -n 2p "$W/doc.sh")" >"$W/doc.app" 2>&1 || { fail "docs example: line 2"; cat "$W/doc.app" >&2; }
  finish_drain doc 0 60 "docs example"
  pp -raw "$W/doc.pb.gz" >"$W/doc.raw" 2>/dev/null && grep -q 'load_table' "$W/doc.raw" &&
    ok "docs example: profile symbolized" || fail "docs example: profile"
fi

# --- tcp-listen:PORT (no host): 127.0.0.1; a port in use; a second client refused -------------
start fixed -q -o "$W/fixed.pb.gz" "tcp-listen:$port" || finish
b=$(bound_to "$port")
[ "$b" = "127.0.0.1:$port" ] && ok "tcp-listen:$port listens on $b" || fail "tcp-listen:$port bound to '$b'"
$D -o "$W/busy.pb.gz" "tcp-listen:127.0.0.1:$port" 2>"$W/busy.err"
rc=$?
[ $rc -eq 1 ] && grep -q "cannot listen on 127.0.0.1:$port: Address already in use" "$W/busy.err" &&
  ok "port in use: exit 1: $(cat "$W/busy.err")" || { fail "port in use: exit $rc"; cat "$W/busy.err" >&2; }
size=$(stat -c %s "$W/s.bin")
exec 3<>"/dev/tcp/127.0.0.1/$port"
head -c $((size / 2)) "$W/s.bin" >&3
sleep 0.3
if (exec 4<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  fail "a second client was accepted while the first is read"
else
  ok "a second client is refused while the first is read"
fi
tail -c +$((size / 2 + 1)) "$W/s.bin" >&3
exec 3>&-
finish_drain fixed 0 20
got=$(counter samples "$W/fixed.pb.gz")
[ "$got" = "$want" ] && ok "fixed port: all $want samples" || fail "fixed port: $got samples, want $want"

# --- --follow: the next connection after each disconnect, a session each ----------------------
start follow --follow -o "$W/f.pb.gz" --elf "$app" tcp-listen:0 || finish
for seed in 1 2; do
  MSAMP_OUTPUT=tcp:127.0.0.1:$port MSAMP_INTERVAL=$R MSAMP_SEED=$seed "$app" "$W/f$seed.truth" >/dev/null 2>&1 ||
    fail "hosted_app run $seed"
  for _ in $(seq 50); do grep -q "connection $seed closed" "$W/follow.err" && break; sleep 0.1; done
done
kill -0 $dpid 2>/dev/null && ok "--follow: still listening after two connections" || fail "--follow: drain ended"
grep -q "waiting for the next one on 127.0.0.1:$port" "$W/follow.err" && ok "--follow: says it waits for the next one" ||
  fail "--follow: no waiting line"
kill -INT $dpid
finish_drain follow 0 5
for f in f.pb.gz f.s2.pb.gz; do
  pp -raw "$W/$f" >"$W/$f.raw" 2>/dev/null || { fail "--follow: $f unreadable"; continue; }
  grep -q 'load_table' "$W/$f.raw" && ok "--follow: $f holds a program run" || fail "--follow: $f lacks load_table"
done
"$here/check_truth.sh" "$W/f.s2.pb.gz.raw" "$W/f2.truth" $R 1 >"$W/f2.check" && ok "--follow, run 2: $(tail -n1 "$W/f2.check")" ||
  { fail "--follow, run 2: estimates vs truth"; cat "$W/f2.check" >&2; }

# --- signals while waiting in accept: exit 4 (nothing received), no profile, at once -----------
for sig in INT TERM; do
  start "wait$sig" -o "$W/wait$sig.pb.gz" tcp-listen:0 || continue
  sleep 0.3
  t0=${EPOCHREALTIME//[.,]/}000 # no fork: a date forked under load adds its own delay
  kill -$sig $dpid
  finish_drain "wait$sig" 4 5 "SIG$sig while waiting for a connection"
  t1=${EPOCHREALTIME//[.,]/}000
  ms=$(((t1 - t0) / 1000000))
  [ $ms -le 1000 ] && ok "SIG$sig in accept: exited in $ms ms" || fail "SIG$sig in accept: $ms ms"
  grep -q 'no data received from tcp-listen:0 (no connection came)' "$W/wait$sig.err" &&
    ok "SIG$sig in accept: says no connection came" || fail "SIG$sig in accept: message"
  [ ! -e "$W/wait$sig.pb.gz" ] && ok "SIG$sig in accept: no profile" || fail "SIG$sig in accept: profile written"
done

# --- SIGINT mid-connection: what arrived is written -------------------------------------------
start midconn -q -o "$W/mid.pb.gz" tcp-listen:0 || finish
exec 3<>"/dev/tcp/127.0.0.1/$port"
cat "$W/s.bin" >&3
sleep 0.8
kill -INT $dpid
finish_drain midconn 0 5 "SIGINT mid-connection"
exec 3>&-
got=$(counter samples "$W/mid.pb.gz")
[ "$got" = "$want" ] && ok "SIGINT mid-connection: all $want samples" || fail "SIGINT mid-connection: $got samples"

# --- a connection without any msamp frame; one without any byte ------------------------------
start text -q -o "$W/text.pb.gz" tcp-listen:0 || finish
for _ in $(seq 100); do echo "U-Boot 2024.01 console output at the wrong place"; done >"/dev/tcp/127.0.0.1/$port"
finish_drain text 4 10 "a connection sending text"
grep -q 'no valid msamp frame in the 4900 bytes read from tcp-listen:0 (mostly text' "$W/text.err" &&
  ok "text: $(grep -m1 'no valid' "$W/text.err" | cut -c1-120)" || { fail "text: message"; cat "$W/text.err" >&2; }
[ ! -e "$W/text.pb.gz" ] && ok "text: no profile" || fail "text: profile written"
start silent -q -o "$W/silent.pb.gz" tcp-listen:0 || finish
: >"/dev/tcp/127.0.0.1/$port"
finish_drain silent 4 10 "a connection closed at once"
grep -q 'no data received from tcp-listen:0;' "$W/silent.err" && ok "silent: says no data" ||
  { fail "silent: message"; cat "$W/silent.err" >&2; }
finish
