"""Open in place from the desktop: `quire install-desktop`, `quire open` and
`quire uninstall-desktop`, as real processes."""

import hashlib
import http.client
import json
import os
import random
import signal
import subprocess
import tempfile
import unittest
import urllib.parse

from support import QUIRE, App


class DesktopTests(unittest.TestCase):
    def test_install_registers_types_and_uninstall_removes_them(self):
        home = tempfile.mkdtemp(prefix="quire-desktop-")
        config = tempfile.mkdtemp(prefix="quire-config-")
        env = dict(os.environ, XDG_DATA_HOME=home, XDG_CONFIG_HOME=config)
        subprocess.run([QUIRE, "install-desktop"], env=env, check=True, capture_output=True)
        with open(os.path.join(home, "mime", "packages", "quire.xml")) as handle:
            mime = handle.read()
        self.assertIn('<mime-type type="application/x-mydoc">', mime)
        self.assertIn('<glob pattern="*.mydoc"/>', mime)
        self.assertIn('<sub-class-of type="inode/directory"/>', mime)
        self.assertIn('<glob pattern="*.album"/>', mime)
        with open(os.path.join(home, "applications", "quire.desktop")) as handle:
            entry = handle.read()
        self.assertIn("MimeType=application/x-mydoc;text/plain;application/x-quire-album;", entry)
        self.assertRegex(entry, r'Exec=".*quire" open %f')
        unit_path = os.path.join(config, "systemd", "user", "quire-sync.service")
        with open(unit_path) as handle:
            unit = handle.read()
        self.assertRegex(unit, r'ExecStart=".*quire" sync run')
        self.assertIn("Restart=on-failure", unit)
        self.assertIn("WantedBy=default.target", unit)
        subprocess.run([QUIRE, "uninstall-desktop"], env=env, check=True, capture_output=True)
        self.assertFalse(os.path.exists(os.path.join(home, "mime", "packages", "quire.xml")))
        self.assertFalse(os.path.exists(os.path.join(home, "applications", "quire.desktop")))
        self.assertFalse(os.path.exists(unit_path))

    def test_open_uses_the_running_app_or_starts_one_in_place(self):
        app = App()
        try:
            os.makedirs(app.path("Work"))
            with open(app.path("Work/Plan.txt"), "w") as handle:
                handle.write("plan")
            out = subprocess.run([QUIRE, "open", "--print-only", app.path("Work/Plan.txt")],
                                 env=app.env, check=True, capture_output=True, text=True).stdout
            address = out.strip()
            self.assertTrue(address.startswith(app.url), address)
            self.assertTrue(address.endswith("#/doc/Work/Plan.txt"), address)
            # A document outside the library opens in place in the same app; nothing is copied.
            outside = tempfile.mkdtemp(prefix="quire-open-")
            document = os.path.join(outside, "Loose.txt")
            with open(document, "w") as handle:
                handle.write("loose")
            out = subprocess.run([QUIRE, "open", "--print-only", document], env=app.env,
                                 check=True, capture_output=True, text=True).stdout.strip()
            self.assertTrue(out.startswith(app.url + "#/handle/"), out)
            handle_id = out.rsplit("/", 1)[1]
            state = app.api("GET", "/api/documents/state?handle=" + handle_id)
            self.assertEqual(state["text"], "loose")
            self.assertEqual(state["path"], os.path.realpath(document))
            state = app.api("POST", "/api/documents/edit", {"handle": handle_id, "text": "edited in place"})
            app.api("POST", "/api/documents/close", {"handle": handle_id})
            with open(document) as handle:
                self.assertEqual(handle.read(), "edited in place")
            self.assertEqual(os.listdir(outside), ["Loose.txt"], "nothing was copied or added")
            self.assertNotIn("Loose.txt", app.names())
            # The page itself (a cookie, no token header) may not open what is outside.
            response, _ = app.request("POST", "/api/documents/open-in-place", {"path": document},
                                      token=False, headers={"Cookie": f"quire_token_{app.port}={app.token}"})
            self.assertEqual(response.status, 403)
        finally:
            app.stop()

    def test_open_starts_the_app_when_none_runs(self):
        home = tempfile.mkdtemp(prefix="quire-open-start-")
        env = dict(os.environ, XDG_DATA_HOME=os.path.join(home, "data"),
                   XDG_CACHE_HOME=os.path.join(home, "cache"), XDG_RUNTIME_DIR=home)
        document = os.path.join(home, "Alone.txt")
        with open(document, "w") as handle:
            handle.write("alone")
        out = subprocess.run([QUIRE, "open", "--print-only", document], env=env, check=True,
                             capture_output=True, text=True).stdout.strip()
        folder = os.path.join(home, f"quire-apps-{os.getuid()}")
        records = [json.load(open(os.path.join(folder, name))) for name in os.listdir(folder)
                   if name.endswith(".json") and not name.startswith(".")]
        try:
            self.assertEqual(len(records), 1)
            self.assertTrue(out.startswith(records[0]["url"] + "#/handle/"), out)
            self.assertTrue(os.path.exists(os.path.join(home, "data", "quire", "Library", "Welcome.mydoc")))
        finally:
            for record in records:
                os.kill(record["pid"], signal.SIGKILL)

    def test_open_refuses_what_is_not_a_document(self):
        result = subprocess.run([QUIRE, "open", "/nonexistent/Nothing.txt"], capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertEqual(len(result.stderr.strip().splitlines()), 1)
        self.assertIn("no document", result.stderr)


class LifecycleTests(unittest.TestCase):
    def test_a_second_app_on_the_same_port_says_why_in_one_line(self):
        app = App()
        try:
            port = str(app.port)
            same = subprocess.run([QUIRE, "app", "--library", app.library, "--port", port],
                                  env=app.env, capture_output=True, text=True, timeout=60)
            self.assertNotEqual(same.returncode, 0)
            self.assertEqual(len(same.stderr.strip().splitlines()), 1, same.stderr)
            self.assertIn("already serving this library", same.stderr)
            other = subprocess.run([QUIRE, "app", "--library", os.path.join(app.home, "Other"), "--port", port],
                                   env=app.env, capture_output=True, text=True, timeout=60)
            self.assertNotEqual(other.returncode, 0)
            self.assertEqual(len(other.stderr.strip().splitlines()), 1, other.stderr)
            self.assertIn(f"Port {port}", other.stderr)
            self.assertIn("--port", other.stderr)
        finally:
            app.stop()

    def test_a_new_library_starts_with_a_welcome_document(self):
        app = App()
        try:
            self.assertEqual(app.names(), ["Welcome.mydoc"])
            self.assertTrue(os.path.exists(app.path("Welcome.mydoc/text.txt")))
            self.assertTrue(os.path.exists(app.path("Welcome.mydoc/image.png")))
        finally:
            app.stop()


if __name__ == "__main__":
    unittest.main()


def large_file(seed):
    """A 160 MiB file of eight random MiB repeated: its size, a function giving its pieces in
    order (a generator each time, so it is never held whole), and its SHA-256."""
    generator = random.Random(seed)
    distinct = [generator.randbytes(1 << 20) for _ in range(8)]
    size = 160 << 20

    def pieces():
        return (distinct[index % len(distinct)] for index in range(size >> 20))

    digest = hashlib.sha256()
    for piece in pieces():
        digest.update(piece)
    return size, pieces, digest.hexdigest()


class ExportTests(unittest.TestCase):
    def test_a_large_document_downloads_whole_in_bounded_memory(self):
        """The library's download of a 160 MiB document sends every byte, read a piece at a
        time: the app's peak memory grows by far less than the document (it used to read the
        whole of it into memory, then copy it into the answer)."""
        from test_webdav import peak_rss_mib

        app = App()
        try:
            size, pieces, digest = large_file(11)
            with open(app.path("Film.bin"), "wb") as handle:
                for piece in pieces():
                    handle.write(piece)
            before = peak_rss_mib(app.process.pid)
            connection = http.client.HTTPConnection("127.0.0.1", app.port, timeout=120)
            try:
                connection.request("GET", "/api/export?" + urllib.parse.urlencode({"path": "Film.bin"}),
                                   headers={"Host": f"127.0.0.1:{app.port}",
                                            "X-Quire-Token": app.token})
                response = connection.getresponse()
                self.assertEqual(response.status, 200)
                self.assertEqual(int(response.getheader("Content-Length")), size)
                received = hashlib.sha256()
                total = 0
                while chunk := response.read(1 << 20):
                    received.update(chunk)
                    total += len(chunk)
            finally:
                connection.close()
            self.assertEqual(total, size)
            self.assertEqual(received.hexdigest(), digest)
            grown = peak_rss_mib(app.process.pid) - before
            self.assertLess(grown, 64, f"the app's peak memory grew by {grown:.0f} MiB for 160 MiB")
        finally:
            app.stop()

    def test_a_large_import_is_written_as_it_arrives_in_bounded_memory(self):
        """An import of a 160 MiB document is written to disk as its body arrives: it lands in
        the library byte for byte, readable like any file the user makes, and the app's peak
        memory grows by far less than the document (the body used to be collected whole, then
        copied)."""
        import stat

        from test_webdav import peak_rss_mib

        app = App()
        try:
            size, pieces, digest = large_file(13)
            before = peak_rss_mib(app.process.pid)
            connection = http.client.HTTPConnection("127.0.0.1", app.port, timeout=120)
            try:
                connection.request(
                    "POST", "/api/import?" + urllib.parse.urlencode({"name": "Film.txt"}),
                    body=pieces(),
                    headers={"Host": f"127.0.0.1:{app.port}", "X-Quire-Token": app.token,
                             "Content-Length": str(size)})
                response = connection.getresponse()
                self.assertEqual(response.status, 201, response.read()[:300])
                response.read()
            finally:
                connection.close()
            grown = peak_rss_mib(app.process.pid) - before
            self.assertLess(grown, 64, f"the app's peak memory grew by {grown:.0f} MiB for 160 MiB")
            received = hashlib.sha256()
            with open(app.path("Film.txt"), "rb") as handle:
                while chunk := handle.read(1 << 20):
                    received.update(chunk)
            self.assertEqual(received.hexdigest(), digest)
            mode = stat.S_IMODE(os.stat(app.path("Film.txt")).st_mode)
            self.assertEqual(mode & 0o044, 0o044 & ~os.umask(os.umask(0)) & 0o044,
                             "readable as a file the user made")
        finally:
            app.stop()
