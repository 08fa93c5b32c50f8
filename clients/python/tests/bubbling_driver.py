"""Pointer bubbling in the Python client against a real daemon with injected input.

Run by ``Tests/LaminaTests/PythonPointerBubblingTests.swift``, which hosts the daemon in its
own process (input is injected there, as the viewer's window injects it: ``Daemon.inject``)
and checks what this prints against points worked out by hand. Usage:
``bubbling_driver.py SOCKET``. It builds the layers, then for each click it needs prints
``click X Y`` and waits for a line on stdin (the test injects a down and an up at canvas
(X, Y), then writes one); at the end it prints ``result JSON``: per scenario, what the
handlers saw at the down, as "NAME LAYER TARGET X Y".

The layers (as PointerBubblingTests.swift's): other, a top-level 200×200 at the origin;
outer, anchor (0, 0) at (20, 30), 160×140; middle in outer, anchor (0, 0) at (10, 20), 60×50,
scaled ×2; inner in middle, anchor (0, 0) at (5, 5), 20×20.
"""
import json
import os
import sys

try:
    import lamina
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import lamina


def main(socket_path):
    conn = lamina.connect(socket_path, name="python-bubbling")

    def layer(position, size):
        made = conn.make_layer()
        made.anchor_point = (0, 0)
        made.position = position
        made.bounds = (0, 0, size[0], size[1])
        return made

    other = layer((0, 0), (200, 200))
    outer = layer((20, 30), (160, 140))
    middle = layer((10, 20), (60, 50))
    middle.transform = lamina.Transform3D.scale(2, 2)
    inner = layer((5, 5), (20, 20))
    conn.root.add_sublayer(other)
    conn.root.add_sublayer(outer)
    outer.add_sublayer(middle)
    middle.add_sublayer(inner)
    conn.commit()
    conn.hit_test((0, 0))   # answered from a frame that has the commit: input is routed against it
    stream = conn.events()
    seen = []

    def handler(name, result=None):
        def h(e):
            if e.kind == "down":
                seen.append("%s %d %d %g %g" % (name, e.layer, e.target, e.x, e.y))
            return result
        return h

    def click(x, y):
        """The daemon's down and up at canvas (x, y); returns what the handlers saw."""
        del seen[:]
        print("click %g %g" % (x, y), flush=True)
        sys.stdin.readline()
        while True:   # the up, as routed, on the stream: every callback before it is queued
            e = stream.get(10)
            if isinstance(e, lamina.PointerEvent) and e.kind == "up":
                break
        conn.drain_events(10)
        return list(seen)

    def clear():
        for each in (conn.root, other, outer, middle, inner):
            each.on_pointer = None
        conn.on_pointer = None

    result = {"ids": {"other": other.id, "outer": outer.id, "middle": middle.id, "inner": inner.id}}

    # Innermost first, each in its own coordinates, then the connection's handler.
    inner.on_pointer = handler("inner")
    middle.on_pointer = handler("middle")
    outer.on_pointer = handler("outer")
    conn.on_pointer_of(conn.root, handler("root"))
    conn.on_pointer = lambda e: seen.append("connection %d %d %g %g" % (e.layer, e.target, e.x, e.y)) \
        if e.kind == "down" else None
    result["bubbles"] = click(50, 70)

    # HANDLED stops it: neither outer, root nor the connection's handler hears it.
    middle.on_pointer = handler("middle", lamina.HANDLED)
    result["handled"] = click(50, 70)

    # A layer without a handler passes it on; a handler that raises is reported and passes it on.
    clear()
    outer.on_pointer = handler("outer")
    conn.on_pointer_of(middle, lambda e: 1 / 0)
    result["passes"] = click(50, 70)
    result["handlerOf"] = {"middle": middle.on_pointer is not None, "inner": inner.on_pointer is not None}

    # The chain is the daemon's tree at the hit: inner moved into other by a commit bubbles
    # through other; a move staged and not committed changes nothing.
    clear()
    for name, each in (("inner", inner), ("middle", middle), ("outer", outer), ("other", other)):
        each.on_pointer = handler(name)
    other.add_sublayer(inner)
    conn.commit()
    conn.hit_test((0, 0))
    result["moved"] = click(10, 10)
    middle.add_sublayer(inner)
    result["staged"] = click(10, 10)

    print("result " + json.dumps(result), flush=True)
    stream.close()
    conn.close()


if __name__ == "__main__":
    main(sys.argv[1])
