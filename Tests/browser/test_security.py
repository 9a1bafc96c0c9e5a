"""The safety rules of the local web app, over real sockets against a real `quire app`."""

import os
import unittest
import urllib.parse

from support import App


class SecurityTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.app = App("--max-upload-mb", "1")
        cls.outside = os.path.join(cls.app.home, "outside")
        os.makedirs(cls.outside)

    @classmethod
    def tearDownClass(cls):
        cls.app.stop()

    def assertNothingOutside(self):
        self.assertEqual(os.listdir(self.outside), [], "something was written outside the library")

    def test_requests_without_the_token_are_refused(self):
        response, body = self.app.request("GET", "/api/list", token=False)
        self.assertEqual(response.status, 401)
        self.assertIn(b"token", body)
        response, _ = self.app.request("GET", "/api/list", token=False,
                                       headers={"X-Quire-Token": "0" * 64})
        self.assertEqual(response.status, 401)
        response, _ = self.app.request("GET", "/", token=False)
        self.assertEqual(response.status, 401, "even the page needs the token")

    def test_the_token_in_the_address_becomes_a_strict_cookie(self):
        response, _ = self.app.request("GET", "/?token=" + self.app.token, token=False)
        self.assertIn(response.status, (302, 303, 307, 308))
        cookie = response.getheader("Set-Cookie")
        self.assertIn(f"quire_token_{self.app.port}={self.app.token}", cookie)
        self.assertIn("HttpOnly", cookie)
        self.assertIn("SameSite=Strict", cookie)
        self.assertEqual(response.getheader("Location"), "/", "the token leaves the address bar")
        response, _ = self.app.request("GET", "/api/list", token=False,
                                       headers={"Cookie": f"quire_token_{self.app.port}={self.app.token}"})
        self.assertEqual(response.status, 200)
        # Cookies are not scoped by port: the name carries it, so another port's app's cookie
        # (or one named as before) is not this app's token.
        response, _ = self.app.request("GET", "/api/list", token=False,
                                       headers={"Cookie": f"quire_token_{self.app.port + 1}={self.app.token}"})
        self.assertEqual(response.status, 401)
        response, _ = self.app.request("GET", "/?token=wrong", token=False)
        self.assertEqual(response.status, 401)

    def test_foreign_host_and_origin_are_refused(self):
        # DNS rebinding: the browser sends the attacker's host name.
        response, _ = self.app.request("GET", "/api/list",
                                       headers={"Host": f"evil.example:{self.app.port}"})
        self.assertEqual(response.status, 421)
        response, _ = self.app.request("GET", "/api/list", headers={"Host": None})
        self.assertEqual(response.status, 421)
        # A cross-site request, even one carrying the cookie.
        response, _ = self.app.request("POST", "/api/create",
                                       {"kind": "text", "name": "x"},
                                       headers={"Origin": "http://evil.example"})
        self.assertEqual(response.status, 403)
        self.assertFalse(os.path.exists(self.app.path("x.txt")))
        response, _ = self.app.request("GET", "/api/list",
                                       headers={"Origin": f"http://localhost:{self.app.port}"})
        self.assertEqual(response.status, 200)

    def test_every_response_has_a_content_security_policy(self):
        for path, token in [("/", True), ("/api/list", True), ("/api/list", False)]:
            response, _ = self.app.request("GET", path, token=token)
            policy = response.getheader("Content-Security-Policy") or ""
            self.assertIn("default-src 'self'", policy, path)
            self.assertIn("script-src 'self'", policy, path)
            self.assertIn("frame-ancestors 'none'", policy, path)
            self.assertEqual(response.getheader("X-Content-Type-Options"), "nosniff")

    def test_the_page_is_asked_again_each_time_and_answered_by_its_tag(self):
        for path in ("/", "/early.js", "/bundle.js", "/style.css"):
            response, body = self.app.request("GET", path)
            self.assertEqual(response.status, 200, path)
            self.assertEqual(response.getheader("Cache-Control"), "no-cache", path)
            tag = response.getheader("ETag")
            self.assertRegex(tag or "", r'^"[0-9a-f]{32}"$', path)
            self.assertGreater(len(body), 0)
            response, body = self.app.request("GET", path, headers={"If-None-Match": tag})
            self.assertEqual((response.status, body), (304, b""), path)
            self.assertEqual(response.getheader("ETag"), tag)
            response, body = self.app.request("GET", path, headers={"If-None-Match": '"0"'})
            self.assertEqual(response.status, 200, "another tag is answered with the file")
            self.assertGreater(len(body), 0)

    def test_paths_cannot_escape_the_library(self):
        os.symlink(self.outside, self.app.path("link"))
        hostile = ["../outside", "/etc", "link", "link/x.txt", "a/../../outside", "a\x00b",
                   "x" * 300, "./x", ""]
        for folder in hostile[:-1]:
            response, body = self.app.request(
                "GET", "/api/list?" + urllib.parse.urlencode({"folder": folder}))
            self.assertEqual(response.status, 400, f"listing {folder!r}: {body[:200]!r}")
            self.assertIn(b"error", body)
            self.assertNotIn(b"Swift", body, "errors are messages, not traces")
            response, _ = self.app.request("POST", "/api/create",
                                           {"kind": "text", "name": "n", "folder": folder})
            self.assertEqual(response.status, 400, f"creating in {folder!r}")
        for name in ["../escape", "/etc/passwd", "a/b", "..", "nul\x00name", "y" * 300]:
            response, _ = self.app.request("POST", "/api/create",
                                           {"kind": "text", "name": name})
            self.assertEqual(response.status, 400, f"creating {name!r}")
            response, _ = self.app.request("POST", "/api/folder", {"name": name})
            self.assertEqual(response.status, 400, f"making folder {name!r}")
        created = self.app.api("POST", "/api/create", {"kind": "text", "name": "safe"})
        for target in ["../outside", "link", "/tmp"]:
            response, _ = self.app.request("POST", "/api/move",
                                           {"path": created["path"], "folder": target})
            self.assertEqual(response.status, 400, f"moving into {target!r}")
        for target in ["../outside", "link", "/tmp"]:
            response, _ = self.app.request("POST", "/api/copy",
                                           {"path": created["path"], "folder": target})
            self.assertEqual(response.status, 400, f"copying into {target!r}")
        # The library itself is no item: it is neither renamed, moved, duplicated (into its
        # parent, outside), copied (into itself) nor trashed.
        os.makedirs(self.app.path("Inner"), exist_ok=True)
        for route, body in [("rename", {"path": "", "name": "Other"}), ("move", {"path": "", "folder": "Inner"}),
                            ("duplicate", {"path": ""}), ("copy", {"path": "", "folder": "Inner"}),
                            ("copy", {"path": "Inner", "folder": "Inner"}), ("delete", {"path": ""})]:
            response, _ = self.app.request("POST", f"/api/{route}", body)
            self.assertEqual(response.status, 400, f"{route} of {body}")
        self.assertEqual(os.listdir(self.app.path("Inner")), [], "nothing copied into itself")
        for path in ["../outside", "link", "/etc/hostname"]:
            response, _ = self.app.request("GET", "/api/export?" + urllib.parse.urlencode({"path": path}))
            self.assertEqual(response.status, 400, f"exporting {path!r}")
            response, _ = self.app.request("GET", "/api/preview?" + urllib.parse.urlencode({"path": path}))
            self.assertEqual(response.status, 400, f"previewing {path!r}")
            response, _ = self.app.request("POST", "/api/delete", {"path": path})
            self.assertEqual(response.status, 400, f"deleting {path!r}")
        # The grid's first lines of many notes read nothing outside either: such a path is left out.
        answer = self.app.api("POST", "/api/previews",
                              {"paths": ["../outside", "link", "/etc/hostname", created["path"]]})
        self.assertEqual(list(answer["texts"]), [created["path"]])
        response, _ = self.app.request("POST", "/api/previews", {"paths": [created["path"]] * 501})
        self.assertEqual(response.status, 400, "at most 500 paths a request")
        response, _ = self.app.request("POST", "/api/import?name=../evil.txt", b"x")
        self.assertEqual(response.status, 400)
        self.assertNothingOutside()
        self.assertTrue(os.path.exists(os.path.join(os.path.dirname(self.outside), "Library", "safe.txt")))

    def test_uploads_over_the_limit_are_refused(self):
        big = b"\x00" * (2 << 20)
        response, body = self.app.request("POST", "/api/import?name=big.txt", big)
        self.assertEqual(response.status, 413, body[:200])
        self.assertFalse(os.path.exists(self.app.path("big.txt")))

    def test_a_hostile_archive_is_refused_and_leaves_nothing(self):
        import io
        import zipfile
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("Evil.mydoc/text.txt", "x")
            archive.writestr("Evil.mydoc/../../outside/escaped.txt", "escaped")
        response, body = self.app.request("POST", "/api/import?name=Evil.zip", buffer.getvalue())
        self.assertEqual(response.status, 400, body[:300])
        self.assertIn(b"error", body)
        self.assertFalse(os.path.exists(self.app.path("Evil.mydoc")))
        self.assertNothingOutside()


if __name__ == "__main__":
    unittest.main()
