"""Servers stop when asked: `quire server` on SIGTERM and `quire app` on Ctrl+C exit within
seconds while a client holds an event stream open (and after it has gone), the app saving open
documents on the way out. Real processes, real sockets."""

import http.client
import json
import signal
import socket
import subprocess
import unittest
import urllib.parse

from support import App, SyncServer

STOP_SECONDS = 10


def open_stream(port, path, headers):
    """An event stream held open: its response headers and first bytes have arrived."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    if response.status != 200:
        raise AssertionError(f"GET {path}: {response.status} {response.read()[:200]!r}")
    first = response.read1(64)
    if not first:
        raise AssertionError(f"GET {path}: the stream ended at once")
    return connection, response


class ShutdownTests(unittest.TestCase):
    def test_server_stops_on_sigterm_with_event_streams_open(self):
        server = SyncServer()
        try:
            token = server.sign_in()
            port = urllib.parse.urlparse(server.url).port
            auth = {"Authorization": f"Bearer {token}"}
            streams = [
                open_stream(port, "/v1/containers/iCloud.net.gacha.mydoc/events", auth),
                open_stream(port, "/v1/shares/events", auth),
            ]
            server.process.send_signal(signal.SIGTERM)
            try:
                status = server.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.fail(f"quire server still runs {STOP_SECONDS} s after SIGTERM with streams open")
            self.assertEqual(status, 0)
            for connection, _ in streams:
                connection.close()
        finally:
            if server.process.poll() is None:
                server.process.kill()
            server.close()

    def test_server_stops_on_sigterm_after_a_streaming_client_went_away(self):
        server = SyncServer()
        try:
            token = server.sign_in()
            port = urllib.parse.urlparse(server.url).port
            connection, _ = open_stream(
                port, "/v1/containers/iCloud.net.gacha.mydoc/events",
                {"Authorization": f"Bearer {token}"})
            connection.sock.shutdown(socket.SHUT_RDWR)
            connection.close()
            server.process.send_signal(signal.SIGTERM)
            try:
                status = server.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.fail(f"quire server still runs {STOP_SECONDS} s after SIGTERM")
            self.assertEqual(status, 0)
        finally:
            if server.process.poll() is None:
                server.process.kill()
            server.close()

    def test_app_stops_on_ctrl_c_with_its_page_open_and_saves(self):
        app = App("--autosave-delay", "600")  # only the stop can save this edit
        try:
            with open(app.path("Note.txt"), "w") as handle:
                handle.write("before")
            handle_id = app.api("POST", "/api/documents/open", {"path": "Note.txt"})["handle"]
            state = app.api("POST", "/api/documents/edit", {"handle": handle_id, "text": "after"})
            self.assertEqual(state["status"], "edited")
            connection, _ = open_stream(
                app.port, "/api/events",
                {"Host": f"127.0.0.1:{app.port}", "X-Quire-Token": app.token})
            app.process.send_signal(signal.SIGINT)
            try:
                status = app.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                self.fail(f"quire app still runs {STOP_SECONDS} s after Ctrl+C with its page open")
            self.assertEqual(status, 0)
            connection.close()
            with open(app.path("Note.txt")) as handle:
                self.assertEqual(handle.read(), "after")
        finally:
            app.stop()


if __name__ == "__main__":
    unittest.main()
