"""Test support: a real laminad on a temporary socket, started once for the whole run.

The binary is ``$LAMINAD`` (default: ``.build/debug/laminad`` under the repository root). The
daemon runs headless with the manual clock, so that the tests move time themselves; each test
connects its own client (its layers are private to it) and closes it.
"""
import atexit
import json
import math
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
# The package under test: the installed one when there is one (scripts/test installs it into
# a virtual environment), else the source tree.
try:
    import lamina  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.dirname(HERE))
    import lamina  # noqa: F401

CANVAS = (400, 300)


def laminad_path():
    return os.environ.get("LAMINAD") or os.path.join(REPO, ".build", "debug", "laminad")


class Daemon:
    """A laminad process on a socket in a private temporary directory."""

    def __init__(self, clock="manual", socket_name="laminad.sock", config=None, socket_path=None):
        self.dir = tempfile.mkdtemp(prefix="lamina-py-")
        # ``socket_path``: a path of the caller's (one a killed daemon left, say).
        self.socket = socket_path or os.path.join(self.dir, socket_name)
        extra = []
        if config is not None:
            path = os.path.join(self.dir, "laminad.json")
            with open(path, "w") as f:
                json.dump(config, f)
            extra = ["--config", path]
        binary = laminad_path()
        if not os.path.exists(binary):
            if os.environ.get("LAMINAD"):
                raise RuntimeError("LAMINAD=%s does not exist" % binary)   # asked for: a failure
            raise unittest.SkipTest("no laminad at %s (build it, or set LAMINAD)" % binary)
        self.log = open(os.path.join(self.dir, "laminad.log"), "w+")
        self.process = subprocess.Popen(
            [binary, "--headless", "--socket", self.socket, "--clock", clock, "--size", "%dx%d" % CANVAS] + extra,
            cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            if self.process.poll() is not None:
                self.log.seek(0)
                raise RuntimeError("laminad exited with %s: %s" % (self.process.returncode, self.log.read()))
            if os.path.exists(self.socket):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(self.socket)
                    break
                except OSError:
                    pass
                finally:
                    s.close()
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("laminad did not start within 30 s")
            time.sleep(0.02)

    def kill(self):
        """SIGKILL: no goodbye to its clients; its socket file stays behind."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


_daemon = None


def daemon():
    """The shared manual-clock daemon (started on first use, stopped at exit)."""
    global _daemon
    if _daemon is None:
        _daemon = Daemon()
        atexit.register(_daemon.stop)
    return _daemon


class DaemonTestCase(unittest.TestCase):
    """A test with its own connection (``self.conn``) to the shared daemon."""

    def setUp(self):
        self.daemon = daemon()
        self.conn = lamina.connect(self.daemon.socket, name=self.id().rsplit(".", 1)[-1])
        self.addCleanup(self.conn.close)

    def connect(self, name="other"):
        c = lamina.connect(self.daemon.socket, name=name)
        self.addCleanup(c.close)
        return c

    def square(self, x=50, y=50, size=100, color="#ff0000", kind="layer"):
        """A layer of ``size`` points centred at (x, y), added to the root (staged)."""
        layer = self.conn.make_layer(kind)
        layer.bounds = (0, 0, size, size)
        layer.position = (x, y)
        layer.background_color = color
        self.conn.root.add_sublayer(layer)
        return layer


def tiled_layer(conn, contents, frame, tile, levels_of_detail=None):
    """A tiled layer showing image ``contents`` at ``frame`` in square tiles, no fade (and
    ``levels_of_detail`` when given), added to the root (staged)."""
    layer = conn.make_tiled_layer()
    layer.frame = frame
    layer.tile_size = (tile, tile)
    layer.fade_duration = 0
    if levels_of_detail is not None:
        layer.levels_of_detail = levels_of_detail
    layer.contents = contents
    conn.root.add_sublayer(layer)
    return layer


# MARK: independent references

def cubic_bezier(x1, y1, x2, y2, x):
    """CSS cubic-bezier(x1, y1, x2, y2) at progress x, solved by bisection (not the daemon's way)."""
    def coord(a, b, t):
        return 3 * a * t * (1 - t) ** 2 + 3 * b * t * t * (1 - t) + t ** 3
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if coord(x1, x2, mid) < x:
            lo = mid
        else:
            hi = mid
    return coord(y1, y2, (lo + hi) / 2)


def spring_position(mass, stiffness, damping, velocity, t):
    """The damped oscillator m·x″ + c·x′ + k·(x − 1) = 0, x(0) = 0, x′(0) = v, in closed form."""
    w0 = math.sqrt(stiffness / mass)
    zeta = damping / (2 * math.sqrt(mass * stiffness))
    if zeta < 1:
        wd = w0 * math.sqrt(1 - zeta * zeta)
        a = -1.0
        # x = 1 + e^(−ζω t)(a cos ωd t + b sin ωd t); x(0) = 0 → a = −1; x′(0) = v → −ζω·a + ωd·b = v.
        b = (velocity + zeta * w0 * a) / wd
        return 1 + math.exp(-zeta * w0 * t) * (a * math.cos(wd * t) + b * math.sin(wd * t))
    if zeta == 1:
        return 1 - math.exp(-w0 * t) * (1 + (w0 - velocity) * t)
    r1 = -w0 * (zeta - math.sqrt(zeta * zeta - 1))
    r2 = -w0 * (zeta + math.sqrt(zeta * zeta - 1))
    c2 = (velocity + r1) / (r2 - r1)
    c1 = -1 - c2
    return 1 + c1 * math.exp(r1 * t) + c2 * math.exp(r2 * t)


def catmull_rom(values, progress):
    """A uniform Catmull-Rom spline through ``values`` (evenly spaced key times; the end values
    their own outer neighbours), at progress 0…1."""
    n = len(values) - 1
    seg = min(int(progress * n), n - 1)
    u = progress * n - seg
    p0 = values[max(seg - 1, 0)]
    p1, p2 = values[seg], values[seg + 1]
    p3 = values[min(seg + 2, n)]
    m1, m2 = (p2 - p0) / 2, (p3 - p1) / 2
    h00, h10 = 2 * u ** 3 - 3 * u ** 2 + 1, u ** 3 - 2 * u ** 2 + u
    h01, h11 = -2 * u ** 3 + 3 * u ** 2, u ** 3 - u ** 2
    return h00 * p1 + h10 * m1 + h01 * p2 + h11 * m2


def png_pixels(data):
    """Decodes an 8-bit RGBA, non-interlaced PNG (what ``capture`` sends): (width, height, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, width = 8, b"", 0
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", chunk[:10])
            assert (depth, color) == (8, 6), "not RGBA8"
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + n
    raw = zlib.decompress(idat)
    stride = width * 4
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 4] if i >= 4 else 0
            b = prev[i]
            c = prev[i - 4] if i >= 4 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows


def pixel_difference(a, b, threshold=64):
    """Two captures' PNG bytes compared pixel by pixel: (mean absolute channel error in 0…255
    units, percentage of pixels with a channel off by more than ``threshold``). The pixel rule
    against another rendering: mean ≤ 1 and ≤ 0.5 % off by more than 64."""
    wa, ha, ra = png_pixels(a)
    wb, hb, rb = png_pixels(b)
    assert (wa, ha) == (wb, hb), "sizes differ: %dx%d and %dx%d" % (wa, ha, wb, hb)
    total, off = 0, 0
    for row_a, row_b in zip(ra, rb):
        for x in range(0, len(row_a), 4):
            d = [abs(row_a[x + c] - row_b[x + c]) for c in range(4)]
            total += sum(d)
            off += max(d) > threshold
    return total / (4.0 * wa * ha), 100.0 * off / (wa * ha)


def png_file(width, height, rgba):
    """A PNG file of RGBA8 pixels (filter 0), written here with zlib."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + rgba[y * width * 4:(y + 1) * width * 4] for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
