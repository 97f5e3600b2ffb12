#!/usr/bin/env python3
"""A fake GDB server on 127.0.0.1 for drain's gdb: input (tests/rtt/t_gdb.sh).

usage: fake_gdb.py STREAM PORTFILE MODE...

It plays a 32-bit little-endian target with a SEGGER RTT control block at 0x20000100 (up-channel 1
"msamp", a 256-byte up-buffer; a 16-byte down-buffer): while "running", its firmware appends the
bytes of STREAM to the up-buffer as room allows; once all of STREAM was read, the next interrupt
is answered by an exit (W00). It listens on a port per MODE (threads, one connection each) and writes "MODE PORT" lines to
PORTFILE once all listen. All-stop, as QEMU: it
answers only an interrupt (0x03) while running. MODE:
  good      acks, no no-ack mode, replies run-length encoded where they can be
  noack     offers QStartNoAckMode
  badsum    every reply carries a wrong checksum
  absurd    the control block says the up-buffer holds 0xfffffff0 bytes
  changed   the up-buffer's size changes after 600 bytes were read
  wroff     WrOff beyond the buffer's end after 600 bytes were read
  nonhex    memory reads after 600 bytes are answered with non-hex characters
  close     closes the connection in the middle of a packet after 1500 bytes were read
  silent    accepts the connection and never answers
  nostop    the target never stops on an interrupt
  noblock   the memory holds no control block at all (drain must give up)
  hugepkt   answers a memory read with a packet that never ends (over 64 KiB)
  down      at the end of the connection writes the down-buffer's WrOff and bytes to
            PORTFILE.down ("wroff=N data=...")
  block     a firmware whose up-writes block (MSAMP_RTT_BLOCK): each run makes 64 more bytes of
            STREAM, writes what the up-buffer takes, and reads its down-buffer only when all it
            made went out (a blocked write never returns to its command poll); at the end of the
            connection the bytes it read from the down-buffer go to PORTFILE.block in hex
"""
import socket
import sys

import os
import socket
import sys
import threading

stream_path, portfile, modes = sys.argv[1], sys.argv[2], sys.argv[3:]
stream = open(stream_path, "rb").read()

CB, NAME0, NAME1, UPBUF, DOWNBUF = 0x20000100, 0x20000000, 0x20000010, 0x20001000, 0x20002000
UPSIZE, DOWNSIZE = 256, 16
BASE = 0x20000000


def desc(index):  # 24 + index * 24
    return CB + 24 + index * 24


UP_WR, UP_RD = desc(1) + 12, desc(1) + 16


def rle(data):
    out, i = [], 0
    while i < len(data):
        c, n = data[i], 1
        while i + n < len(data) and data[i + n] == c and n < 97:
            n += 1
        # runs of 4 to 97: c then '*' and a count char (n - 1 + 29), avoiding '#' and '$'
        if n >= 4 and chr(n - 1 + 29) not in "#$+-":
            out.append(c + "*" + chr(n - 1 + 29))
            i += n
        else:
            out.append(c)
            i += 1
    return "".join(out)


def serve(mode, srv):
    mem = bytearray(0x3000)
    st = {"sent": 0, "read": 0}

    def w32(addr, v):
        mem[addr - BASE:addr - BASE + 4] = (v & 0xffffffff).to_bytes(4, "little")

    def r32(addr):
        return int.from_bytes(mem[addr - BASE:addr - BASE + 4], "little")

    if mode != "noblock":
        mem[NAME0 - BASE:NAME0 - BASE + 9] = b"Terminal\0"
        mem[NAME1 - BASE:NAME1 - BASE + 6] = b"msamp\0"
        mem[CB - BASE:CB - BASE + 16] = b"SEGGER RTT\0\0\0\0\0\0"
        w32(CB + 16, 2)
        w32(CB + 20, 2)
        w32(desc(0), NAME0)
        w32(desc(1), NAME1)
        w32(desc(1) + 4, UPBUF)
        w32(desc(1) + 8, 0xfffffff0 if mode == "absurd" else UPSIZE)
        w32(desc(2), NAME0)
        w32(desc(3), NAME1)
        w32(desc(3) + 4, DOWNBUF)
        w32(desc(3) + 8, DOWNSIZE)

    def firmware_runs():
        """The firmware appends what fits (block: what it made; then its commands, if not
        blocked)."""
        wr, rd = r32(UP_WR), r32(UP_RD)
        if wr >= UPSIZE or rd >= UPSIZE:
            return
        made = len(stream)
        if mode == "block":
            st["made"] = min(st.get("made", 0) + 64, len(stream))
            made = st["made"]
        while st["sent"] < made:
            nxt = (wr + 1) % UPSIZE
            if nxt == rd:
                break
            mem[UPBUF - BASE + wr] = stream[st["sent"]]
            st["sent"] += 1
            wr = nxt
        w32(UP_WR, wr)
        if mode == "block" and st["sent"] == made:  # not blocked: its command poll
            dwr, drd = r32(desc(3) + 12), r32(desc(3) + 16)
            while drd != dwr and dwr < DOWNSIZE:
                st.setdefault("cmd", bytearray()).append(mem[DOWNBUF - BASE + drd])
                drd = (drd + 1) % DOWNSIZE
            w32(desc(3) + 16, drd)

    srv.settimeout(60)
    try:
        conn, _ = srv.accept()
    except Exception:
        return
    conn.settimeout(60)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        talk(mode, conn, mem, st, w32, r32, firmware_runs)
    except Exception:
        pass
    conn.close()
    if mode == "block":
        with open(portfile + ".block.tmp", "w") as f:
            f.write(bytes(st.get("cmd", b"")).hex() + "\n")
        os.rename(portfile + ".block.tmp", portfile + ".block")
    if mode == "down":
        wr = r32(desc(3) + 12)
        data = bytes(mem[DOWNBUF - BASE:DOWNBUF - BASE + min(wr, DOWNSIZE)])
        with open(portfile + ".down.tmp", "w") as f:
            f.write("wroff=%d data=%s\n" % (wr, data.decode("latin-1")))
        os.rename(portfile + ".down.tmp", portfile + ".down")


def talk(mode, conn, mem, st, w32, r32, firmware_runs):
    if mode == "silent":
        conn.recv(4096)
        conn.recv(4096)
        return
    noack = False
    running = False
    buf = b""
    last = [b""]

    def send(payload):
        body = payload if mode != "good" else rle(payload)
        cs = sum(body.encode()) & 0xff
        if mode == "badsum":
            cs ^= 0x55
        last[0] = ("$%s#%02x" % (body, cs)).encode()
        conn.sendall(last[0])

    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return
        buf += chunk
        while buf:
            if buf[0:1] == b"-":  # a refused reply is sent again
                buf = buf[1:]
                conn.sendall(last[0])
                continue
            if buf[0:1] == b"+":
                buf = buf[1:]
                continue
            if buf[0:1] == b"\x03":
                buf = buf[1:]
                if mode == "nostop":
                    continue
                firmware_runs()
                running = False
                if st["sent"] == len(stream) and r32(UP_RD) == r32(UP_WR) and st["read"] >= len(stream):
                    send("W00")
                    return
                send("T02thread:01;")
                continue
            if buf[0:1] != b"$":
                buf = buf[1:]
                continue
            end = buf.find(b"#")
            if end < 0 or len(buf) < end + 3:
                break
            pkt = buf[1:end].decode()
            buf = buf[end + 3:]
            if not noack:
                conn.sendall(b"+")
            if running:
                continue  # all-stop: nothing but an interrupt is answered while running
            if pkt.startswith("qSupported"):
                send("PacketSize=1000;vContSupported+" + (";QStartNoAckMode+" if mode == "noack" else ""))
            elif pkt == "QStartNoAckMode":
                send("OK")
                noack = True
            elif pkt == "vCont?":
                send("vCont;c;C;s;S")
            elif pkt == "?":
                send("T05thread:01;")
            elif pkt in ("c", "vCont;c"):
                running = True
            elif pkt == "D":
                send("OK")
            elif pkt.startswith("m"):
                a, n = pkt[1:].split(",")
                a, n = int(a, 16), int(n, 16)
                if UPBUF <= a < UPBUF + UPSIZE:
                    st["read"] += n
                if mode == "hugepkt" and st["read"] > 0:
                    conn.sendall(b"$" + b"0" * 70000)
                    continue
                if mode == "close" and st["read"] > 1500:
                    conn.sendall(b"$0102")
                    return
                if mode == "nonhex" and st["read"] > 600:
                    send("zz" * n)
                    continue
                if mode == "changed" and st["read"] > 600:
                    w32(desc(1) + 8, 128)
                if mode == "wroff" and st["read"] > 600:
                    w32(UP_WR, 4096)
                if a < BASE or a + n > BASE + len(mem):
                    send("E14")
                else:
                    send(mem[a - BASE:a - BASE + n].hex())
            elif pkt.startswith("M"):
                head, data = pkt[1:].split(":")
                a, n = head.split(",")
                a, n = int(a, 16), int(n, 16)
                if a < BASE or a + n > BASE + len(mem) or len(data) != 2 * n:
                    send("E14")
                else:
                    mem[a - BASE:a - BASE + n] = bytes.fromhex(data)
                    send("OK")
            else:
                send("")


threads, lines = [], []
for m in modes:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    lines.append("%s %d\n" % (m, srv.getsockname()[1]))
    threads.append(threading.Thread(target=serve, args=(m, srv), daemon=True))
for t in threads:
    t.start()
with open(portfile + ".tmp", "w") as f:
    f.write("".join(lines))
os.rename(portfile + ".tmp", portfile)
for t in threads:
    t.join()
