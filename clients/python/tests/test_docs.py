"""docs/python.md's quick start runs as it is, against a daemon on the default socket."""
import os
import re
import subprocess
import sys
import unittest

from support import REPO, Daemon

import lamina


def quick_start():
    with open(os.path.join(REPO, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    return re.search(r"```python\n(.*?)```", text, re.S).group(1)


class QuickStartTests(unittest.TestCase):
    def test_the_first_python_block_runs(self):
        code = quick_start()
        self.assertIn("lamina.connect()", code)   # the default socket, as a newcomer runs it
        # A realtime daemon (as `laminad --headless` starts) on the default path of a private
        # XDG_RUNTIME_DIR, so that the code connects with no arguments.
        daemon = Daemon(clock="realtime", socket_name="lamina-0")
        self.addCleanup(daemon.stop)
        env = dict(os.environ, XDG_RUNTIME_DIR=daemon.dir)
        package = os.path.dirname(os.path.dirname(os.path.abspath(lamina.__file__)))
        env["PYTHONPATH"] = package + os.pathsep + env.get("PYTHONPATH", "")
        r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("the square is at Point(x=300.0, y=100.0)", r.stdout)


if __name__ == "__main__":
    unittest.main()
