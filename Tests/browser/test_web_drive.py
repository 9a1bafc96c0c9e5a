"""The drive on the web (`/` of `quire server`), in a real headless Chromium against a real server
with two real devices (`quire sync run` agents on their own folders): an account signs in with
its password, uploads by the picker with progress, and what it uploads lands on both devices
byte for byte; a device's new file shows in the open page with no reload; text, images and
packages (with their thumbnails) preview; a package downloads as its zip; folders open and the
crumbs lead back; files and folders are renamed and moved into another folder (by drag or by
Move), never over another; a folder is shared from its row; an older version is restored, a
document is shared with an account and by a public link, and a deleted one comes back from the
trash; a read-only share offers no change, and its owner's changes show without a reload; and
the session is a cookie scripts cannot read, other sites cannot use, and signing out ends."""

import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import urllib.parse
import uuid
import zipfile

from selenium.webdriver.common.by import By

from support import QUIRE, SyncServer, axe_violations, chromium, page_state, png, wait_for
from test_webdav import CONTAINER, app_password, basic, quire_server, request


def app_password_of(server, user):
    """A new app password of `user`'s."""
    output = quire_server(server, "app-password", user, "--label", "web-drive")
    return [line.strip() for line in output.splitlines() if line.strip()][-1]


def commit_package(server, path, files):
    """Commits a package of `files` ({member path: bytes}) at `path` of the drive, as a device
    does (WebDAV makes folders, not packages)."""
    bearer = f"Bearer {server.sign_in()}"
    members, frames = [], b""
    for member, content in files.items():
        digest = hashlib.sha256(content).digest()
        frames += digest + len(content).to_bytes(4, "big") + content
        members.append({"path": member, "size": len(content), "mode": 0o644, "modified": 0,
                        "hash": digest.hex(), "chunks": [{"h": digest.hex(), "n": len(content)}]})
    status, _, body = request(server, "POST", "/v1/chunks", bearer, frames,
                              {"Content-Type": "application/octet-stream"})
    if status != 200:
        raise AssertionError(f"chunks: {status} {body[:300]!r}")
    commit = {"commit": str(uuid.uuid4()), "item": str(uuid.uuid4()), "kind": "package",
              "path": f"Documents/{path}", "base": None, "deleted": False,
              "change": {"upserted": members, "removed": []}}
    status, _, body = request(server, "POST", f"/v1/containers/{CONTAINER}/commits", bearer,
                              json.dumps(commit).encode(), {"Content-Type": "application/json"})
    if status != 201:
        raise AssertionError(f"commit: {status} {body[:300]!r}")


class Agent:
    """A device: `quire sync login` then `quire sync run` on a folder of its own."""

    def __init__(self, server, name):
        self.home = tempfile.mkdtemp(prefix="quire-web-drive-device-")
        self.folder = os.path.join(self.home, "Drive")
        os.makedirs(self.folder)
        self.env = dict(os.environ, **{
            key: os.path.join(self.home, key.lower())
            for key in ["XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"]
        }, XDG_RUNTIME_DIR=self.home)
        subprocess.run([QUIRE, "sync", "login", server.url, "--user", "alice", "--device", name],
                       input="alice-password\n", env=self.env, text=True, check=True,
                       capture_output=True)
        self.log = open(os.path.join(self.home, "agent.log"), "w")
        self.process = subprocess.Popen([QUIRE, "sync", "run", "--folder", self.folder],
                                        stdout=subprocess.PIPE, stderr=self.log, env=self.env,
                                        text=True)
        for line in self.process.stdout:
            if line.startswith("Syncing "):
                break
        else:
            raise AssertionError("quire sync run did not start: " + self.logged())

    def read(self, name):
        """The bytes of `name` in its folder, or None while it is not there."""
        try:
            with open(os.path.join(self.folder, name), "rb") as file:
                return file.read()
        except FileNotFoundError:
            return None

    def logged(self):
        with open(os.path.join(self.home, "agent.log")) as log:
            return log.read()[-3000:]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.process.stdout.close()
        self.log.close()
        shutil.rmtree(self.home, ignore_errors=True)


class WebDriveTests(unittest.TestCase):
    def setUp(self):
        self.server = SyncServer(users=("alice", "bob"))
        self.driver = chromium()
        self.files = tempfile.mkdtemp(prefix="quire-web-drive-files-")
        self.addCleanup(shutil.rmtree, self.files, ignore_errors=True)
        self.addCleanup(self.server.close)
        self.addCleanup(self.driver.quit)

    def css(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def names(self):
        return [element.get_attribute("data-name") for element in self.css("#items .item")]

    def sign_in(self, password="alice-password"):
        self.driver.get(self.server.url + "/")
        # 30 s, as for the devices: the page asks the server whether a session holds, and in CI
        # that answer once took longer than 10 s while two devices started beside it.
        wait_for(lambda: self.css("#sign-in") and self.css("#sign-in")[0].is_displayed(),
                 seconds=30, message=lambda: f"the sign-in form: {page_state(self.driver)}; "
                                 f"server: {self.server.logged()}")
        self.css("#user")[0].send_keys("alice")
        self.css("#password")[0].send_keys(password)
        self.css("#sign-in button[type=submit]")[0].click()

    def signed_in(self):
        self.sign_in()
        wait_for(lambda: self.css("#browser") and self.css("#browser")[0].is_displayed(),
                 message=lambda: f"the drive after signing in: {page_state(self.driver)}; "
                                 f"server: {self.server.logged()}")

    def write(self, name, content):
        path = os.path.join(self.files, name)
        with open(path, "wb") as file:
            file.write(content)
        return path

    def upload(self, *paths):
        self.css("#upload")[0].send_keys("\n".join(paths))

    def check_accessibility(self, where):
        """axe-core finds nothing to fix in the page as it is now."""
        self.assertEqual(axe_violations(self.driver), [], f"axe-core in {where}")

    def script_errors(self):
        return [entry["message"] for entry in self.driver.get_log("browser")
                if entry.get("source") == "javascript"]

    def test_an_upload_lands_on_both_devices_and_a_devices_file_shows_without_a_reload(self):
        first, second = Agent(self.server, "first"), Agent(self.server, "second")
        self.addCleanup(second.stop)
        self.addCleanup(first.stop)
        self.signed_in()
        self.assertEqual(self.css("#account")[0].text, "alice")

        content = b"Uploaded from a browser\n" + os.urandom(200_000)
        self.upload(self.write("From the web.bin", content))
        wait_for(lambda: "From the web.bin" in self.names(), message="the uploaded file listed")
        wait_for(lambda: not self.css("#work .job"), message="the upload's progress gone")
        self.assertFalse(self.css("#message")[0].is_displayed(), self.css("#message-text")[0].text)
        for device in (first, second):
            wait_for(lambda: device.read("From the web.bin") == content, seconds=30,
                     message=f"the upload on a device: {device.logged()}")

        self.driver.execute_script("window.sameDocument = true")
        with open(os.path.join(first.folder, "From a device.txt"), "w") as file:
            file.write("Written on a device\n")
        wait_for(lambda: "From a device.txt" in self.names(), seconds=30,
                 message=f"the device's file in the open page: {first.logged()}")
        self.assertTrue(self.driver.execute_script("return window.sameDocument === true"),
                        "the page was reloaded to show the device's file")
        self.assertEqual(self.script_errors(), [])

    def test_text_images_and_packages_preview_and_a_package_downloads_as_its_zip(self):
        authorization = basic("alice", app_password(self.server, "web-drive"))
        picture = png(3, 2, (200, 30, 30))
        for method, path, body in [
            ("MKCOL", "/dav/Notes/", b""),
            ("PUT", "/dav/Notes/read%20me.txt", b"A line of text\n"),
            ("PUT", "/dav/Notes/red.png", picture),
        ]:
            status, _, answer = request(self.server, method, path, authorization, body)
            self.assertLess(status, 300, answer[:300])
        commit_package(self.server, "Notes/Trip.mydoc", {
            "text.txt": b"In the package\n", "QuickLook/Thumbnail.png": png(4, 4, (30, 30, 200))})
        self.signed_in()
        wait_for(lambda: self.names() == ["Notes"], message="the drive's one folder")
        self.css('#items .item[data-name="Notes"] .name')[0].click()
        wait_for(lambda: self.names() == ["read me.txt", "red.png", "Trip.mydoc"],
                 message="the folder's listing")
        self.assertEqual([element.text for element in self.css("#crumbs a")], ["My Drive", "Notes"])
        kinds = [element.get_attribute("data-kind") for element in self.css("#items .item")]
        self.assertEqual(kinds, ["file", "file", "package"])
        wait_for(lambda: self.driver.execute_script(
            "const image = document.querySelector('.item[data-name=\"Trip.mydoc\"] img.thumbnail');"
            "return image !== null && image.complete && image.naturalWidth === 4"),
            message="the package's thumbnail in the list")
        self.assertEqual(self.css('.item[data-name="read me.txt"] img.thumbnail'), [])
        self.check_accessibility("the folder's listing")

        self.css('#items .item[data-name="read me.txt"] .name')[0].click()
        wait_for(lambda: self.css("#quicklook-text")[0].text == "A line of text",
                 message="the text's preview")
        self.check_accessibility("the text's preview")
        self.css("#quicklook-close")[0].click()
        self.css('#items .item[data-name="red.png"] .name')[0].click()
        wait_for(lambda: self.driver.execute_script(
            "const image = document.getElementById('quicklook-image');"
            "return !image.hidden && image.complete && image.naturalWidth === 3"),
            message="the image's preview")
        self.css("#quicklook-close")[0].click()
        self.css('#items .item[data-name="Trip.mydoc"] .name')[0].click()
        wait_for(lambda: "text.txt" in self.css("#quicklook-members")[0].text,
                 message="the package's members")
        wait_for(lambda: self.driver.execute_script(
            "const image = document.getElementById('quicklook-image');"
            "return !image.hidden && image.complete && image.naturalWidth === 4"),
            message="the package's thumbnail")
        link = self.css("#quicklook-download")[0].get_attribute("href")
        self.css("#quicklook-close")[0].click()

        # The link the page offers, fetched with the page's own session cookie.
        cookie = self.driver.get_cookie("quire_session")
        path = urllib.parse.urlparse(link)
        status, headers, body = request(self.server, "GET", f"{path.path}?{path.query}",
                                        headers={"Cookie": f"quire_session={cookie['value']}"})
        self.assertEqual(status, 200, body[:300])
        self.assertEqual(headers["Content-Type"], "application/zip")
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            self.assertEqual(archive.read("Trip.mydoc/text.txt"), b"In the package\n")

        self.css("#crumbs a")[0].click()
        wait_for(lambda: self.names() == ["Notes"], message="back in the drive by its crumb")
        self.assertEqual(self.script_errors(), [])

    def test_versions_restore_sharing_makes_links_and_the_trash_puts_a_deletion_back(self):
        authorization = basic("alice", app_password(self.server, "web-drive"))
        for content in (b"first draft\n", b"second draft\n"):
            status, _, body = request(self.server, "PUT", "/dav/Plan.txt", authorization, content)
            self.assertLess(status, 300, body[:300])
        self.signed_in()
        wait_for(lambda: self.names() == ["Plan.txt"], message="the document listed")

        # Its versions: the older one restored is the document's contents again.
        self.css('#items .item[data-name="Plan.txt"] .name')[0].click()
        self.css("#versions-button")[0].click()
        wait_for(lambda: len(self.css("#versions-list .version")) == 2, message="two versions")
        self.css("#versions-list .version button")[0].click()
        wait_for(lambda: len(self.css("#versions-list .version")) == 3, message="the restore")
        self.assertEqual(request(self.server, "GET", "/dav/Plan.txt", authorization)[2],
                         b"first draft\n")
        self.check_accessibility("the versions")

        # Shared with an account and by a public link, which any browser then opens.
        self.css("#share-button")[0].click()
        wait_for(lambda: self.css("#share-panel")[0].is_displayed(), message="the share panel")
        self.css("#share-user")[0].send_keys("bob")
        self.css("#share-form button[type=submit]")[0].click()
        wait_for(lambda: [li.get_attribute("data-user") for li in self.css("#share-list li")] == ["bob"],
                 message="the share with bob")
        self.css("#link-make")[0].click()
        wait_for(lambda: self.css("#link-url")[0].is_displayed(), message="the public link")
        link = urllib.parse.urlparse(self.css("#link-url")[0].get_attribute("href"))
        status, _, page = request(self.server, "GET", link.path)
        self.assertEqual(status, 200)
        self.assertIn(b"first draft", page)
        self.check_accessibility("the share panel")
        self.css("#link-stop")[0].click()
        wait_for(lambda: self.css("#link-make")[0].is_displayed(), message="the link stopped")
        self.assertEqual(request(self.server, "GET", link.path)[0], 404)
        self.css("#quicklook-close")[0].click()

        # Deleted, then put back from the trash with its last version.
        self.css('#items .item[data-name="Plan.txt"] .delete')[0].click()
        self.driver.switch_to.alert.accept()
        wait_for(lambda: self.names() == [], message="the deletion")
        self.css("#trash-place")[0].click()
        wait_for(lambda: [li.get_attribute("data-name") for li in self.css("#trash-items .item")]
                 == ["Plan.txt"], message="the deleted document in the trash")
        self.check_accessibility("the trash")
        self.css("#trash-items .item button")[0].click()
        wait_for(lambda: self.css("#trash-empty")[0].is_displayed(), message="the trash emptied")
        self.assertEqual(request(self.server, "GET", "/dav/Plan.txt", authorization)[2],
                         b"first draft\n")
        self.css('#sidebar [data-place=""]')[0].click()
        wait_for(lambda: self.names() == ["Plan.txt"], message="the document back in the drive")
        self.assertEqual(self.script_errors(), [])

    def test_a_rename_moves_a_file_or_a_folder_and_never_replaces_another(self):
        authorization = basic("alice", app_password(self.server, "web-drive"))
        for method, path, body in [("PUT", "/dav/Draft.txt", b"draft\n"),
                                   ("PUT", "/dav/Taken.txt", b"keep me\n"),
                                   ("MKCOL", "/dav/Old%20name/", b""),
                                   ("PUT", "/dav/Old%20name/inside.txt", b"inside\n")]:
            status, _, answer = request(self.server, method, path, authorization, body)
            self.assertEqual(status, 201, answer[:300])
        self.signed_in()
        wait_for(lambda: self.names() == ["Old name", "Draft.txt", "Taken.txt"], message="the drive")

        def rename(name, new_name):
            self.css(f'#items .item[data-name="{name}"] .rename')[0].click()
            prompt = self.driver.switch_to.alert
            prompt.send_keys(new_name)
            prompt.accept()

        rename("Draft.txt", "Final #1 50%.txt")
        wait_for(lambda: self.names() == ["Old name", "Final #1 50%.txt", "Taken.txt"],
                 message="the renamed file")
        self.assertEqual(
            request(self.server, "GET", "/dav/Final%20%231%2050%25.txt", authorization)[2],
            b"draft\n")
        rename("Old name", "New name")
        wait_for(lambda: self.names() == ["New name", "Final #1 50%.txt", "Taken.txt"],
                 message="the renamed folder")
        self.assertEqual(
            request(self.server, "GET", "/dav/New%20name/inside.txt", authorization)[2], b"inside\n")

        rename("Final #1 50%.txt", "Taken.txt")
        wait_for(lambda: self.css("#message")[0].is_displayed(), message="the refusal")
        self.assertIn("already", self.css("#message-text")[0].text)
        self.assertEqual(request(self.server, "GET", "/dav/Taken.txt", authorization)[2], b"keep me\n")
        self.assertEqual(self.names(), ["New name", "Final #1 50%.txt", "Taken.txt"])

    def test_a_row_moves_into_a_folder_by_drag_or_by_move_and_never_replaces_another(self):
        authorization = basic("alice", app_password(self.server, "web-drive"))
        for method, path, body in [("PUT", "/dav/Draft.txt", b"draft\n"),
                                   ("PUT", "/dav/Plan.txt", b"plan\n"),
                                   ("MKCOL", "/dav/Notes/", b""),
                                   ("MKCOL", "/dav/Notes/2026/", b""),
                                   ("PUT", "/dav/Notes/2026/Plan.txt", b"other plan\n")]:
            status, _, answer = request(self.server, method, path, authorization, body)
            self.assertEqual(status, 201, answer[:300])
        self.signed_in()
        wait_for(lambda: self.names() == ["Notes", "Draft.txt", "Plan.txt"], message="the drive")

        # Dragged onto the folder's row (Chromium's own drag events, with their DataTransfer).
        self.driver.execute_script("""
            const transfer = new DataTransfer();
            const fire = (element, type) => element.dispatchEvent(
              new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
            const row = document.querySelector('#items .item[data-name="Draft.txt"]');
            const folder = document.querySelector('#items .item[data-name="Notes"]');
            fire(row, "dragstart");
            fire(folder, "dragover");
            fire(folder, "drop");
            fire(row, "dragend");""")
        wait_for(lambda: self.names() == ["Notes", "Plan.txt"], message="the dragged file gone")
        self.assertEqual(request(self.server, "GET", "/dav/Notes/Draft.txt", authorization)[2],
                         b"draft\n")

        # Move, from the keyboard: the folder by its path; a name taken there is refused.
        def move(name, folder):
            self.css(f'#items .item[data-name="{name}"] .move')[0].click()
            prompt = self.driver.switch_to.alert
            prompt.send_keys(folder)
            prompt.accept()

        move("Plan.txt", "Notes/2026")
        wait_for(lambda: self.css("#message")[0].is_displayed(), message="the refusal")
        self.assertIn("already holds", self.css("#message-text")[0].text)
        self.assertEqual(request(self.server, "GET", "/dav/Notes/2026/Plan.txt", authorization)[2],
                         b"other plan\n")
        self.assertEqual(request(self.server, "GET", "/dav/Plan.txt", authorization)[2], b"plan\n")
        move("Plan.txt", "/Notes/")
        wait_for(lambda: self.names() == ["Notes"], message="the moved file gone")
        self.assertEqual(request(self.server, "GET", "/dav/Notes/Plan.txt", authorization)[2],
                         b"plan\n")

        # Inside the folder, a row dragged onto the crumb "My Drive" goes back to the top; a
        # folder cannot go inside itself.
        self.driver.get(self.server.url + "/#/Notes")
        wait_for(lambda: self.names() == ["2026", "Draft.txt", "Plan.txt"], message="Notes")
        self.driver.execute_script("""
            const transfer = new DataTransfer();
            const fire = (element, type) => element.dispatchEvent(
              new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
            const row = document.querySelector('#items .item[data-name="Draft.txt"]');
            const top = document.querySelector('#crumbs a');
            fire(row, "dragstart");
            fire(top, "dragover");
            fire(top, "drop");""")
        wait_for(lambda: self.names() == ["2026", "Plan.txt"], message="the file moved up")
        self.assertEqual(request(self.server, "GET", "/dav/Draft.txt", authorization)[2], b"draft\n")
        move("2026", "Notes/2026/deeper")
        wait_for(lambda: "inside itself" in self.css("#message-text")[0].text,
                 message="the refusal to move a folder into itself")
        self.assertEqual(self.names(), ["2026", "Plan.txt"])
        self.assertEqual(self.script_errors(), [], "script errors in the page")

    def test_a_folder_is_shared_from_its_row_with_everything_in_it(self):
        authorization = basic("alice", app_password(self.server, "web-drive"))
        for method, path, body in [("MKCOL", "/dav/Team/", b""),
                                   ("PUT", "/dav/Team/plan.txt", b"plan\n")]:
            status, _, answer = request(self.server, method, path, authorization, body)
            self.assertEqual(status, 201, answer[:300])
        bob = basic("bob", app_password_of(self.server, "bob"))

        def bobs_shares():
            status, _, body = request(self.server, "GET", "/dav/Shared%20with%20me/", bob,
                                      headers={"Accept": "application/json"})
            return [entry["name"] for entry in json.loads(body)["entries"]] if status == 200 else []

        self.signed_in()
        wait_for(lambda: self.names() == ["Team"], message="the folder")
        self.css('#items .item[data-name="Team"] .share')[0].click()
        wait_for(lambda: self.css("#share-panel")[0].is_displayed(), message="the folder's sharing")
        self.assertFalse(self.css("#link-line")[0].is_displayed(), "a folder has no public link")
        self.assertFalse(self.css("#quicklook-download")[0].is_displayed())
        self.css("#share-user")[0].send_keys("bob")
        self.css("#share-role option[value=write]")[0].click()
        self.css("#share-form button[type=submit]")[0].click()
        wait_for(lambda: [li.get_attribute("data-user") for li in self.css("#share-list li")] == ["bob"],
                 message="the share with bob listed")
        self.assertIn("can edit", self.css("#share-list li")[0].text)
        self.assertEqual(bobs_shares(), ["Team"])
        self.assertEqual(request(self.server, "GET", "/dav/Shared%20with%20me/Team/plan.txt", bob)[2],
                         b"plan\n")
        self.check_accessibility("a folder's sharing")

        self.css("#share-list li button")[0].click()
        wait_for(lambda: self.css("#share-list li") == [], message="the share stopped")
        self.assertEqual(bobs_shares(), [])
        self.assertEqual(self.script_errors(), [])

    def test_a_read_only_share_shows_under_shared_with_me_follows_its_owner_and_offers_no_change(self):
        bob = basic("bob", app_password_of(self.server, "bob"))
        status, _, body = request(self.server, "PUT", "/dav/Recipes.txt", bob, b"Soup\n")
        self.assertEqual(status, 201, body[:300])
        status, _, body = request(self.server, "GET", "/dav/", bob,
                                  headers={"Accept": "application/json"})
        item = json.loads(body)["entries"][0]["item"]
        token = self.server.sign_in_as("bob")
        status, _, body = request(
            self.server, "POST", f"/v1/containers/{CONTAINER}/items/{item}/shares",
            f"Bearer {token}", json.dumps({"user": "alice", "role": "read"}).encode(),
            {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body[:300])
        for method, path in [("MKCOL", "/dav/Family/"), ("MKCOL", "/dav/Family/Photos/"),
                             ("PUT", "/dav/Family/list.txt")]:
            status, _, body = request(self.server, method, path, bob, b"milk\n" if method == "PUT" else b"")
            self.assertEqual(status, 201, body[:300])
        status, _, body = request(
            self.server, "POST", f"/v1/containers/{CONTAINER}/shares", f"Bearer {token}",
            json.dumps({"user": "alice", "role": "read", "folder": "Family"}).encode(),
            {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body[:300])

        self.signed_in()
        wait_for(lambda: "Shared with me" in self.names(), message="Shared with me in the drive")
        self.css('#sidebar [data-place="Shared with me"]')[0].click()
        wait_for(lambda: self.names() == ["Family", "Recipes.txt"], message="bob's shares")
        self.assertEqual(self.css("#items .item .delete"), [])
        self.css('#items .item[data-name="Family"] .name')[0].click()
        wait_for(lambda: self.names() == ["Photos", "list.txt"], message="the shared folder")
        self.assertFalse(self.css("#upload-label")[0].is_displayed())
        # The owner's change inside the shared folder shows in the open page, with no reload.
        self.driver.execute_script("window.quireMarker = 'not reloaded'")
        status, _, body = request(self.server, "PUT", "/dav/Family/eggs.txt", bob, b"eggs\n")
        self.assertEqual(status, 201, body[:300])
        wait_for(lambda: self.names() == ["Photos", "eggs.txt", "list.txt"], seconds=15,
                 message="the owner's new file in the shared folder")
        self.assertEqual(self.driver.execute_script("return window.quireMarker"), "not reloaded")
        self.assertEqual(self.css("#items .item .delete"), [])
        self.css("#crumbs a")[1].click()
        wait_for(lambda: self.names() == ["Family", "Recipes.txt"], message="back in Shared with me")
        self.assertFalse(self.css("#upload-label")[0].is_displayed())
        self.assertFalse(self.css("#new-folder")[0].is_displayed())
        self.assertEqual(self.css("#items .item .delete"), [])
        self.css('#items .item[data-name="Recipes.txt"] .name')[0].click()
        wait_for(lambda: self.css("#quicklook-text")[0].text == "Soup", message="the shared text")
        self.assertFalse(self.css("#quicklook-delete")[0].is_displayed())
        self.assertFalse(self.css("#quicklook-tools")[0].is_displayed())
        self.assertEqual(self.script_errors(), [])

    def test_the_session_is_a_cookie_no_script_or_other_site_can_use_and_signing_out_ends_it(self):
        self.sign_in(password="wrong")
        wait_for(lambda: self.css("#message")[0].is_displayed(), message="the wrong password's error")
        self.assertIn("password", self.css("#message-text")[0].text.lower())
        self.assertFalse(self.css("#browser")[0].is_displayed())
        self.assertIsNone(self.driver.get_cookie("quire_session"))
        self.check_accessibility("the sign-in form")

        self.css("#password")[0].clear()
        self.css("#password")[0].send_keys("alice-password")
        self.css("#sign-in button[type=submit]")[0].click()
        wait_for(lambda: self.css("#browser")[0].is_displayed(), message="the drive")
        cookie = self.driver.get_cookie("quire_session")
        self.assertTrue(cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        self.assertEqual(self.driver.execute_script("return document.cookie"), "")
        session = {"Cookie": f"quire_session={cookie['value']}"}

        # A write with the session but from another site's page is refused, and writes nothing.
        status, _, body = request(self.server, "PUT", "/dav/forged.txt", body=b"forged",
                                  headers={**session, "Origin": "http://evil.example"})
        self.assertEqual(status, 403, body[:300])
        self.assertEqual(json.loads(body)["error"]["code"], "forbidden")
        status, _, _ = request(self.server, "GET", "/dav/forged.txt", headers=session)
        self.assertEqual(status, 404)

        self.css("#sign-out")[0].click()
        wait_for(lambda: self.css("#sign-in")[0].is_displayed(), message="the sign-in form again")
        status, headers, _ = request(self.server, "GET", "/dav/", headers={**session, "X-Quire-Web": "1"})
        self.assertEqual(status, 401, "the session still opens the drive after signing out")
        self.assertIsNone(headers["WWW-Authenticate"], "the page's request would prompt for Basic")
        self.driver.refresh()
        wait_for(lambda: self.css("#sign-in")[0].is_displayed(), message="signed out after a reload")
        self.assertEqual(self.script_errors(), [])


if __name__ == "__main__":
    unittest.main()
