"""Ten rounds of scripts/torture sync: a server and three agents as real processes, random
operations and faults (agents and the server SIGKILLed, the network cut, delivery delayed),
then every device must hold the same tree and nothing saved may be lost."""

import os
import subprocess
import unittest

from support import QUIRE

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class SyncTortureTests(unittest.TestCase):
    def test_ten_rounds_converge_and_lose_nothing(self):
        run = subprocess.run(
            [os.path.join(ROOT, "scripts", "torture"), "sync", "--rounds", "10", "--seed", "1"],
            env=dict(os.environ, QUIRE_BIN=QUIRE), capture_output=True, text=True, timeout=1200)
        lines = run.stdout.strip().splitlines()
        # Without a RESULT line the script itself stopped: what it printed on stderr says why.
        self.assertTrue(lines and lines[-1].startswith("RESULT sync-torture rounds=10 "),
                        run.stdout[-4000:] + "\nstderr:\n" + run.stderr[-4000:])
        self.assertIn(" diverged=0 lost=0 ", lines[-1] + " ", run.stdout[-4000:])
        self.assertEqual(run.returncode, 0, run.stdout[-4000:])


if __name__ == "__main__":
    unittest.main()
