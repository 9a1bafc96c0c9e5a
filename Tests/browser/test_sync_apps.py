"""Two devices in real processes — two `quire app`s, two `quire sync run` agents beside them (each
sharing its app's XDG folders, so file coordination reaches the app) and one `quire server`, on
loopback — with a real headless Chromium on each app: text typed in one page's editor appears
in the other page's open editor, with no reload, and the header's sync line says so."""

import base64
import fcntl
import glob
import json
import os
import sqlite3
import subprocess
import time
import unittest
import urllib.error
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from support import QUIRE, App, HoldingProxy, SyncServer, chromium, item_action, noise_png, png, wait_for


class Device:
    """An app and its agent: `quire sync login` then `quire sync run` on the app's library."""

    def __init__(self, name, server, url=None, run=(), user="alice"):
        self.app = App("--autosave-delay", "0.3")
        subprocess.run([QUIRE, "sync", "login", url or server.url, "--user", user, "--device", name],
                       input=f"{user}-password\n", env=self.app.env, text=True, check=True,
                       capture_output=True)
        self.log = os.path.join(self.app.home, "agent.log")  # read by explain() on a failure
        with open(self.log, "w") as log:
            self.agent = subprocess.Popen(
                [QUIRE, "sync", "run", "--folder", self.app.library, *run],
                stdout=subprocess.PIPE, stderr=log, env=self.app.env, text=True)
        for line in self.agent.stdout:
            if line.startswith("Syncing "):
                break
        self.driver = chromium()

    def text(self):
        element = self.driver.find_element(By.CSS_SELECTOR, "#text")
        return element.get_attribute("value") if element.is_displayed() else None

    def script_errors(self):
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry.get("source") == "javascript"]

    def sync_line(self):
        return self.driver.find_element(By.CSS_SELECTOR, "#sync-line").text

    def stop(self):
        self.driver.quit()
        self.agent.kill()
        self.agent.wait()
        self.agent.stdout.close()
        self.app.stop()


def agent_connection(app):
    """The connection the agent on `app`'s library last recorded in its state."""
    for state in glob.glob(os.path.join(app.home, "state", "quire", "sync", "*.sqlite")):
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as database:
            row = database.execute("SELECT value FROM meta WHERE key = 'connection'").fetchone()
            return row[0] if row else None
    return None


def read(path):
    """The text of `path`, or None while it is not there."""
    try:
        with open(path) as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def journal(device, path):
    """The server's journal entries of `path`, asked with `device`'s sign-in."""
    with open(os.path.join(device.app.home, "config", "quire", "sync.json")) as handle:
        settings = json.load(handle)
    request = urllib.request.Request(
        f"{settings['server'].rstrip('/')}/v1/containers/{settings['container']}/changes?since=0",
        headers={"Authorization": f"Bearer {settings['token']}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return [entry for entry in json.load(response)["entries"]
                if entry["path"] == "Documents/" + path]


def commits_of(device, path):
    """How many commits of `path` the server's journal holds, asked with `device`'s sign-in."""
    return sum(1 for entry in journal(device, path) if not entry["conflict"])


def explain(a, b, path):
    """What each device's agent and the server's journal say of `path`, for a failure message."""
    lines = []
    for name, device in (("A", a), ("B", b)):
        try:
            listed = device.driver.execute_script(
                "return Promise.all([fetch('api/sicd'), fetch('api/list?folder=&offset=0&limit=50')]"
                ".map((answer) => answer.then((one) => one.text())))")
        except Exception as error:  # noqa: BLE001 - a failure message, whatever the page's state
            listed = error
        lines.append(f"{name}: connection {agent_connection(device.app)}, app's list {listed}")
        for state in glob.glob(os.path.join(device.app.home, "state", "quire", "sync", "*.sqlite")):
            lines.append(f"  {name} {os.path.basename(state)} touched "
                         f"{time.time() - os.stat(state).st_mtime:.1f} s ago")
            with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as database:
                database.row_factory = sqlite3.Row
                for table in ("synced", "remote", "status"):
                    rows = database.execute(f"SELECT * FROM {table}").fetchall()
                    lines += [f"  {name} {table}: {dict(row)}" for row in rows
                              if path in json.dumps(dict(row), default=str)
                              or table == "remote"]
        with open(device.log) as log:
            lines += [f"  {name} agent: {line.rstrip()}" for line in log.readlines()[-20:]]
    lines.append(f"server journal of {path}: {journal(a, path)}")
    return "\n".join(lines)


def pause(device, paused=True):
    subprocess.run([QUIRE, "sync", "pause" if paused else "resume"], env=device.app.env,
                   check=True, capture_output=True)


class SyncedAppsTests(unittest.TestCase):
    def test_a_conflict_from_another_device_shows_in_the_open_editor_and_resolves(self):
        server = SyncServer()
        a = Device("A", server)
        b = Device("B", server)
        try:
            with open(a.app.path("Note.txt"), "w") as handle:
                handle.write("base\n")
            wait_for(lambda: read(b.app.path("Note.txt")) == "base\n", seconds=30,
                     message="the note on device B")
            a.driver.get(a.app.url)
            a.driver.get(a.app.base + "#/doc/Note.txt")
            wait_for(lambda: a.text() == "base\n", message="A's editor")
            # Both devices change the one line while paused; A's change is older and loses.
            pause(a)
            pause(b)
            wait_for(lambda: agent_connection(a.app) == "paused", seconds=15, message="A paused")
            wait_for(lambda: agent_connection(b.app) == "paused", seconds=15, message="B paused")
            with open(a.app.path("Note.txt"), "w") as handle:
                handle.write("from A\n")
            past = time.time() - 60
            os.utime(a.app.path("Note.txt"), (past, past))
            with open(b.app.path("Note.txt"), "w") as handle:
                handle.write("from B\n")
            pause(b, False)
            wait_for(lambda: commits_of(b, "Note.txt") == 2, seconds=30, message="B's commit")
            pause(a, False)
            wait_for(lambda: a.text() == "from B\n", seconds=30, message="the newer edit in A's editor")
            banner = a.driver.find_element(By.CSS_SELECTOR, "#conflict")
            wait_for(banner.is_displayed, seconds=30, message="the conflict banner")
            self.assertIn("A changed this document at the same time",
                          a.driver.find_element(By.CSS_SELECTOR, "#conflict-message").text)
            # In the browser the item carries a conflict badge, and a click on it opens the
            # document with the versions in conflict side by side.
            a.driver.find_element(By.CSS_SELECTOR, "#done").click()
            conflict_badge = "document.querySelector(`.item[data-name='Note.txt'] .badge.conflict`)"
            wait_for(lambda: a.driver.execute_script(f"return {conflict_badge} !== null"), seconds=30,
                     message="the conflict badge in the browser")
            a.driver.execute_script(f"{conflict_badge}.click()")
            wait_for(lambda: a.driver.execute_script(
                "return document.querySelector('#versions-dialog').open"
                " && document.querySelectorAll('#compare-view .compare-column').length")
                == 2, seconds=15, message="the versions in conflict, side by side")
            a.driver.find_element(By.CSS_SELECTOR, "#versions-close").click()
            banner = a.driver.find_element(By.CSS_SELECTOR, "#conflict")
            wait_for(banner.is_displayed, seconds=30, message="the conflict banner again")
            a.driver.find_element(By.CSS_SELECTOR, "#keep-other").click()
            wait_for(lambda: not banner.is_displayed(), seconds=15, message="the banner to go")
            wait_for(lambda: read(a.app.path("Note.txt")) == "from A\n"
                     and read(b.app.path("Note.txt")) == "from A\n", seconds=30,
                     message="the kept version on both devices")
            wait_for(lambda: a.text() == "from A\n", seconds=15, message="A's editor to follow")
            self.assertEqual(a.script_errors(), [], "script errors in the page")
        finally:
            a.stop()
            b.stop()
            server.close()

    def test_a_webdav_lock_shows_in_the_open_documents_versions_panel(self):
        """While a WebDAV client holds a lock on a synced note, the note's Versions panel on a
        device says who holds it and that what is saved meanwhile is kept as a conflict
        version; an edit typed then is kept aside, and the editor's banner names the lock's
        owner; once unlocked, the panel says nothing of a lock."""
        server = SyncServer()
        a = Device("A", server)
        try:
            with open(a.app.path("Plan.txt"), "w") as handle:
                handle.write("draft\n")
            made = subprocess.run([QUIRE, "server", "app-password", "alice", "--label", "Word",
                                   "--data", server.data], check=True, capture_output=True, text=True)
            secret = made.stdout.strip().splitlines()[-1]
            authorization = "Basic " + base64.b64encode(f"alice:{secret}".encode()).decode()

            def dav(method, body=b"", headers=None):
                request = urllib.request.Request(server.url + "/dav/Plan.txt", method=method,
                                                 data=body, headers={"Authorization": authorization,
                                                                     **(headers or {})})
                try:
                    with urllib.request.urlopen(request) as answer:
                        return answer.status, answer.headers
                except urllib.error.HTTPError as error:
                    return error.code, error.headers

            wait_for(lambda: dav("HEAD")[0] == 200, seconds=30, message="the note on the server")
            status, headers = dav("LOCK", b'<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:">'
                                  b'<D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/>'
                                  b'</D:locktype><D:owner>Word on Ana&apos;s laptop</D:owner>'
                                  b'</D:lockinfo>', {"Depth": "0", "Timeout": "Second-600"})
            self.assertEqual(status, 200)
            a.driver.get(a.app.url)
            a.driver.get(a.app.base + "#/doc/Plan.txt")
            wait_for(lambda: a.text() == "draft\n", message="A's editor")
            notice = a.driver.find_element(By.CSS_SELECTOR, "#versions-lock")
            a.driver.find_element(By.CSS_SELECTOR, "#versions-button").click()
            wait_for(notice.is_displayed, seconds=15, message="the lock in the Versions panel")
            self.assertIn("Locked by Word on Ana's laptop until", notice.text)
            self.assertIn("kept as a conflict version", notice.text)
            a.driver.find_element(By.CSS_SELECTOR, "#versions-close").click()
            # Typed meanwhile, the edit is kept aside as a version, not applied over the lock,
            # and the editor's banner names the lock's owner, not device A.
            field = a.driver.find_element(By.CSS_SELECTOR, "#text")
            field.click()
            field.send_keys(" and more")
            banner = a.driver.find_element(By.CSS_SELECTOR, "#conflict")
            wait_for(banner.is_displayed, seconds=30, message="the conflict banner")
            message = a.driver.find_element(By.CSS_SELECTOR, "#conflict-message")
            wait_for(lambda: "Locked by Word on Ana's laptop in another app over WebDAV"
                     in message.text, seconds=30, message="the lock's owner in the banner")
            self.assertNotIn("A changed this document", message.text)
            with urllib.request.urlopen(urllib.request.Request(
                    server.url + "/dav/Plan.txt", headers={"Authorization": authorization})) as answer:
                self.assertEqual(answer.read(), b"draft\n", "the locked text stays current")
            self.assertEqual(dav("UNLOCK", headers={"Lock-Token": headers["Lock-Token"]})[0], 204)
            a.driver.find_element(By.CSS_SELECTOR, "#versions-button").click()
            wait_for(lambda: a.driver.execute_script(
                "return document.querySelector('#versions-dialog').open"
                " && document.querySelectorAll('#versions-list .version').length > 0"),
                seconds=15, message="the Versions panel again")
            self.assertFalse(notice.is_displayed(), "no lock once unlocked")
            self.assertEqual(a.script_errors(), [], "script errors in the page")
        finally:
            a.stop()
            server.close()

    def test_text_typed_on_one_device_appears_in_the_other_open_editor(self):
        server = SyncServer()
        a = Device("A", server)
        b = Device("B", server)
        try:
            with open(a.app.path("Note.txt"), "w") as handle:
                handle.write("hello")
            wait_for(lambda: read(b.app.path("Note.txt")) == "hello", seconds=30,
                     message="the note on device B")
            for device in (a, b):
                device.driver.get(device.app.url)  # the address with the token signs the page in
                device.driver.get(device.app.base + "#/doc/Note.txt")
                wait_for(lambda: device.text() == "hello", message="the editor")
            b.driver.execute_script("window.quireMarker = 'not reloaded'")

            field = a.driver.find_element(By.CSS_SELECTOR, "#text")
            field.click()
            field.send_keys(" from A")
            wait_for(lambda: b.text() == "hello from A", seconds=30,
                     message="A's typing in B's open editor")
            self.assertEqual(b.driver.execute_script("return window.quireMarker"), "not reloaded")
            wait_for(lambda: a.sync_line() == "alice · Up to date", seconds=15,
                     message="A's sync line to say it is up to date")
            wait_for(lambda: b.sync_line() == "alice · Up to date", seconds=15,
                     message="B's sync line")
            for device in (a, b):
                self.assertEqual(device.script_errors(), [], "script errors in the page")
        finally:
            a.stop()
            b.stop()
            server.close()


    def test_signing_in_and_out_from_the_page_starts_and_stops_syncing(self):
        server = SyncServer()
        a = Device("A", server)
        c = App("--autosave-delay", "0.3")
        driver = chromium()
        try:
            with open(a.app.path("From A.txt"), "w") as handle:
                handle.write("made on A")
            driver.get(c.url)
            line = lambda: driver.find_element(By.CSS_SELECTOR, "#sync-line").text
            wait_for(lambda: line() == "Sync off", message="the sync line of a device not signed in")

            def sign_in(password):
                driver.find_element(By.CSS_SELECTOR, "#sync-line").click()
                wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "#sync-dialog").is_displayed(),
                         message="the sync dialog")
                for field, value in (("#sync-server", server.url), ("#sync-user", "alice"),
                                     ("#sync-password", password)):
                    element = driver.find_element(By.CSS_SELECTOR, field)
                    element.clear()
                    element.send_keys(value)
                driver.find_element(By.CSS_SELECTOR, "#sync-sign-in").click()

            sign_in("wrong password")
            wait_for(lambda: "password" in driver.find_element(By.CSS_SELECTOR, "#sync-error").text,
                     message="the wrong password's error in the dialog")
            self.assertFalse(os.path.exists(os.path.join(c.home, "config", "quire", "sync.json")))
            driver.find_element(By.CSS_SELECTOR, "#sync-close").click()
            sign_in("alice-password")
            try:
                wait_for(lambda: read(c.path("From A.txt")) == "made on A", seconds=30,
                         message="A's document in the library of the device signed in from the page")
            except AssertionError as error:
                status = subprocess.run([QUIRE, "sync", "status", "--json", "--folder", c.library],
                                        env=c.env, capture_output=True, text=True)
                raise AssertionError(f"{error}; the agent's status: {status.stdout}{status.stderr}")
            wait_for(lambda: line() == "alice · Up to date", seconds=15, message="the sync line")

            # The item's badge comes live with the library's items: a document made while
            # syncing is paused waits, and once resumed it is uploaded and the badge goes.
            # The pause returns once the agent has stopped after the step in flight.
            subprocess.run([QUIRE, "sync", "pause"], env=c.env, check=True, capture_output=True)
            self.assertEqual(agent_connection(c), "paused")
            with open(c.path("Made on C.txt"), "w") as handle:
                handle.write("made on C")
            badge = lambda: driver.execute_script(
                "const li = [...document.querySelectorAll('#items .item')]"
                ".find((li) => li.dataset.name === 'Made on C.txt');"
                "return li ? (li.dataset.sync || 'current') : null")
            wait_for(lambda: badge() == "waiting", message="the waiting badge while paused")
            subprocess.run([QUIRE, "sync", "resume"], env=c.env, check=True, capture_output=True)
            wait_for(lambda: badge() == "current", seconds=30, message="the badge gone once uploaded")
            wait_for(lambda: read(a.app.path("Made on C.txt")) == "made on C", seconds=30,
                     message="C's document on A")

            driver.find_element(By.CSS_SELECTOR, "#sync-line").click()
            wait_for(lambda: driver.find_element(By.CSS_SELECTOR, "#sync-sign-out").is_displayed(),
                     message="the sign-out button")
            driver.find_element(By.CSS_SELECTOR, "#sync-sign-out").click()
            wait_for(lambda: line() == "Sync off", message="the sync line after signing out")
            locks = glob.glob(os.path.join(c.home, "state", "quire", "sync", "*.lock"))
            self.assertEqual(len(locks), 1, locks)
            wait_for(lambda: free(locks[0]), seconds=15, message="the agent to stop")
            errors = [entry["message"] for entry in driver.get_log("browser")
                      if entry.get("source") == "javascript"]
            self.assertEqual(errors, [], "script errors in the page")
        finally:
            driver.quit()
            c.stop()
            a.stop()
            server.close()


class OnDemandTests(unittest.TestCase):
    """Device B downloads on demand: A's documents are in the cloud on B until wanted."""

    def item(self, device, name):
        found = device.driver.find_elements(By.CSS_SELECTOR, f'.item[data-name="{name}"]')
        return found[0] if found else None

    def sync_state(self, device, name):
        item = self.item(device, name)
        return None if item is None else (item.get_attribute("data-sync") or "current")

    def click_action(self, device, name, action):
        item_action(device.driver, name, action)

    def test_documents_in_the_cloud_download_with_progress_and_evict(self):
        server = SyncServer()
        proxy = HoldingProxy(int(server.url.rsplit(":", 1)[1]))
        a = Device("A", server)
        b = Device("B", server, url=proxy.url, run=("--download", "on-demand"))
        try:
            with open(a.app.path("Notes.txt"), "w") as handle:
                handle.write("hello from the cloud\n")
            with open(a.app.path("Film.bin"), "wb") as handle:
                handle.write(os.urandom(20 << 20))  # over 8 MiB: the agent reports its progress
            staging = os.path.join(a.app.home, "Big.mydoc")
            os.makedirs(staging)
            with open(os.path.join(staging, "text.txt"), "w") as handle:
                handle.write("the big one\n")
            # A large image: a member in the cloud inside B's package, which opening the
            # document downloads (MyDoc shows its image), with the percent in the editor's bar.
            with open(os.path.join(staging, "image.png"), "wb") as handle:
                handle.write(noise_png(2400, 2400, seed=1))
            with open(os.path.join(staging, "notes.bin"), "wb") as handle:
                handle.write(os.urandom(4 << 20))
            os.rename(staging, a.app.path("Big.mydoc"))
            wait_for(lambda: os.path.exists(b.app.path(".Notes.txt.icloud"))
                     and os.path.exists(b.app.path(".Big.mydoc.icloud")), seconds=60,
                     message="the placeholders on B")
            self.assertFalse(os.path.exists(b.app.path("Notes.txt")))
            b.driver.get(b.app.url)
            wait_for(lambda: self.sync_state(b, "Notes.txt") == "notDownloaded", seconds=30,
                     message="Notes.txt in the cloud on B's page")
            self.assertEqual(self.sync_state(b, "Big.mydoc"), "notDownloaded")

            # Download from the item menu; then give the space back with Remove download.
            self.click_action(b, "Notes.txt", "download")
            wait_for(lambda: read(b.app.path("Notes.txt")) == "hello from the cloud\n", seconds=30,
                     message="the download on B's disk")
            wait_for(lambda: self.sync_state(b, "Notes.txt") == "current", seconds=30,
                     message="Notes.txt downloaded on B's page")
            self.click_action(b, "Notes.txt", "remove download")
            wait_for(lambda: self.sync_state(b, "Notes.txt") == "notDownloaded", seconds=30,
                     message="Notes.txt back in the cloud")
            self.assertFalse(os.path.exists(b.app.path("Notes.txt")))
            self.assertEqual(read(a.app.path("Notes.txt")), "hello from the cloud\n")

            # Sync at a glance: a cloud on what is only in the cloud, and a ring that fills while
            # a download runs (held part way by the proxy).
            def badge(name, kind):
                return b.driver.execute_script(
                    "const badge = document.querySelector(`.item[data-name='${arguments[0]}'] .badge.${arguments[1]}`);"
                    "return badge && [badge.getAttribute('aria-label'), badge.style.getPropertyValue('--percent')]",
                    name, kind)

            wait_for(lambda: badge("Notes.txt", "cloud") == ["In the cloud: not downloaded", ""],
                     message="the cloud badge")
            proxy.hold(after=12 << 20)  # the first 8 MiB of its chunks, not the rest
            self.click_action(b, "Film.bin", "download")
            wait_for(lambda: (badge("Film.bin", "ring") or ["", "0"])[0].startswith("Downloading, ")
                     and 0 < float(badge("Film.bin", "ring")[1] or 0) < 100, seconds=60,
                     message="the ring part full while Film.bin downloads")
            proxy.release()
            wait_for(lambda: self.sync_state(b, "Film.bin") == "current", seconds=60,
                     message="Film.bin downloaded")
            self.assertIsNone(badge("Film.bin", "ring"), "the ring gone once downloaded")

            # Opening the large one waits for the download of its image (not of notes.bin,
            # which MyDoc never reads), with the percent in the bar.
            proxy.hold(after=12 << 20)
            b.driver.get(b.app.base + "#/doc/Big.mydoc")
            opening = b.driver.find_element(By.CSS_SELECTOR, "#opening")
            wait_for(lambda: 0 < int(opening.get_attribute("data-percent") or 0) < 100,
                     seconds=60, message="the download's percent in the editor's bar")
            self.assertTrue(opening.is_displayed())
            proxy.release()
            wait_for(lambda: b.text() == "the big one\n", seconds=60, message="the opened document")
            big = b.app.path("Big.mydoc")
            self.assertTrue(os.path.exists(os.path.join(big, "image.png")))
            self.assertFalse(os.path.exists(os.path.join(big, "notes.bin")))
            self.assertTrue(os.path.exists(os.path.join(big, ".notes.bin.icloud")))

            # The sync dialog's setting back to "All documents": the agent downloads the rest.
            b.driver.get(b.app.url)
            b.driver.find_element(By.CSS_SELECTOR, "#sync-line").click()
            choice = Select(b.driver.find_element(By.CSS_SELECTOR, "#sync-download"))
            self.assertEqual(choice.first_selected_option.get_attribute("value"), "on-demand")
            choice.select_by_value("all")
            # The download is written first, then its placeholder goes: never neither.
            wait_for(lambda: read(b.app.path("Notes.txt")) == "hello from the cloud\n"
                     and not os.path.exists(b.app.path(".Notes.txt.icloud")), seconds=30,
                     message="the placeholder downloaded once the policy is all")
            self.assertEqual(b.script_errors(), [], "script errors in the page")
        finally:
            proxy.release()
            a.stop()
            b.stop()
            proxy.close()
            server.close()


class SimpleICloudDocumentTests(unittest.TestCase):
    """The SimpleiCloudDocument sample's conflict scenario, on two devices."""

    def conflict_button(self, device):
        """The Conflicts button's state; the list is re-drawn on every live update, so a button
        replaced between finding and reading it is found again."""
        for _ in range(50):
            buttons = device.driver.find_elements(
                By.CSS_SELECTOR, '.simple-doc[data-path="Trip.sicd"] .conflicts')
            try:
                return buttons[0].get_attribute("data-conflict") if buttons else None
            except StaleElementReferenceException:
                continue
        raise AssertionError("the list of documents was re-drawn 50 times in a row")

    def test_offline_edits_merge_and_a_conflict_resolves_the_samples_way(self):
        server = SyncServer()
        a = Device("A", server)
        b = Device("B", server)
        try:
            trip = a.app.path("Trip.sicd")
            os.makedirs(trip)
            for name, colour in [("one.png", (200, 0, 0)), ("two.png", (0, 200, 0)),
                                 ("three.png", (0, 0, 200))]:
                with open(os.path.join(trip, name), "wb") as handle:
                    handle.write(png(32, 32, colour))
            names = lambda device: sorted(os.listdir(device.app.path("Trip.sicd"))) \
                if os.path.isdir(device.app.path("Trip.sicd")) else None
            wait_for(lambda: names(b) == ["one.png", "three.png", "two.png"], seconds=30,
                     message="the document on B")
            for device in (a, b):
                device.driver.get(device.app.url)  # the token, as a cookie
                device.driver.get(device.app.base + "#/sicd")
                wait_for(lambda: self.conflict_button(device) == "false", seconds=15,
                         message=f"the document listed on {device.app.library}")

            # Both offline: A adds an image, B removes another; back online, both apply.
            for device in (a, b):
                pause(device)
                wait_for(lambda: agent_connection(device.app) == "paused", seconds=15,
                         message="paused")
            with open(os.path.join(trip, "four.png"), "wb") as handle:
                handle.write(png(32, 32, (90, 90, 90)))
            os.remove(b.app.path("Trip.sicd/two.png"))
            pause(a, False)
            pause(b, False)
            merged = ["four.png", "one.png", "three.png"]
            wait_for(lambda: names(a) == merged and names(b) == merged, seconds=30,
                     message="both changes on both devices")
            self.assertEqual([self.conflict_button(a), self.conflict_button(b)], ["false", "false"])

            # Both change the same image: B's later change is current, A's is a conflict
            # version, and both devices' Conflicts buttons turn red.
            for device in (a, b):
                pause(device)
                wait_for(lambda: agent_connection(device.app) == "paused", seconds=15,
                         message="paused")
            before = commits_of(b, "Trip.sicd")
            with open(os.path.join(trip, "one.png"), "wb") as handle:
                handle.write(png(32, 32, (255, 255, 0)))
            past = time.time() - 60
            os.utime(os.path.join(trip, "one.png"), (past, past))
            latest = png(32, 32, (0, 255, 255))
            with open(b.app.path("Trip.sicd/one.png"), "wb") as handle:
                handle.write(latest)
            pause(b, False)
            wait_for(lambda: commits_of(b, "Trip.sicd") == before + 1, seconds=30,
                     message="B's commit")
            pause(a, False)
            for device, name in ((a, "A"), (b, "B")):
                try:
                    wait_for(lambda: self.conflict_button(device) == "true", seconds=30,
                             message=f"the Conflicts button red on {name}")
                except AssertionError as error:
                    raise AssertionError(f"{error}\n{explain(a, b, 'Trip.sicd')}") from None
            a.driver.find_element(
                By.CSS_SELECTOR, '.simple-doc[data-path="Trip.sicd"] .conflicts').click()
            for device in (a, b):
                wait_for(lambda: self.conflict_button(device) == "false", seconds=30,
                         message="the conflict resolved on every device")
            def one(device):
                with open(device.app.path("Trip.sicd/one.png"), "rb") as handle:
                    return handle.read()

            wait_for(lambda: one(a) == latest and one(b) == latest, seconds=30,
                     message="the latest image on both devices")
            self.assertEqual(names(a), merged)
            self.assertEqual(names(b), merged)
            for device in (a, b):
                self.assertEqual(device.script_errors(), [], "script errors in the page")
        finally:
            a.stop()
            b.stop()
            server.close()


def free(lock):
    """Whether no agent holds the sync lock `lock` (the kernel drops it when the agent ends)."""
    with open(lock, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


if __name__ == "__main__":
    unittest.main()
