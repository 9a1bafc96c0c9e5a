"""The running `quire server` against its OpenAPI document (docs/sync-api.yaml): schemathesis
generates requests from the document, valid and invalid, and checks that none gets a 5xx and
that every answer's status, content type and body conform to the document."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.request

from support import QUIRE, ROOT

SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")


class SyncServer:
    """`quire server` on a fresh data folder, with the account alice."""

    def __init__(self):
        self.data = tempfile.mkdtemp(prefix="quire-server-test-")
        subprocess.run([QUIRE, "server", "add-user", "alice", "--data", self.data],
                       input="alice-password\n", text=True, check=True, capture_output=True)
        self.process = subprocess.Popen([QUIRE, "server", "--data", self.data, "--port", "0"],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.url = None
        for line in self.process.stdout:
            if line.startswith("Quire server listening on "):
                self.url = line.split()[-1]
                break
        if not self.url:
            raise AssertionError("quire server did not print its address")

    def sign_in(self):
        request = urllib.request.Request(
            self.url + "/v1/sign-in", method="POST",
            data=json.dumps({"user": "alice", "password": "alice-password", "device": "fuzz"}).encode())
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)["token"]

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.process.stdout.close()
        shutil.rmtree(self.data, ignore_errors=True)


class SyncAPITests(unittest.TestCase):
    def test_the_server_conforms_to_its_openapi_document_and_never_answers_5xx(self):
        server = SyncServer()
        self.addCleanup(server.close)
        token = server.sign_in()
        result = subprocess.run(
            [SCHEMATHESIS, "run", os.path.join(ROOT, "docs", "sync-api.yaml"), "--url", server.url,
             "--header", f"Authorization: Bearer {token}",
             "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                         "response_schema_conformance",
             "--exclude-path", "/v1/containers/{container}/events",
             # The coverage phase trips a bug in Hypothesis's lambda printing on Python 3.11
             # ("AST constructor recursion depth mismatch"), inside schemathesis, not the server.
             "--phases", "examples,fuzzing",
             "--max-examples", "60", "--workers", "2", "--seed", "1"],
            capture_output=True, text=True, timeout=900)
        self.assertEqual(result.returncode, 0, result.stdout[-6000:] + result.stderr[-2000:])
        self.assertIsNone(server.process.poll(), "the server died during the run")


if __name__ == "__main__":
    unittest.main()
