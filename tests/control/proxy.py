#!/usr/bin/env python3
"""Usage: proxy.py QEMU_UNIX_SOCKET PORT_FILE CAPTURE
Between drain and a board's UART (QEMU -serial unix:SOCK,server=on,wait=on): listens on
127.0.0.1 (a port the kernel picks, written to PORT_FILE), accepts drain, then connects to QEMU
(which starts the guest then), sends the hostile bytes below down the UART first, and forwards
both ways, keeping a copy of the device's stream in CAPTURE. Ends when either side closes.
The hostile bytes make exactly 3 malformed frames for the device's parser (docs/CONTROL.md):
a frame too short, a frame too long for its buffer, a frame whose CRC is wrong."""
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
done = False
while not done:
    r, _, _ = select.select([drain, dev], [], [], 30)
    if not r:
        break
    for s in r:
        data = s.recv(65536)
        if not data:
            done = True
            break
        if s is dev:
            out.write(data)
            drain.sendall(data)
        else:
            dev.sendall(data)
out.close()
drain.close()
dev.close()
