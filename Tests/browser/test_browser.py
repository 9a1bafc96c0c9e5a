"""The Quire app in a real headless Chromium: the browser and the editors, against a real
`quire app` and real files. With QUIRE_SCREENSHOTS=DIR set, the tests also save screenshots."""

import base64
import os
import pathlib
import shutil
import subprocess
import tempfile
import unittest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import (
    ElementClickInterceptedException, ElementNotInteractableException, NoSuchElementException, StaleElementReferenceException)
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import support
from support import App, chromium, png, wait_for

SCREENSHOTS = os.environ.get("QUIRE_SCREENSHOTS")


class BrowserTestCase(unittest.TestCase):
    autosave = "0.3"

    @classmethod
    def setUpClass(cls):
        cls.app = App("--autosave-delay", cls.autosave)
        cls.driver = chromium()
        cls.files = tempfile.mkdtemp(prefix="quire-browser-files-")
        cls.driver.get(cls.app.url)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.app.stop()
        shutil.rmtree(cls.files, ignore_errors=True)

    def tearDown(self):
        # No script error in the page, whatever the test did.
        errors = [entry["message"] for entry in self.driver.get_log("browser")
                  if entry.get("source") == "javascript"]
        self.assertEqual(errors, [], "script errors in the page")

    # MARK: Helpers

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def items(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#items .item')].map((e) => e.dataset.name)")

    def item(self, name):
        return self.find(f'#items .item[data-name="{name}"]')

    def listed(self):
        """Every item the page has listed, in order: those whose rows are in the document and
        those of rows parked out of it, far from the view (chunks.js)."""
        return self.driver.execute_script(
            "return state.paths.map((path) => state.elements.get(path).dataset.name)")

    def browse(self, folder=""):
        self.driver.get(self.app.base + "#/folder/" + folder)
        wait_for(lambda: self.find("#browser").is_displayed(), message="the browser")

    def create(self, kind, name, expected=None):
        self.browse()
        self.find("#create").click()
        Select(self.find("#create-kind")).select_by_value(kind)
        field = self.find("#create-name")
        field.clear()
        field.send_keys(name)
        self.find("#create-ok").click()
        title = expected or name
        wait_for(lambda: self.find("#editor").is_displayed() and self.find("#doc-title").text == title,
                 message=f"the editor of {title}")

    def status(self):
        return self.find("#status").get_attribute("data-status")

    def wait_saved(self):
        wait_for(lambda: self.status() == "saved", message="the document to save itself")

    def choose_file(self, input_id, path):
        element = self.find(f"#{input_id}")
        self.driver.execute_script("arguments[0].hidden = false", element)
        element.send_keys(path)
        self.driver.execute_script("arguments[0].hidden = true", element)

    def answer_prompt(self, text):
        alert = wait_for(lambda: self._alert(), message="the prompt")
        alert.send_keys(text)
        alert.accept()

    def rename_in_place(self, text):
        """Types `text` over the whole of the name field that F2, the menu or a click on the
        selected name puts in place, and presses Enter."""
        field = wait_for(lambda: self.driver.execute_script(
            "const field = document.activeElement;"
            "return field && field.classList.contains('rename-field') ? field : null"),
            message="the name field")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(text, Keys.ENTER)

    def _alert(self):
        try:
            return self.driver.switch_to.alert
        except Exception:
            return None

    def action(self, name, action):
        support.item_action(self.driver, name, action)

    def click(self, css):
        """Clicks what matches `css` now (live updates may have replaced an element found earlier)."""
        def attempt():
            try:
                element = self.find(css)
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
                element.click()
                return True
            except (StaleElementReferenceException, NoSuchElementException,
                    ElementClickInterceptedException):
                return False  # replaced, not there yet, or still moving into place
        wait_for(attempt, message=css)

    def screenshot(self, name):
        if SCREENSHOTS:
            os.makedirs(SCREENSHOTS, exist_ok=True)
            wait_for(lambda: self.driver.execute_script("return document.getAnimations().length === 0"),
                     message="animations to finish")
            self.driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))

    def write_file(self, name, data):
        path = os.path.join(self.files, name)
        with open(path, "wb") as handle:
            handle.write(data)
        return path


class BrowserTests(BrowserTestCase):
    def test_1_mydoc_text_image_undo_redo_and_autosave(self):
        self.create("mydoc", "Trip")
        text = self.find("#text")
        text.send_keys("Day one")
        self.wait_saved()
        package = self.app.path("Trip.mydoc")
        with open(os.path.join(package, "text.txt")) as handle:
            self.assertEqual(handle.read(), "Day one")
        self.choose_file("image-input", self.write_file("red.png", png(40, 30, (220, 40, 40))))
        wait_for(lambda: self.find("#doc-image").is_displayed(), message="the image")
        self.wait_saved()
        with open(os.path.join(package, "image.png"), "rb") as handle:
            self.assertTrue(handle.read().startswith(b"\x89PNG"))
        # Undo and redo, with the buttons and with the shortcuts.
        text.send_keys(", then two")
        wait_for(lambda: self.find("#undo").is_enabled() and self.status() == "saved", message="the edit")
        self.find("#undo").click()
        wait_for(lambda: text.get_attribute("value") == "Day one", message="undo")
        self.find("#redo").click()
        wait_for(lambda: text.get_attribute("value") == "Day one, then two", message="redo")
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(lambda: text.get_attribute("value") == "Day one", message="Ctrl+Z")
        ActionChains(self.driver).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z") \
            .key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
        wait_for(lambda: text.get_attribute("value") == "Day one, then two", message="Ctrl+Shift+Z")
        self.wait_saved()
        with open(os.path.join(package, "text.txt")) as handle:
            self.assertEqual(handle.read(), "Day one, then two")
        self.screenshot("editor-mydoc")
        self.find("#done").click()
        wait_for(lambda: "Trip.mydoc" in self.items(), message="back in the browser")
        # The thumbnail rewritten at save shows the new image.
        image = wait_for(lambda: self.item("Trip.mydoc").find_elements(By.CSS_SELECTOR, ".thumb img"),
                         message="the thumbnail")[0]
        self.assertGreater(int(image.get_attribute("naturalWidth")), 0)

    def test_2_text_and_album_documents(self):
        self.create("text", "Notes")
        self.find("#text").send_keys("first line")
        self.wait_saved()
        with open(self.app.path("Notes.txt")) as handle:
            self.assertEqual(handle.read(), "first line")
        self.screenshot("editor-text")
        self.create("album", "Holiday")
        for name, colour in [("sea.png", (30, 90, 200)), ("sand.png", (230, 200, 120))]:
            self.choose_file("album-input", self.write_file(name, png(64, 48, colour)))
            wait_for(lambda: name in [e.get_attribute("data-name") for e in
                                      self.driver.find_elements(By.CSS_SELECTOR, "#album .item")],
                     message=f"{name} in the album")
        self.wait_saved()
        self.assertEqual(sorted(os.listdir(self.app.path("Holiday.album"))), ["sand.png", "sea.png"])
        self.screenshot("editor-album")
        self.click('#album .item[data-name="sea.png"] button:not(.open)')
        wait_for(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#album .item")) == 1,
                 message="the image removed")
        self.wait_saved()
        self.assertEqual(os.listdir(self.app.path("Holiday.album")), ["sand.png"])
        self.find("#done").click()

    def test_3_a_name_clash_gets_a_unique_name(self):
        self.create("text", "Twin")
        self.create("text", "Twin", expected="Twin 2")
        self.assertTrue(os.path.exists(self.app.path("Twin 2.txt")))

    def test_4_rename_tag_delete_and_restore(self):
        with open(self.app.path("Draft.txt"), "w") as handle:
            handle.write("draft")
        self.browse()
        wait_for(lambda: "Draft.txt" in self.items(), message="Draft.txt listed")
        self.action("Draft.txt", "rename")
        self.rename_in_place("Final.txt")
        wait_for(lambda: "Final.txt" in self.items() and "Draft.txt" not in self.items(), message="the rename")
        self.assertTrue(os.path.exists(self.app.path("Final.txt")))
        self.action("Final.txt", "tag")
        self.answer_prompt("work, urgent")
        wait_for(lambda: [s.text for s in self.item("Final.txt").find_elements(By.CSS_SELECTOR, ".tags span")]
                 == ["work", "urgent"], message="the tags shown")
        self.assertEqual(os.getxattr(self.app.path("Final.txt"), "user.xdg.tags"), b"work,urgent")
        self.action("Final.txt", "delete")
        wait_for(lambda: "Final.txt" not in self.items(), message="the delete")
        trash = os.path.join(self.app.home, "data", "Trash")
        self.assertIn("Final.txt", os.listdir(os.path.join(trash, "files")))
        self.assertIn("Final.txt.trashinfo", os.listdir(os.path.join(trash, "info")))
        self.find("#trash-button").click()
        self.click("#trash-list button")
        self.find("#trash-close").click()
        wait_for(lambda: "Final.txt" in self.items(), message="the restore")
        with open(self.app.path("Final.txt")) as handle:
            self.assertEqual(handle.read(), "draft")

    def test_5_import_and_export_an_archive(self):
        source = os.path.join(self.files, "Postcard.mydoc")
        os.makedirs(source)
        with open(os.path.join(source, "text.txt"), "w") as handle:
            handle.write("Greetings")
        with open(os.path.join(source, "image.png"), "wb") as handle:
            handle.write(png(16, 16, (0, 160, 80)))
        subprocess.run(["zip", "-qr", "Postcard.zip", "Postcard.mydoc"], cwd=self.files, check=True)
        self.browse()
        self.choose_file("import", os.path.join(self.files, "Postcard.zip"))
        wait_for(lambda: "Postcard.mydoc" in self.items(), message="the imported document")
        with open(self.app.path("Postcard.mydoc/text.txt")) as handle:
            self.assertEqual(handle.read(), "Greetings")
        # It came without a thumbnail of its own: the app draws one from its image.
        wait_for(lambda: self.driver.execute_script(
            "const i = document.querySelector('#items .item[data-name=\"Postcard.mydoc\"] .thumb img');"
            "return i && i.complete && i.naturalWidth > 0"), message="the imported document's thumbnail")
        exported = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch('api/export?path=Postcard.mydoc').then((r) => r.arrayBuffer()).then((b) => {
              let s = ''; for (const x of new Uint8Array(b)) s += String.fromCharCode(x); done(btoa(s));
            });""")
        archive = self.write_file("exported.zip", base64.b64decode(exported))
        listing = subprocess.run(["unzip", "-l", archive], capture_output=True, text=True, check=True).stdout
        self.assertIn("Postcard.mydoc/text.txt", listing)
        self.assertIn("Postcard.mydoc/image.png", listing)

    def test_6_changes_on_disk_show_up_live(self):
        with open(self.app.path("Live.txt"), "w") as handle:
            handle.write("version one")
        self.browse()
        wait_for(lambda: "Live.txt" in self.items(), seconds=3, message="a file made by another program")
        self.screenshot("browser")
        # A change by another program updates the item in place.
        subprocess.run(["cp", self.write_file("v1b.txt", b"version one, but longer now"),
                        self.app.path("Live.txt")], check=True)
        wait_for(lambda: self.driver.execute_script(
            "const e = document.querySelector('#items .item[data-name=\"Live.txt\"] .meta');"
            "return e && e.textContent.endsWith('27 B')"), seconds=3, message="the new size shown")
        # `cp` over the document: the editor reloads it.
        support.open_item(self.driver, "Live.txt")
        text = wait_for(lambda: self.find("#text") if self.find("#text").is_displayed() else None,
                        message="the editor")
        wait_for(lambda: text.get_attribute("value") == "version one, but longer now", message="the text")
        subprocess.run(["cp", self.write_file("v2.txt", b"version two, from cp"), self.app.path("Live.txt")],
                       check=True)
        wait_for(lambda: text.get_attribute("value") == "version two, from cp", seconds=3,
                 message="the editor to reload")
        self.find("#done").click()
        wait_for(lambda: "Live.txt" in self.items(), message="the browser")
        os.remove(self.app.path("Live.txt"))
        wait_for(lambda: "Live.txt" not in self.items(), seconds=3, message="a deletion by another program")

    def test_8_a_dropped_file_is_imported(self):
        self.browse()
        self.driver.execute_script("""
            const transfer = new DataTransfer();
            transfer.items.add(new File(['dropped text'], 'Dropped.txt', { type: 'text/plain' }));
            document.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
            document.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        """)
        wait_for(lambda: "Dropped.txt" in self.items(), message="the dropped file")
        with open(self.app.path("Dropped.txt")) as handle:
            self.assertEqual(handle.read(), "dropped text")
        self.assertFalse(self.find("#drop").is_displayed())

    def test_9_a_big_folder_is_paged_and_only_thumbnails_near_the_view_load(self):
        folder = self.app.path("Big")
        os.makedirs(folder)
        thumbnail = png(32, 32, (90, 90, 90))
        for index in range(450):
            package = os.path.join(folder, f"Doc {index:03}.mydoc")
            os.makedirs(os.path.join(package, "QuickLook"))
            for name in ["image.png", "QuickLook/Thumbnail.png"]:
                with open(os.path.join(package, name), "wb") as handle:
                    handle.write(thumbnail)
        # The library takes in what another program wrote (that is tested elsewhere); then the page.
        wait_for(lambda: self.app.api("GET", "/api/list?folder=Big&limit=1")["total"] == 450,
                 seconds=60, message="the app to list the 450 new documents")
        self.driver.execute_script("performance.clearResourceTimings()")
        self.browse("Big")
        wait_for(lambda: len(self.listed()) == 200, message="the first page")
        requested = lambda: self.driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter((e) => e.name.includes('api/thumbnail')).length")
        wait_for(lambda: requested() > 0, message="the visible thumbnails")
        # Those of the rows near the view are: a fast scroll finds them drawn.
        self.assertLess(requested(), 200, "thumbnails far below the view are not fetched")
        self.assertFalse(self.driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".some((e) => e.name.includes('api/thumbnail') && e.name.includes('199.mydoc'))"),
            "the first page's last thumbnail is not fetched")
        for expected in (400, 450):
            self.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
            wait_for(lambda: len(self.listed()) == expected, message=f"{expected} items after scrolling")
        self.assertEqual(self.listed()[-1], "Doc 449.mydoc")
        # Flung down at 900 px a frame (the bench's pace), faster than thumbnails could be seen,
        # the view asks for none while it flies; once it rests, for those near it (flying.js).
        # From its third step on it is flying: the first two are measured against the last
        # scroll, long before. (The fling starts at the top and rests in rows never shown.)
        self.driver.execute_script("window.scrollTo(0, 0)")
        fling = self.driver.execute_async_script("""
            const done = arguments[0];
            let frames = 0, from = 0;
            const step = () => {
              frames += 1;
              if (frames === 3) from = performance.now();
              window.scrollBy(0, 900);
              if (frames < 12) requestAnimationFrame(step); else done({ from, to: performance.now() });
            };
            requestAnimationFrame(step);""")
        asked = lambda start, end: self.driver.execute_script(
            "return performance.getEntriesByType('resource').filter((e) => e.name.includes('api/thumbnail')"
            " && e.startTime >= arguments[0] && e.startTime <= arguments[1]).length", start, end)
        wait_for(lambda: asked(fling["to"], 1e12) > 0, message="the thumbnails where the view rests")
        self.assertEqual(asked(fling["from"], fling["to"]), 0, "thumbnails asked for while the view flew")

    def test_10_move_duplicate_search_filter_and_recents(self):
        os.makedirs(self.app.path("Archive"), exist_ok=True)
        for name, text in [("Alpha.txt", "a"), ("Beta.txt", "b")]:
            with open(self.app.path(name), "w") as handle:
                handle.write(text)
        # Opening a document puts it in Recents.
        self.driver.get(self.app.base + "#/doc/Alpha.txt")
        wait_for(lambda: self.find("#text").get_attribute("value") == "a", message="Alpha open")
        self.find("#done").click()
        recents = lambda: self.driver.execute_script(
            "return [...document.querySelectorAll('#recents .item')].map((e) => e.dataset.name)")
        wait_for(lambda: recents() and recents()[0] == "Alpha.txt", message="Alpha in Recents")
        self.action("Beta.txt", "duplicate")
        wait_for(lambda: "Beta copy.txt" in self.items(), message="the duplicate")
        self.action("Alpha.txt", "move")
        self.answer_prompt("Archive")
        wait_for(lambda: "Alpha.txt" not in self.items(), message="the move")
        self.assertTrue(os.path.exists(self.app.path("Archive/Alpha.txt")))
        # Recents follow the document (bookmarks, not paths).
        wait_for(lambda: recents() and recents()[0] == "Alpha.txt", message="Alpha still in Recents")
        self.click('#recents .item[data-name="Alpha.txt"] .open')
        wait_for(lambda: self.find("#editor").is_displayed() and self.find("#text").get_attribute("value") == "a",
                 message="Alpha opened from Recents after the move")
        self.find("#done").click()
        wait_for(lambda: self.find("#browser").is_displayed(), message="the browser")
        self.browse()
        # Search looks through every folder; the type filter keeps one kind.
        self.find("#search").send_keys("alpha")
        wait_for(lambda: self.items() == ["Alpha.txt"], message="the search")
        self.find("#search").clear()
        self.find("#search").send_keys(Keys.BACKSPACE)
        Select(self.find("#kind")).select_by_value("folder")
        wait_for(lambda: self.items() and all(n in ("Archive", "Big") for n in self.items()), message="the type filter")
        Select(self.find("#kind")).select_by_value("")

    def test_11_a_failed_save_shows_the_error_and_retry_saves(self):
        folder = self.app.path("Stuck")
        os.makedirs(folder)
        with open(os.path.join(folder, "Fail.txt"), "w") as handle:
            handle.write("start")
        self.driver.get(self.app.base + "#/doc/Stuck/Fail.txt")
        text = wait_for(lambda: self.find("#text") if self.find("#text").get_attribute("value") == "start" else None,
                        message="the editor")
        # An immutable folder refuses the save's new file, even to root.
        if subprocess.run(["chattr", "+i", folder], capture_output=True).returncode != 0:
            self.skipTest("chattr +i is not permitted here, so no save can be made to fail")
        try:
            text.send_keys(" and more")
            wait_for(lambda: self.status() == "error", seconds=15, message="the save error")
            self.assertTrue(self.find("#retry").is_displayed())
            self.assertIn("Not saved", self.find("#status").text)
        finally:
            subprocess.run(["chattr", "-i", folder], check=True)
        try:
            self.find("#retry").click()
        except (ElementNotInteractableException, ElementClickInterceptedException):
            pass  # the document's own retry got there first (the button hid as it was clicked)
        self.wait_saved()
        with open(os.path.join(folder, "Fail.txt")) as handle:
            self.assertEqual(handle.read(), "start and more")
        self.find("#done").click()

    def test_12_a_document_outside_the_library_opens_in_place(self):
        document = self.write_file("Elsewhere.txt", b"far away")
        out = subprocess.run([os.environ.get("QUIRE_BIN", support.QUIRE), "open", "--print-only", document],
                             env=self.app.env, check=True, capture_output=True, text=True).stdout.strip()
        self.driver.get(out.replace(self.app.url, self.app.base))
        text = wait_for(lambda: self.find("#text") if self.find("#text").get_attribute("value") == "far away" else None,
                        message="the editor on the outside document")
        self.assertEqual(self.find("#doc-title").text, "Elsewhere")
        text.send_keys(", edited")
        self.wait_saved()
        with open(document) as handle:
            self.assertEqual(handle.read(), "far away, edited")
        self.find("#done").click()
        wait_for(lambda: self.find("#browser").is_displayed(), message="back in the library")

    def test_13_closing_the_tab_right_after_typing_keeps_the_keystrokes(self):
        with open(self.app.path("Quick.txt"), "w") as handle:
            handle.write("quick")
        self.driver.get(self.app.base + "#/doc/Quick.txt")
        text = wait_for(lambda: self.find("#text") if self.find("#text").get_attribute("value") == "quick" else None,
                        message="the editor")
        text.send_keys(" brown fox")
        self.driver.get("about:blank")  # at once: well within the pause that ends an edit
        wait_for(lambda: pathlib.Path(self.app.path("Quick.txt")).read_text() == "quick brown fox",
                 message="the last keystrokes saved")
        self.driver.get(self.app.base)

    def test_14_versions_panel_opens_restores_and_copies_a_version(self):
        # Whatever happens, the panel does not stay open over the tests after this one.
        self.addCleanup(self.driver.execute_script,
                        "document.querySelectorAll('dialog[open]').forEach((d) => d.close())")
        self.create("text", "History")
        text = self.find("#text")
        for words in ["one", "two", "three"]:
            text.send_keys(Keys.CONTROL, "a")
            text.send_keys(words)
            wait_for(lambda: pathlib.Path(self.app.path("History.txt")).read_text() == words, message=f"“{words}” saved")
            self.wait_saved()
        self.find("#versions-button").click()
        wait_for(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#versions-list .version")) >= 3,
                 message="the versions listed")
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#versions-list .version")
        self.assertIn("current", rows[0].text)
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, "#versions-list .version img")), len(rows))
        # Open each older version read-only until the one holding “one”.
        found = None
        for row in rows[1:]:
            row.find_element(By.XPATH, ".//button[text()='Open']").click()
            wait_for(lambda: self.find("#version-view").is_displayed(), message="the version shown")
            wait_for(lambda: self.find("#version-view-title").text.endswith("(read-only)"), message="its title")
            if self.find("#version-view-text").text == "one":
                found = row.get_attribute("data-id")
                break
        self.assertIsNotNone(found, "the first save is among the versions")
        self.screenshot("versions-panel")
        row = self.find(f'#versions-list .version[data-id="{found}"]')
        row.find_element(By.XPATH, ".//button[text()='Save a copy']").click()
        wait_for(lambda: self.find("#version-view-title").text.startswith("Saved as"), message="the copy saved")
        copies = [name for name in os.listdir(self.app.library) if name.startswith("History (version of ")]
        self.assertEqual(len(copies), 1, os.listdir(self.app.library))
        with open(self.app.path(copies[0])) as handle:
            self.assertEqual(handle.read(), "one")
        row.find_element(By.XPATH, ".//button[text()='Restore']").click()
        wait_for(lambda: not self.find("#versions-dialog").is_displayed(), message="the panel closed")
        wait_for(lambda: text.get_attribute("value") == "one", message="the editor shows the restored text")
        self.assertEqual(open(self.app.path("History.txt")).read(), "one")
        # What the restore replaced is itself a version now.
        self.find("#versions-button").click()
        count = len(rows)
        wait_for(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#versions-list .version")) > count,
                 message=lambda: "the replaced text kept as a version: " + self.find("#message-text").text
                 + " | ".join(e.text for e in self.driver.find_elements(By.CSS_SELECTOR, "#versions-list .version")))
        self.find("#versions-close").click()
        self.find("#done").click()

    def test_7_a_read_only_document_cannot_be_edited(self):
        path = self.app.path("Locked.txt")
        with open(path, "w") as handle:
            handle.write("do not touch")
        os.chmod(path, 0o444)
        self.driver.get(self.app.base + "#/doc/Locked.txt")
        wait_for(lambda: self.find("#lock").is_displayed(), message="the lock")
        text = self.find("#text")
        self.assertEqual(text.get_attribute("readonly"), "true")
        text.send_keys("more")
        self.assertEqual(text.get_attribute("value"), "do not touch")
        self.assertFalse(self.find("#image-button").is_displayed())
        os.chmod(path, 0o644)
        self.find("#done").click()


class ConflictTests(BrowserTestCase):
    autosave = "600"  # edits stay unsaved while another program writes

    def test_keep_both_after_an_outside_change_with_unsaved_edits(self):
        with open(self.app.path("Shared.txt"), "w") as handle:
            handle.write("original")
        self.driver.get(self.app.base + "#/doc/Shared.txt")
        text = wait_for(lambda: self.find("#text") if self.find("#text").is_displayed() else None,
                        message="the editor")
        wait_for(lambda: text.get_attribute("value") == "original", message="the text")
        text.send_keys(" plus mine")
        wait_for(lambda: self.find("#undo").is_enabled(), message="the edit to reach the document")
        subprocess.run(["cp", self.write_file("theirs.txt", b"theirs"), self.app.path("Shared.txt")], check=True)
        wait_for(lambda: self.find("#conflict").is_displayed(), seconds=5, message="the conflict")
        self.screenshot("editor-conflict")
        # Compared side by side: this window's text beside the other program's.
        self.find("#compare").click()
        wait_for(lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#compare-view .compare-column")) == 2,
                 message="two columns")
        columns = [c.text for c in self.driver.find_elements(By.CSS_SELECTOR, "#compare-view .compare-column pre")]
        self.assertEqual(columns, ["original plus mine", "theirs"])
        self.screenshot("editor-conflict-compare")
        self.find("#versions-close").click()
        self.find("#keep-both").click()
        wait_for(lambda: not self.find("#conflict").is_displayed(), message="the resolution")
        wait_for(lambda: os.path.exists(self.app.path("Shared (conflicted copy).txt")), message="the other copy")
        with open(self.app.path("Shared (conflicted copy).txt")) as handle:
            self.assertEqual(handle.read(), "theirs")
        self.assertEqual(text.get_attribute("value"), "original plus mine")
        self.find("#done").click()  # closing saves the edits
        wait_for(lambda: pathlib.Path(self.app.path("Shared.txt")).read_text() == "original plus mine",
                 message="mine saved on close")

    def test_keep_the_other_version(self):
        with open(self.app.path("Other.txt"), "w") as handle:
            handle.write("base")
        self.driver.get(self.app.base + "#/doc/Other.txt")
        text = wait_for(lambda: self.find("#text") if self.find("#text").is_displayed()
                        and self.find("#text").get_attribute("value") == "base" else None,
                        message="the editor")
        text.send_keys(" with my edit")
        wait_for(lambda: self.find("#undo").is_enabled(), message="the edit to reach the document")
        subprocess.run(["cp", self.write_file("other.txt", b"their version"), self.app.path("Other.txt")], check=True)
        wait_for(lambda: self.find("#conflict").is_displayed(), seconds=5, message="the conflict")
        self.find("#keep-other").click()
        wait_for(lambda: text.get_attribute("value") == "their version", message="their version shown")
        self.assertFalse(self.find("#conflict").is_displayed())
        self.find("#done").click()
        wait_for(lambda: self.find("#browser").is_displayed(), message="the browser")
        with open(self.app.path("Other.txt")) as handle:
            self.assertEqual(handle.read(), "their version")
        self.assertFalse(os.path.exists(self.app.path("Other (conflicted copy).txt")))


if __name__ == "__main__":
    unittest.main()
