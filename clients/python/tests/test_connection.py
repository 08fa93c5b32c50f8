"""The connection's life: the handshake's answers, refusals, and a daemon that goes away."""
import threading
import unittest

from support import CANVAS, Daemon, DaemonTestCase

import lamina


class HandshakeTests(DaemonTestCase):
    def test_welcome(self):
        self.assertEqual(self.conn.version, (1, 0))
        self.assertTrue(self.conn.is_manual_clock)
        self.assertEqual(self.conn.display.width, CANVAS[0])
        self.assertEqual(self.conn.canvas_size, lamina.Size(*CANVAS))
        self.assertGreater(self.conn.client_id, 0)
        other = self.connect()
        self.assertNotEqual(other.client_id, self.conn.client_id)
        names = [l["ownerName"] for l in self.conn.tree()["layers"]]
        self.assertIn("test_welcome", names)

    def test_requests_from_many_threads(self):
        layers = [self.square(x=10 + 20 * i, y=10, size=10) for i in range(8)]
        for i, layer in enumerate(layers):
            layer.opacity = (i + 1) / 10   # not 0: a transparent layer is not hit
        self.conn.commit()
        failures = []

        def work(i):
            try:
                for _ in range(25):
                    self.conn.ping()   # checks its token
                    self.assertAlmostEqual(layers[i].presentation_value("opacity"), (i + 1) / 10)
                    self.assertIs(self.conn.hit_test((10 + 20 * i, 10)).layer, layers[i])
            except Exception as e:   # noqa: BLE001 (reported below)
                failures.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(failures, [])


class LifecycleTests(unittest.TestCase):
    def test_refused_over_max_clients(self):
        daemon = Daemon(config={"maxClients": 1})
        self.addCleanup(daemon.stop)
        first = lamina.connect(daemon.socket)
        self.addCleanup(first.close)
        with self.assertRaises(lamina.ConnectionFailed) as cm:
            lamina.connect(daemon.socket)
        self.assertIn("refused", str(cm.exception))
        first.ping()   # the first is served still

    def test_daemon_going_away_ends_the_connection(self):
        daemon = Daemon()
        conn = lamina.connect(daemon.socket)
        stream = conn.events()
        ended = threading.Event()
        conn.on_event = lambda e: ended.set() if isinstance(e, lamina.events.Disconnected) else None
        daemon.stop()
        self.assertTrue(conn.wait_until_closed(10))
        self.assertTrue(conn.is_closed)
        self.assertEqual(list(stream), [lamina.events.Disconnected()])
        self.assertTrue(ended.wait(5))
        with self.assertRaises(lamina.Disconnected):
            conn.commit()
        conn.close()   # closing twice is harmless


if __name__ == "__main__":
    unittest.main()
