#!/usr/bin/env python3
# tests/hosted/freeze_writer.py SECONDS CMD...: runs CMD and stops only its thread named msamp-writer (ptrace SEIZE +
# INTERRUPT: no group stop, the other threads run on) for SECONDS, as a writer that a loaded
# machine does not schedule (or that is blocked in write() on a busy disk). Exit status: CMD's.
# FREEZE_READY=FILE: FILE is created once the writer is stopped (a program can wait for it);
# FREEZE_UNTIL=FILE: the stop ends when FILE exists (SECONDS is then its ceiling), so the stop
# lasts as long as the program's own work, not the wall clock a loaded machine stretches.
import ctypes, os, subprocess, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH = 0x4206, 0x4207, 17
secs = float(sys.argv[1])
p = subprocess.Popen(sys.argv[2:])
tid = None
while tid is None and p.poll() is None:
    try:
        for t in os.listdir(f"/proc/{p.pid}/task"):
            if open(f"/proc/{p.pid}/task/{t}/comm").read().strip() == "msamp-writer":
                tid = int(t)
    except OSError:
        pass
WALL, WNOHANG = 0x40000000, 1
if tid and libc.ptrace(PTRACE_SEIZE, tid, None, None) == 0:
    libc.ptrace(PTRACE_INTERRUPT, tid, None, None)
    os.waitpid(tid, WALL)
    ready, until = os.environ.get("FREEZE_READY"), os.environ.get("FREEZE_UNTIL")
    if ready:
        open(ready, "w").close()
    print(f"freeze: writer {tid} stopped for {secs} s" + (f" at most, until {until} exists" if until else ""),
          flush=True)
    end, gone = time.monotonic() + secs, False
    while not gone and time.monotonic() < end and not (until and os.path.exists(until)):
        # The program may exit meanwhile (its exit flush waits MSAMP_EXIT_TIMEOUT_MS for the
        # writer): the stopped thread's end is then ours to collect, or the process stays a zombie.
        try:
            w, st = os.waitpid(tid, WALL | WNOHANG)
            gone = w == tid and (os.WIFEXITED(st) or os.WIFSIGNALED(st))
        except ChildProcessError:
            gone = True
        time.sleep(0.01)
    if not gone and libc.ptrace(PTRACE_DETACH, tid, None, None) != 0:
        try:
            os.waitpid(tid, WALL)
        except ChildProcessError:
            pass
sys.exit(p.wait())
