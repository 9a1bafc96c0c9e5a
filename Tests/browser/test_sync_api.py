"""The running `quire server` against its OpenAPI document (docs/sync-api.yaml): schemathesis
generates requests from the document, valid and invalid, one at a time and as sequences that
follow its links, and checks that none gets a 5xx and that every answer's status, content type
and body conform to the document."""

import os
import subprocess
import sys
import unittest

from support import ROOT, SyncServer

SCHEMATHESIS = os.path.join(os.path.dirname(sys.executable), "schemathesis")


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
             "--exclude-path", "/v1/shares/events",
             # The coverage phase trips a bug in Hypothesis's lambda printing on Python 3.11
             # ("AST constructor recursion depth mismatch"), inside schemathesis, not the server.
             # stateful: sequences that follow the document's links (a commit, then its
             # revision, versions, link and shares), not only one operation at a time.
             "--phases", "examples,fuzzing,stateful",
             # Hypothesis's too_slow check times the generator, not the server: on two busy
             # cores the commit batch's examples took long enough to fail the run (found with
             # two `yes` loops running). Every example is still generated and sent.
             "--suppress-health-check", "too_slow",
             "--max-examples", "60", "--workers", "2", "--seed", "1"],
            capture_output=True, text=True, timeout=900)
        self.assertEqual(result.returncode, 0, result.stdout[-6000:] + result.stderr[-2000:])
        self.assertIsNone(server.process.poll(), "the server died during the run")


if __name__ == "__main__":
    unittest.main()
