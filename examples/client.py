#!/usr/bin/env python3
"""A Lamina client written from docs/protocol.md alone (standard library only).

    examples/client.py [SOCKET]

Draws a red 100x100 square and a blue one that slides right over half a second with an
explicit basic animation, waits for the animation's events, asks the presentation value, and
prints one JSON line with what it saw. With the manual clock (`laminad --clock manual`) it
advances the clock itself.
"""
import json
import os
import socket
import struct
import sys

HELLO, PING, CREATE, SET, ADD_SUBLAYER, ADD_ANIMATION, COMMIT = 0x01, 0x02, 0x10, 0x12, 0x13, 0x17, 0x20
ADVANCE_CLOCK, GET_PRESENTATION = 0x31, 0x34
WELCOME, ERROR, COMMITTED, CLOCK_ADVANCED, PRESENTATION = 0x81, 0x83, 0x84, 0x86, 0x89
ANIMATION_STARTED, ANIMATION_STOPPED = 0x8B, 0x8C


def string(s):
    b = s.encode("utf-8")
    return struct.pack("<I", len(b)) + b


def rect(x, y, w, h):
    return struct.pack("<B4d", 4, x, y, w, h)


def point(x, y):
    return struct.pack("<B2d", 2, x, y)


def color(r, g, b, a=1.0):
    return struct.pack("<B4d", 5, r, g, b, a)


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.next_id = 1
        self.buffer = b""
        self.events = []   # events with request id 0, in arrival order

    def send(self, opcode, body=b""):
        rid = self.next_id
        self.next_id += 1
        self.sock.sendall(struct.pack("<IHHI", 12 + len(body), opcode, 0, rid) + body)
        return rid

    def read_message(self):
        while True:
            if len(self.buffer) >= 12:
                length, opcode, _flags, rid = struct.unpack_from("<IHHI", self.buffer)
                if len(self.buffer) >= length:
                    body = self.buffer[12:length]
                    self.buffer = self.buffer[length:]
                    return opcode, rid, body
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the daemon closed the connection")
            self.buffer += chunk

    def reply(self, rid):
        """Reads until the reply to request `rid`; keeps events (request id 0) aside."""
        while True:
            opcode, got, body = self.read_message()
            if got == 0:
                self.events.append((opcode, body))
            elif got == rid:
                if opcode == ERROR:
                    op, code, failed, failed_op, layer = struct.unpack_from("<HHIHI", body)
                    n = struct.unpack_from("<I", body, 14)[0]
                    key = body[18:18 + n].decode()
                    raise RuntimeError("request %d failed: code %d (request %d, opcode 0x%x, layer %d, key %r)"
                                       % (rid, code, failed, failed_op, layer, key))
                return opcode, body

    def call(self, opcode, body=b""):
        return self.reply(self.send(opcode, body))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.environ.get("XDG_RUNTIME_DIR") or "/tmp/lamina-%d" % os.getuid(), "lamina-0")
    c = Client(path)
    opcode, body = c.call(HELLO, struct.pack("<IHH", 0x414E4D4C, 1, 0) + string("python-example"))
    assert opcode == WELCOME
    major, minor, client_id, width, height, scale, refresh, clock, time, reduce_motion = struct.unpack("<HHIIIddBdB", body)

    # Layer 1: a red square at the top left; layer 2: a blue square that will slide.
    for layer, col, pos in ((1, color(1, 0, 0), point(50, 50)), (2, color(0, 0, 1), point(50, 150))):
        c.send(CREATE, struct.pack("<IB", layer, 0))
        c.send(SET, struct.pack("<I", layer) + string("bounds") + rect(0, 0, 100, 100))
        c.send(SET, struct.pack("<I", layer) + string("position") + pos)
        c.send(SET, struct.pack("<I", layer) + string("backgroundColor") + col)
        c.send(ADD_SUBLAYER, struct.pack("<II", 0, layer))
    opcode, _ = c.call(COMMIT)
    assert opcode == COMMITTED

    slide = json.dumps({"type": "basic", "keyPath": "position.x", "from": 50, "to": 150, "duration": 0.5})
    c.send(ADD_ANIMATION, struct.pack("<I", 2) + string("slide") + string(slide))
    opcode, _ = c.call(COMMIT)
    assert opcode == COMMITTED

    def presentation_x():
        opcode, body = c.call(GET_PRESENTATION, struct.pack("<I", 2) + string("position.x"))
        assert opcode == PRESENTATION and body[0] == 1
        return struct.unpack_from("<d", body, 1)[0]

    halfway = None
    if clock == 1:
        c.call(ADVANCE_CLOCK, struct.pack("<d", 0.25))
        halfway = presentation_x()
        c.call(ADVANCE_CLOCK, struct.pack("<d", 0.5))
        presentation_x()   # a query after advancing: the frame's events come before its reply
    else:
        while not any(op == ANIMATION_STOPPED for op, _ in c.events):
            c.events.append(c.read_message()[::2])
    names = []
    for op, body in c.events:
        if op in (ANIMATION_STARTED, ANIMATION_STOPPED):
            layer, n = struct.unpack_from("<II", body)
            key = body[8:8 + n].decode()
            names.append(("started" if op == ANIMATION_STARTED else "stopped") + ":%d:%s" % (layer, key))
    print(json.dumps({"version": [major, minor], "display": [width, height, scale, refresh], "manualClock": clock == 1,
                      "halfway": halfway, "end": presentation_x(), "events": names}))


if __name__ == "__main__":
    main()
