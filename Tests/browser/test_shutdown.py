"""Servers stop when asked: `quire server` on SIGTERM and `quire app` on SIGTERM or Ctrl+C exit
within seconds, also while a client holds an event stream open (and after it has gone) or reads
nothing of a large download, the app saving open documents on the way out. Real processes, real
sockets."""

import http.client
import random
import signal
import socket
import subprocess
import unittest
import urllib.parse

from support import App, SyncServer
from test_webdav import app_password, basic, request

STOP_SECONDS = 10
EVENTS = "/v1/containers/iCloud.net.gacha.mydoc/events"


def open_stream(port, path, headers):
    """An event stream held open: its response headers and first bytes have arrived."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    if response.status != 200:
        raise AssertionError(f"GET {path}: {response.status} {response.read()[:200]!r}")
    if not response.read1(64):
        raise AssertionError(f"GET {path}: the stream ended at once")
    return connection


class ShutdownTests(unittest.TestCase):
    def assert_stops(self, process, number, what):
        process.send_signal(number)
        try:
            status = process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            self.fail(f"{what} still runs {STOP_SECONDS} s after {signal.Signals(number).name}")
        self.assertEqual(status, 0, what)

    def server_with_streams(self, paths, then=None):
        """`quire server` with event streams open at `paths`, `then` done to them, stopped."""
        server = SyncServer()
        try:
            port = urllib.parse.urlparse(server.url).port
            auth = {"Authorization": f"Bearer {server.sign_in()}"}
            streams = [open_stream(port, path, auth) for path in paths]
            for connection in streams:
                if then:
                    then(connection)
            self.assert_stops(server.process, signal.SIGTERM, "quire server")
            for connection in streams:
                connection.close()
        finally:
            if server.process.poll() is None:
                server.process.kill()
            server.close()

    def test_server_stops_on_sigterm_with_event_streams_open(self):
        self.server_with_streams([EVENTS, "/v1/shares/events"])

    def test_server_stops_on_sigterm_after_a_streaming_client_went_away(self):
        def hang_up(connection):
            connection.sock.shutdown(socket.SHUT_RDWR)
            connection.close()
        self.server_with_streams([EVENTS], then=hang_up)

    def test_server_stops_on_sigterm_while_a_client_reads_nothing_of_a_large_download(self):
        """The answer fills the socket's buffers and waits for a reader that never comes; the
        stopping server cuts it rather than wait for good."""
        server = SyncServer()
        try:
            port = urllib.parse.urlparse(server.url).port
            alice = basic("alice", app_password(server, "shutdown"))
            content = random.Random(7).randbytes(32 << 20)
            self.assertEqual(request(server, "PUT", "/dav/Big.bin", alice, content)[0], 201)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/dav/Big.bin", headers={"Authorization": alice})
            self.assertEqual(connection.getresponse().status, 200)  # its body stays unread
            self.assert_stops(server.process, signal.SIGTERM, "quire server")
            connection.close()
        finally:
            if server.process.poll() is None:
                server.process.kill()
            server.close()

    def app_stops_and_saves(self, number, page_open):
        app = App("--autosave-delay", "600")  # only the stop can save this edit
        try:
            with open(app.path("Note.txt"), "w") as handle:
                handle.write("before")
            handle_id = app.api("POST", "/api/documents/open", {"path": "Note.txt"})["handle"]
            state = app.api("POST", "/api/documents/edit", {"handle": handle_id, "text": "after"})
            self.assertEqual(state["status"], "edited")
            page = open_stream(app.port, "/api/events",
                               {"Host": f"127.0.0.1:{app.port}", "X-Quire-Token": app.token}) \
                if page_open else None
            self.assert_stops(app.process, number, "quire app")
            if page:
                page.close()
            with open(app.path("Note.txt")) as handle:
                self.assertEqual(handle.read(), "after")
        finally:
            app.stop()

    def test_app_stops_on_sigterm_and_saves_open_documents(self):
        self.app_stops_and_saves(signal.SIGTERM, page_open=False)

    def test_app_stops_on_ctrl_c_with_its_page_open_and_saves(self):
        self.app_stops_and_saves(signal.SIGINT, page_open=True)


if __name__ == "__main__":
    unittest.main()
