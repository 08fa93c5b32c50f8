#!/usr/bin/python3
"""A clock drawn with cairo into shared memory and shown by laminad as a surface layer,
written from docs/protocol.md alone (the standard library and python3-cairo).

    examples/shm-clock.py [--socket PATH] [--size N] [--frames N]

It makes a memfd sealed against shrinking, sends it as a pool (createPool, SCM_RIGHTS), carves
two buffers from it (double buffering), and for each frame draws the clock into a buffer the
daemon has released, attaches it with its damage (the whole dial), asks for a frame callback
and commits; it draws the next frame when the callback comes (at most 10 a second: the hands
sweep). It runs until stopped (Ctrl-C), or for --frames frames, printing one line per frame.
"""
import argparse
import fcntl
import math
import mmap
import os
import signal
import socket
import struct
import sys
import time

import cairo

HELLO, CREATE_LAYER, SET_PROPERTY, ADD_SUBLAYER, COMMIT = 0x01, 0x10, 0x12, 0x13, 0x20
ATTACH_BUFFER, FRAME_CALLBACK, CREATE_POOL, CREATE_BUFFER = 0x1B, 0x1C, 0x3E, 0x40
WELCOME, ERROR, COMMITTED = 0x81, 0x83, 0x84
POOL_CREATED, BUFFER_CREATED, BUFFER_RELEASED, FRAME_DONE = 0xA5, 0xA7, 0xA9, 0xAA
SURFACE_KIND, BGRA8 = 4, 0


def string(s):
    b = s.encode("utf-8")
    return struct.pack("<I", len(b)) + b


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.next_id = 1
        self.buffer = b""
        self.released = set()    # buffer ids the daemon released since we last looked
        self.frames_done = []    # (callback id, time, target time)

    def message(self, opcode, body=b""):
        rid = self.next_id
        self.next_id += 1
        return rid, struct.pack("<IHHI", 12 + len(body), opcode, 0, rid) + body

    def send(self, opcode, body=b"", fd=None):
        rid, data = self.message(opcode, body)
        if fd is None:
            self.sock.sendall(data)
        else:   # the descriptor travels with the message's first byte
            sent = self.sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))])
            self.sock.sendall(data[sent:])
        return rid

    def read(self):
        """One message: (opcode, request id, body). Events with request id 0 are noted."""
        while True:
            if len(self.buffer) >= 12:
                length, opcode, _flags, rid = struct.unpack_from("<IHHI", self.buffer)
                if len(self.buffer) >= length:
                    body, self.buffer = self.buffer[12:length], self.buffer[length:]
                    if opcode == BUFFER_RELEASED:
                        self.released.add(struct.unpack("<I", body)[0])
                    elif opcode == FRAME_DONE:
                        self.frames_done.append(struct.unpack("<Idd", body))
                    return opcode, rid, body
            chunk = self.sock.recv(65536)
            if not chunk:
                raise SystemExit("the daemon closed the connection")
            self.buffer += chunk

    def reply(self, rid, expect):
        while True:
            opcode, got, body = self.read()
            if got != rid:
                continue
            if opcode == ERROR:
                _op, code, _req, _fop, _layer = struct.unpack_from("<HHIHI", body)
                klen = struct.unpack_from("<I", body, 14)[0]
                mlen = struct.unpack_from("<I", body, 18 + klen)[0]
                raise SystemExit("error %d: %s" % (code, body[22 + klen:22 + klen + mlen].decode()))
            if opcode != expect:
                raise SystemExit("expected 0x%02x, got 0x%02x" % (expect, opcode))
            return body


def draw_clock(data, size, stride, now):
    surface = cairo.ImageSurface.create_for_data(data, cairo.FORMAT_ARGB32, size, size, stride)
    cr = cairo.Context(surface)
    cr.set_operator(cairo.OPERATOR_SOURCE)
    cr.set_source_rgba(0, 0, 0, 0)
    cr.paint()
    cr.set_operator(cairo.OPERATOR_OVER)
    c, r = size / 2, size / 2 - 2
    cr.arc(c, c, r, 0, 2 * math.pi)
    cr.set_source_rgb(0.95, 0.93, 0.85)
    cr.fill_preserve()
    cr.set_line_width(3)
    cr.set_source_rgb(0.2, 0.2, 0.25)
    cr.stroke()
    for k in range(12):   # hour ticks, from 0.85 r to 0.95 r
        a = k * math.pi / 6
        cr.move_to(c + 0.85 * r * math.sin(a), c - 0.85 * r * math.cos(a))
        cr.line_to(c + 0.95 * r * math.sin(a), c - 0.95 * r * math.cos(a))
    cr.set_line_width(2)
    cr.stroke()
    t = time.localtime(now)
    seconds = t.tm_sec + (now % 1)
    minutes = t.tm_min + seconds / 60
    hours = t.tm_hour % 12 + minutes / 60
    cr.set_line_cap(cairo.LINE_CAP_ROUND)
    for value, length, width in ((hours / 12, 0.5, 6), (minutes / 60, 0.7, 4), (seconds / 60, 0.75, 1.5)):
        a = value * 2 * math.pi   # hands no longer than 0.75 r
        cr.move_to(c, c)
        cr.line_to(c + length * r * math.sin(a), c - length * r * math.cos(a))
        cr.set_line_width(width)
        cr.stroke()
    cr.arc(c, c, 5, 0, 2 * math.pi)   # the hub
    cr.set_source_rgb(0.8, 0.1, 0.1)
    cr.fill()
    surface.flush()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--socket", default=os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp/lamina-%d" % os.getuid(),
                                                    "lamina-0"))
    p.add_argument("--size", type=int, default=160, help="the clock's size in pixels and points")
    p.add_argument("--frames", type=int, default=0, help="stop after this many frames (0: run until stopped)")
    args = p.parse_args()
    # Stopped by Ctrl-C or SIGTERM (a parent may have left them ignored or blocked).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    size, stride = args.size, args.size * 4

    client = Client(args.socket)
    client.reply(client.send(HELLO, struct.pack("<IHH", 0x414E4D4C, 1, 0) + string("shm-clock")), WELCOME)
    # The layer: a surface, its frame at the canvas' top left corner plus 20 points.
    rect = struct.pack("<B4d", 4, 20, 20, size, size)
    client.send(CREATE_LAYER, struct.pack("<IB", 1, SURFACE_KIND))
    client.send(SET_PROPERTY, struct.pack("<I", 1) + string("frame") + rect)
    client.send(ADD_SUBLAYER, struct.pack("<II", 0, 1))
    client.reply(client.send(COMMIT), COMMITTED)
    # Shared memory: two buffers in one memfd, sealed against shrinking as the daemon requires.
    fd = os.memfd_create("shm-clock", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, 2 * stride * size)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
    memory = mmap.mmap(fd, 2 * stride * size)
    client.reply(client.send(CREATE_POOL, struct.pack("<IQ", 1, 2 * stride * size), fd=fd), POOL_CREATED)
    os.close(fd)
    for k in (1, 2):
        body = struct.pack("<IIQIIIB", k, 1, (k - 1) * stride * size, size, size, stride, BGRA8)
        client.reply(client.send(CREATE_BUFFER, body), BUFFER_CREATED)
    free = [1, 2]
    frames = 0
    try:
        while args.frames == 0 or frames < args.frames:
            buffer_id = free.pop(0)
            offset = (buffer_id - 1) * stride * size
            draw_clock(memoryview(memory)[offset:offset + stride * size], size, stride, time.time())
            damage = struct.pack("<iiII", 0, 0, size, size)
            client.send(ATTACH_BUFFER, struct.pack("<III", 1, buffer_id, 1) + damage)
            client.send(FRAME_CALLBACK, struct.pack("<I", frames + 1))
            client.reply(client.send(COMMIT), COMMITTED)
            frames += 1
            # The frame callback says the frame is made; a released buffer may be drawn again.
            while not client.frames_done:
                client.read()
            _cid, t, target = client.frames_done.pop(0)
            while not client.released and not free:
                client.read()
            free += sorted(client.released)
            client.released.clear()
            print("frame %d at %.3f (next target %.3f)" % (frames, t, target), flush=True)
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
