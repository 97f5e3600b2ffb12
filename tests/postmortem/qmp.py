#!/usr/bin/env python3
"""Usage: qmp.py SOCKET CMD [ARGS-JSON] [CMD [ARGS-JSON]]...
Sends QMP commands to QEMU's monitor on a unix socket (-qmp unix:SOCKET,server,nowait), one after
the other, each answered before the next; prints each answer's "return" as one JSON line. Exits 1
on an error answer or when QEMU is not there (waits up to 10 s for the socket).
Pseudo-commands, run here between two QMP commands:
  wait-bytes {"file": PATH, "bytes": N, "timeout": S}  until PATH holds at least N bytes (exit 3
                                                       when it does not within S seconds)
  wait-text {"file": PATH, "text": T, "timeout": S}    until PATH holds the text T (exit 3 when it
                                                       does not within S seconds)
  size {"file": PATH}                                  prints PATH's size now
  wait-more {"file": PATH, "bytes": N, "timeout": S}   until PATH holds N bytes more than at the
                                                       last `size`, or QEMU ends (the commands
                                                       after it are then skipped)"""
import select
import os
import json
import socket
import sys
import time


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    path, args = sys.argv[1], sys.argv[2:]
    cmds = []
    while args:
        cmd, args = args[0], args[1:]
        arg = {}
        if args and args[0].startswith("{"):
            arg, args = json.loads(args[0]), args[1:]
        cmds.append((cmd, arg))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(200):
        try:
            s.connect(path)
            break
        except OSError:
            time.sleep(0.05)
    else:
        print(f"qmp.py: cannot connect to {path}", file=sys.stderr)
        return 1
    f = s.makefile("rw")

    def answer():
        while True:
            line = f.readline()
            if not line:
                raise EOFError("QEMU closed the monitor")
            msg = json.loads(line)
            if "return" in msg or "error" in msg:
                return msg

    json.loads(f.readline())  # the greeting
    last = 0
    for cmd, arg in [("qmp_capabilities", {})] + cmds:
        if cmd in ("wait-bytes", "wait-more"):
            end = time.monotonic() + float(arg.get("timeout", 30))
            want = int(arg["bytes"]) + (last if cmd == "wait-more" else 0)
            while True:
                try:
                    n = os.path.getsize(arg["file"])
                except OSError:
                    n = 0
                if n >= want:
                    break
                if cmd == "wait-more" and select.select([s], [], [], 0)[0] and not s.recv(1, socket.MSG_PEEK):
                    return 0  # QEMU ended: nothing more will come
                if time.monotonic() > end:
                    print(f"qmp.py: {arg['file']}: {n} bytes, not {arg['bytes']}", file=sys.stderr)
                    return 3
                time.sleep(0.0005)
            continue
        if cmd == "wait-text":
            end = time.monotonic() + float(arg.get("timeout", 30))
            want = arg["text"].encode()
            while True:
                try:
                    with open(arg["file"], "rb") as t:
                        if want in t.read():
                            break
                except OSError:
                    pass
                if time.monotonic() > end:
                    print(f"qmp.py: {arg['file']}: no {arg['text']!r}", file=sys.stderr)
                    return 3
                time.sleep(0.01)
            continue
        if cmd == "size":
            last = os.path.getsize(arg["file"])
            print(last)
            continue
        f.write(json.dumps({"execute": cmd, "arguments": arg}) + "\n")
        f.flush()
        msg = answer()
        if "error" in msg:
            print(f"qmp.py: {cmd}: {msg['error'].get('desc')}", file=sys.stderr)
            return 1
        if cmd != "qmp_capabilities":
            print(json.dumps(msg["return"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
