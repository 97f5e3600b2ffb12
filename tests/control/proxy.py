#!/usr/bin/env python3
"""Usage: proxy.py QEMU_UNIX_SOCKET PORT_FILE CAPTURE [--pace BPS] [--hold N:SECS] [--dup CMD:SECS]
                  [--log FILE]
Between drain and a board's UART (QEMU -serial unix:SOCK,server=on,wait=on): listens on
127.0.0.1 (a port the kernel picks, written to PORT_FILE), accepts drain, then connects to QEMU
(which starts the guest then), sends the hostile bytes below down the UART first, and forwards
both ways, keeping a copy of the device's stream in CAPTURE. Ends when either side closes (the
device's side: once what it sent is forwarded).
The hostile bytes make exactly 3 malformed frames for the device's parser (docs/CONTROL.md):
a frame too short, a frame too long for its buffer, a frame whose CRC is wrong.
A slow link, and the resends it forces (tests/control/control.sh, case paced-BOARD):
  --pace BPS     the device's bytes to drain at BPS bytes a second (11520: a 115200-baud UART):
                 read as they come and queued, so its stream runs seconds ahead of its acks
  --hold N:SECS  the first frame of the N-th command (counted by series and seq) is held SECS
                 while the frames after it pass: the device sees later commands first
  --dup CMD:SECS the first frame of command code CMD is sent again SECS after it passed: a
                 resend that comes after later commands were carried out
  --log FILE     at the end: "frames=N held=N dup=N max_queue_s=X" (frames: command frames from
                 the host, resends included)"""
import os
import select
import socket
import sys
import time
import zlib

sock_path, port_file, capture = sys.argv[1:4]


def cobs(body):
    out, block = bytearray(), bytearray()
    for b in body:
        if b == 0:
            out += bytes([len(block) + 1]) + block
            block = bytearray()
        else:
            block.append(b)
    return bytes(out + bytes([len(block) + 1]) + block)


# A SNAPSHOT command (version 1, seq 0x4242) whose CRC is off by one bit.
body = bytes([1, 0x42, 0x42, 5])
bad_crc = body + ((zlib.crc32(body) ^ 1).to_bytes(4, "little"))
GARBAGE = (b"\x05junk\x00"                        # COBS-valid, 4 bytes: too short
           + bytes(range(1, 121)) + b"\x00"       # 120 bytes without a 0x00: too long
           + cobs(bad_crc) + b"\x00")             # wrong CRC


def uncobs(b):
    out, i = bytearray(), 0
    while i < len(b):
        code = b[i]
        if code == 0 or i + code > len(b) + 1:
            return None
        out += b[i + 1:i + code]
        i += code
        if code != 0xFF and i < len(b):
            out.append(0)
    return bytes(out)


def command_of(frame):
    """(identity, cmd) of a command frame's bytes (without its 0x00), or None."""
    body = uncobs(frame)
    if not body or len(body) < 8:
        return None
    if body[0] == 2 and len(body) >= 10:
        return body[1:5], body[5]
    if body[0] == 1:
        return body[1:3], body[3]
    return None


opts = {}
args = sys.argv[4:]
while args:
    opts[args[0]] = args[1]
    args = args[2:]
pace = float(opts.get("--pace", 0))
hold_n, hold_s = (int(opts["--hold"].split(":")[0]), float(opts["--hold"].split(":")[1])) \
    if "--hold" in opts else (0, 0.0)
dup_cmd, dup_s = (int(opts["--dup"].split(":")[0]), float(opts["--dup"].split(":")[1])) \
    if "--dup" in opts else (-1, 0.0)

lst = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
lst.bind(("127.0.0.1", 0))
lst.listen(1)
with open(port_file + ".tmp", "w") as f:
    f.write("%d\n" % lst.getsockname()[1])
os.rename(port_file + ".tmp", port_file)
lst.settimeout(20)
drain, _ = lst.accept()
lst.close()
dev = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
deadline = time.time() + 10
while True:
    try:
        dev.connect(sock_path)
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("proxy: cannot connect to " + sock_path)
        time.sleep(0.02)
dev.sendall(GARBAGE)
out = open(capture, "wb")
up = bytearray()         # the device's bytes not yet forwarded to drain
down = bytearray()       # drain's bytes not yet forwarded to the device
pending = bytearray()    # drain's bytes since its last 0x00 (a frame being read)
later = []               # (when, bytes): frames held or duplicated
seen, dup_done = set(), False
frames = held = dups = 0
max_queue_s = 0.0
dev_open = True
budget_t = time.time()   # the pace: bytes may go while the budget's clock is behind now


def from_drain(data):
    """Forwards drain's bytes frame by frame, holding or duplicating the ones the options say."""
    global frames, held, dups, dup_done
    for b in data:
        pending.append(b)
        if b != 0:
            continue
        frame = bytes(pending)
        pending.clear()
        c = command_of(frame[:-1].lstrip(b"\0")) if len(frame) > 1 else None
        if c is None:
            down.extend(frame)
            continue
        frames += 1
        ident, cmd = c
        new = ident not in seen
        seen.add(ident)
        if new and len(seen) == hold_n:
            held += 1
            later.append((time.time() + hold_s, b"\0" + frame))
            continue
        down.extend(frame)
        if new and cmd == dup_cmd and not dup_done:
            dup_done = True
            dups += 1
            later.append((time.time() + dup_s, b"\0" + frame))


while True:
    now = time.time()
    for item in [x for x in later if x[0] <= now]:
        later.remove(item)
        down.extend(item[1])
    if down:
        if dev_open:  # (after the device closed, what drain still sends goes nowhere)
            try:
                dev.sendall(bytes(down))
            except OSError:
                dev_open = False
        down.clear()
    if up:
        if pace:
            n = min(len(up), int((now - budget_t) * pace))
            max_queue_s = max(max_queue_s, len(up) / pace)
        else:
            n = len(up)
        if n > 0:
            try:
                drain.sendall(bytes(up[:n]))
            except OSError:  # drain is gone
                break
            del up[:n]
            budget_t += n / pace if pace else 0
    if not up:
        budget_t = max(budget_t, now - 0.01)  # an idle link saves no budget
        if not dev_open:
            break
    socks = [drain] + ([dev] if dev_open else [])
    r, _, _ = select.select(socks, [], [], 0.005 if (up or later) else 30)
    if not r and not up and not later:
        break
    done = False
    for s in r:
        try:
            data = s.recv(65536)
        except OSError:  # reset: closed
            data = b""
        if not data:
            if s is dev:
                dev_open = False
            else:
                done = True
            continue
        if s is dev:
            out.write(data)
            up.extend(data)
        else:
            from_drain(data)
    if done:
        break
out.close()
drain.close()
dev.close()
if "--log" in opts:
    with open(opts["--log"], "w") as f:
        f.write("frames=%d held=%d dup=%d max_queue_s=%.2f\n" % (frames, held, dups, max_queue_s))
