"""The conventions people expect of a file browser, in the Quire app in a real headless Chromium:
selection and the keyboard, the context menu, names, Quick Look and the info panel, Undo, drag
and drop, the sidebar, dark mode and a phone's width, with axe-core checking accessibility."""

import os
import unittest

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import support
from support import texts, wait_for
from test_browser import BrowserTestCase


class FileBrowserConventionTests(BrowserTestCase):
    def press_undo(self, redo=False):
        """Ctrl+Z, or Ctrl+Shift+Z with `redo`."""
        chain = ActionChains(self.driver).key_down(Keys.CONTROL)
        if redo:
            chain = chain.key_down(Keys.SHIFT)
        chain = chain.send_keys("z")
        if redo:
            chain = chain.key_up(Keys.SHIFT)
        chain.key_up(Keys.CONTROL).perform()

    def test_1_the_keyboard_alone_selects_opens_renames_and_moves(self):
        folder = self.app.path("Keys")
        os.makedirs(os.path.join(folder, "Box"))
        for name in ("Alpha.txt", "Beta.txt", "Gamma.txt"):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(name)
        self.browse("Keys")
        wait_for(lambda: sorted(self.items()) == ["Alpha.txt", "Beta.txt", "Box", "Gamma.txt"],
                 message="the folder listed")
        names = self.items()

        def selected():
            return self.driver.execute_script(
                "return [...document.querySelectorAll('#items .item[aria-selected=true]')]"
                ".map((e) => e.dataset.name)")

        def focused():
            return self.driver.execute_script("return document.activeElement.dataset.name || null")

        def keys(*sequence, shift=False):
            chain = ActionChains(self.driver)
            if shift:
                chain = chain.key_down(Keys.SHIFT)
            chain = chain.send_keys(*sequence)
            if shift:
                chain = chain.key_up(Keys.SHIFT)
            chain.perform()

        # A click selects; the arrows move, Shift extends, Escape clears, Home and End jump.
        self.item(names[0]).click()
        wait_for(lambda: selected() == [names[0]] and focused() == names[0], message="a click selects")
        keys(Keys.ARROW_RIGHT)
        wait_for(lambda: selected() == [names[1]] and focused() == names[1], message="→ moves")
        keys(Keys.ARROW_RIGHT, shift=True)
        wait_for(lambda: selected() == names[1:3] and focused() == names[2], message="Shift+→ extends")
        keys(Keys.ESCAPE)
        wait_for(lambda: selected() == [], message="Escape clears")
        keys(Keys.END)
        wait_for(lambda: selected() == [names[-1]], message="End")
        keys(Keys.HOME)
        wait_for(lambda: selected() == [names[0]], message="Home")
        # Typing a name selects it; F2 renames it, and it stays selected and focused.
        keys("g")
        wait_for(lambda: selected() == ["Gamma.txt"] and focused() == "Gamma.txt", message="typed “g”")
        keys(Keys.F2)
        # The field opens once the key is handled (a busy machine may take a few frames).
        field = lambda: self.driver.execute_script(
            "const f = document.activeElement;"
            "return f.matches('input') ? [f.value, f.selectionStart, f.selectionEnd] : null")
        # Waited for as it should read: in a CI run the field was focused at one look and not at
        # the next (a live update of the list moved the focus for a moment).
        wait_for(lambda: field() == ["Gamma", 0, 5],
                 message=lambda: f"the field holding the name, its hidden extension kept out: {field()}")
        keys(Keys.END, " 2", Keys.ENTER)
        wait_for(lambda: os.path.exists(os.path.join(folder, "Gamma 2.txt")), message="F2 renamed it")
        wait_for(lambda: selected() == ["Gamma 2.txt"] and focused() == "Gamma 2.txt",
                 message="the renamed item still selected and focused")
        # Shift+F10 opens the menu on the first entry; the arrows reach “Move to…”.
        keys(Keys.F10, shift=True)
        wait_for(lambda: self.driver.execute_script(
            "return document.activeElement.closest('#context-menu') !== null"), message="the menu")
        entries = self.driver.execute_script(
            "return [...document.querySelectorAll('#context-menu button')]"
            ".map((b) => [b.dataset.action, b.disabled])")
        self.assertIn(["move", False], entries)
        self.assertIn(["download", True], entries, "what does not apply is disabled, not hidden")
        self.assertIn(["resolve", True], entries, "no conflict to resolve")
        for _ in range(10):
            if self.driver.execute_script("return document.activeElement.dataset.action") == "move":
                break
            keys(Keys.ARROW_DOWN)
        keys(Keys.ENTER)
        self.answer_prompt("Keys/Box")
        wait_for(lambda: os.path.exists(os.path.join(folder, "Box", "Gamma 2.txt")), message="moved into Box")
        wait_for(lambda: "Gamma 2.txt" not in self.items() and focused() is not None,
                 message="the focus still in the list")
        # Enter opens what is selected.
        keys("al")
        wait_for(lambda: selected() == ["Alpha.txt"], message="typed “al”")
        keys(Keys.ENTER)
        text = wait_for(lambda: self.find("#text") if self.find("#editor").is_displayed()
                        and self.find("#text").get_attribute("value") == "Alpha.txt" else None,
                        message="Enter opened it")
        # In the editor: Ctrl+S saves, Escape goes back to the browser, onto the same item.
        text.send_keys(" saved")
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()
        self.wait_saved()
        with open(os.path.join(folder, "Alpha.txt")) as handle:
            self.assertEqual(handle.read(), "Alpha.txt saved")
        keys(Keys.ESCAPE)
        wait_for(lambda: self.find("#browser").is_displayed() and "Alpha.txt" in self.items(),
                 message="Escape went back to the browser")

    def test_2_names_hide_known_extensions_and_long_ones_are_cut_in_the_middle(self):
        folder = self.app.path("Names")
        os.makedirs(folder)
        long_name = "A very long name for a trip to Lisbon with everyone 3.txt"
        for name in (long_name, "Welcome.txt", "photo.png"):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write("x")
        self.browse("Names")
        wait_for(lambda: len(self.items()) == 3, message="the folder listed")

        def shown(name):
            # Read in one script: a live update may replace the item between two reads.
            return tuple(self.driver.execute_script(
                "const e = document.querySelector(arguments[0]);"
                "return e ? [e.innerText.trim(), e.getAttribute('title')] : [null, null]",
                f'#items .item[data-name="{name}"] .name'))

        self.assertEqual(shown("Welcome.txt"), ("Welcome", "Welcome.txt"))
        self.assertEqual(shown("photo.png"), ("photo.png", "photo.png"), "an unknown type keeps its extension")
        text, title = shown(long_name)
        self.assertEqual(title, long_name)
        self.assertEqual(text, "A very lo…eryone 3")
        # The setting shows the extensions again.
        self.find("#show-extensions").click()
        wait_for(lambda: shown("Welcome.txt")[0] == "Welcome.txt", message="the extension shown")
        self.find("#show-extensions").click()
        wait_for(lambda: shown("Welcome.txt")[0] == "Welcome", message="the extension hidden again")

    def test_3_axe_core_finds_no_accessibility_violations(self):
        def check(where):
            self.assertEqual(support.axe_violations(self.driver), [], f"axe-core in {where}")

        with open(self.app.path("Axe.txt"), "w") as handle:
            handle.write("checked by axe")
        self.browse()
        wait_for(lambda: "Axe.txt" in self.items(), message="Axe.txt listed")
        check("the grid")
        self.find("#layout").click()
        wait_for(lambda: "list" in self.find("#items").get_attribute("class"), message="the list")
        check("the list")
        menu = wait_for(lambda: support.menu_entry(self.driver, "Axe.txt", "open"), message="the menu")
        check("the context menu")
        self.screenshot("browser-menu")
        menu.click()
        wait_for(lambda: self.find("#editor").is_displayed()
                 and self.find("#text").get_attribute("value") == "checked by axe", message="the editor")
        check("the text editor")
        self.find("#done").click()
        self.find("#layout").click()
        self.find("#create").click()
        wait_for(lambda: self.find("#create-dialog").is_displayed(), message="the New document dialog")
        check("the New document dialog")
        self.find("#create-cancel").click()
        self.create("mydoc", "Axe check")
        check("the MyDoc editor")
        self.find("#done").click()
        # Dark mode follows the system's setting, with the same contrast.
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        try:
            wait_for(lambda: self.driver.execute_script(
                "return matchMedia('(prefers-color-scheme: dark)').matches"), message="dark mode")
            self.browse()
            wait_for(lambda: "Axe.txt" in self.items(), message="the browser in dark mode")
            self.assertNotEqual(self.driver.execute_script(
                "return getComputedStyle(document.body).backgroundColor"), "rgb(246, 245, 242)")
            check("the grid in dark mode")
            self.screenshot("browser-dark")
            wait_for(lambda: support.menu_entry(self.driver, "Axe.txt", "open"), message="the menu")
            check("the context menu in dark mode")
            support.open_item(self.driver, "Axe check.mydoc")
            wait_for(lambda: self.find("#editor").is_displayed(), message="the MyDoc editor")
            check("the MyDoc editor in dark mode")
            self.find("#done").click()
        finally:
            self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    def test_4_space_shows_quick_look_and_the_arrows_step_through(self):
        folder = self.app.path("Look")
        os.makedirs(folder)
        for name, text in (("One.txt", "the first page\nof one"), ("Two.txt", "and the second")):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(text)
        self.browse("Look")
        wait_for(lambda: self.items() == ["One.txt", "Two.txt"], message="the folder listed")
        self.item("One.txt").click()
        ActionChains(self.driver).send_keys(" ").perform()

        def shown():
            if not self.find("#quicklook").is_displayed():
                return None
            return self.find("#quicklook-title").text, self.find("#quicklook-text").text

        wait_for(lambda: shown() == ("One.txt", "the first page\nof one"), message="One in Quick Look")
        self.screenshot("quicklook")
        self.assertEqual(support.axe_violations(self.driver), [], "axe-core in Quick Look")
        ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
        wait_for(lambda: shown() == ("Two.txt", "and the second"), message="→ stepped to Two")
        self.assertEqual(self.driver.execute_script(
            "return [...document.querySelectorAll('#items .item[aria-selected=true]')].map((e) => e.dataset.name)"),
            ["Two.txt"], "the selection follows")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        wait_for(lambda: not self.find("#quicklook").is_displayed(), message="Escape closed it")
        wait_for(lambda: self.driver.execute_script("return document.activeElement.dataset.name") == "Two.txt",
                 message="the focus back on the item")
        # Ctrl+I: the info panel of the selected item.
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("i").key_up(Keys.CONTROL).perform()
        wait_for(lambda: self.find("#info").is_displayed() and self.find("#info-title").text == "Two.txt",
                 message="the info panel")
        fields = self.driver.execute_script(
            "return Object.fromEntries([...document.querySelectorAll('#info-list dd')]"
            ".map((d) => [d.dataset.field, d.textContent]))")
        self.assertEqual(fields["kind"], "Text")
        self.assertEqual(fields["where"], "Library › Look")
        self.assertIn("14 bytes", fields["size"])
        self.assertEqual(fields["sync"], "Not in a synced folder")
        self.assertEqual(support.axe_violations(self.driver), [], "axe-core in the info panel")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        wait_for(lambda: not self.find("#info").is_displayed(), message="the info panel closed")
        # Nothing was opened or written.
        self.assertTrue(self.find("#browser").is_displayed())
        with open(os.path.join(folder, "One.txt")) as handle:
            self.assertEqual(handle.read(), "the first page\nof one")

    def test_5_ctrl_z_undoes_a_rename_a_move_and_trashing_and_ctrl_shift_z_redoes(self):
        folder = self.app.path("Undo")
        os.makedirs(os.path.join(folder, "Box"))
        with open(os.path.join(folder, "Note.txt"), "w") as handle:
            handle.write("note")
        self.browse("Undo")
        wait_for(lambda: sorted(self.items()) == ["Box", "Note.txt"], message="the folder listed")

        def there(*names):
            return os.path.exists(os.path.join(folder, *names))

        self.action("Note.txt", "rename")
        self.rename_in_place("Memo.txt")
        wait_for(lambda: there("Memo.txt") and not there("Note.txt"), message="the rename")
        self.press_undo()
        wait_for(lambda: there("Note.txt") and not there("Memo.txt"), message="Ctrl+Z undid the rename")
        self.press_undo(redo=True)
        wait_for(lambda: there("Memo.txt") and not there("Note.txt"), message="Ctrl+Shift+Z redid it")
        wait_for(lambda: "Memo.txt" in self.items(), message="Memo listed")
        self.action("Memo.txt", "move")
        self.answer_prompt("Undo/Box")
        wait_for(lambda: there("Box", "Memo.txt"), message="the move")
        self.press_undo()
        wait_for(lambda: there("Memo.txt") and not there("Box", "Memo.txt"), message="Ctrl+Z undid the move")
        wait_for(lambda: "Memo.txt" in self.items(), message="Memo listed again")
        self.action("Memo.txt", "delete")
        wait_for(lambda: not there("Memo.txt"), message="moved to the Trash")
        self.press_undo()
        wait_for(lambda: there("Memo.txt"), message="Ctrl+Z took it back from the Trash")
        with open(os.path.join(folder, "Memo.txt")) as handle:
            self.assertEqual(handle.read(), "note")

    def test_6_dragging_items_onto_a_folder_or_a_crumb_moves_them_and_ctrl_copies(self):
        folder = self.app.path("Drag")
        os.makedirs(os.path.join(folder, "Box"))
        for name in ("Ant.txt", "Bee.txt", "Cat.txt"):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(name)
        self.browse("Drag")
        wait_for(lambda: sorted(self.items()) == ["Ant.txt", "Bee.txt", "Box", "Cat.txt"], message="listed")
        self.item("Ant.txt").click()
        ActionChains(self.driver).key_down(Keys.CONTROL).click(self.item("Bee.txt")).key_up(Keys.CONTROL).perform()
        drag = """
            const [source, target, ctrlKey] = arguments;
            const transfer = new DataTransfer();
            source.dispatchEvent(new DragEvent('dragstart', { dataTransfer: transfer, bubbles: true }));
            const over = new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true, ctrlKey });
            target.dispatchEvent(over);
            target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true, ctrlKey }));
            return over.defaultPrevented;
        """
        accepted = self.driver.execute_script(drag, self.item("Bee.txt"), self.item("Box"), False)
        self.assertTrue(accepted, "a folder takes the drop")
        wait_for(lambda: all(os.path.exists(os.path.join(folder, "Box", n)) for n in ("Ant.txt", "Bee.txt")),
                 message="both selected items moved into Box")
        self.assertTrue(os.path.exists(os.path.join(folder, "Cat.txt")), "the unselected one stayed")
        self.assertFalse(self.find("#drop").is_displayed(), "no import overlay for a drag within the page")
        wait_for(lambda: "Cat.txt" in self.items() and "Ant.txt" not in self.items(), message="the list")
        # A document is no place to drop; the crumb of the folder above is.
        self.assertFalse(self.driver.execute_script(drag, self.item("Cat.txt"), self.item("Cat.txt"), False))
        crumb = self.find('#crumbs a[data-folder=""]')
        self.driver.execute_script(drag, self.item("Cat.txt"), crumb, False)
        wait_for(lambda: os.path.exists(self.app.path("Cat.txt")), message="Cat moved to the library's top")
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(lambda: os.path.exists(os.path.join(folder, "Cat.txt")), message="Ctrl+Z undid the drop")
        # With Ctrl held, a drop copies (a new document, the original stays); Ctrl+Z trashes the copy.
        wait_for(lambda: "Cat.txt" in self.items(), message="Cat listed again")
        self.item("Cat.txt").click()
        copied = self.driver.execute_script(drag, self.item("Cat.txt"), self.item("Box"), True)
        self.assertTrue(copied, "a folder takes the copy")
        wait_for(lambda: os.path.exists(os.path.join(folder, "Box", "Cat.txt")), message="the copy in Box")
        self.assertTrue(os.path.exists(os.path.join(folder, "Cat.txt")), "the original stayed")
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(lambda: not os.path.exists(os.path.join(folder, "Box", "Cat.txt")), message="Ctrl+Z took the copy away")
        self.assertTrue(os.path.exists(os.path.join(folder, "Cat.txt")))

    def test_7_the_sidebar_browses_folders_and_tags_and_takes_items_to_the_trash(self):
        folder = self.app.path("Places")
        os.makedirs(os.path.join(folder, "Deep"))
        sun = os.path.join(folder, "Deep", "Sun.txt")
        with open(sun, "w") as handle:
            handle.write("sun")
        os.setxattr(sun, "user.xdg.tags", b"holiday")
        with open(os.path.join(folder, "Rain.txt"), "w") as handle:
            handle.write("rain")
        self.browse()

        def places(list_id):
            return texts(self.driver, f"#{list_id} button")

        wait_for(lambda: "Places" in places("places-browse") and "holiday" in places("places-tags"),
                 message="the folder and the tag in the sidebar")
        self.assertEqual(places("places-browse")[:2], ["Recents", "Library"])
        # A tag lists its documents from the whole library.
        self.click('#places-tags button')
        wait_for(lambda: self.items() == ["Sun.txt"], message="the tag's documents")
        # A folder of the sidebar browses it.
        self.click('#places-browse button[data-folder="Places"]')
        wait_for(lambda: sorted(self.items()) == ["Deep", "Rain.txt"], message="the folder")
        # The Trash takes a dragged item.
        self.driver.execute_script("""
            const [source, target] = arguments;
            const transfer = new DataTransfer();
            source.dispatchEvent(new DragEvent('dragstart', { dataTransfer: transfer, bubbles: true }));
            target.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
            target.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
        """, self.item("Rain.txt"), self.find("#places-trash"))
        wait_for(lambda: not os.path.exists(os.path.join(folder, "Rain.txt")), message="Rain in the Trash")
        trash = os.path.join(self.app.home, "data", "Trash", "files")
        self.assertIn("Rain.txt", os.listdir(trash))
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        wait_for(lambda: os.path.exists(os.path.join(folder, "Rain.txt")), message="Ctrl+Z took Rain back")
        # A phone's width: the sidebar folds away behind the Places button, and axe is still happy.
        size = self.driver.get_window_size()
        try:
            self.driver.set_window_size(360, 740)
            wait_for(lambda: not self.find("#sidebar").is_displayed(), message="the sidebar folded")
            self.find("#places-toggle").click()
            wait_for(lambda: self.find("#sidebar").is_displayed(), message="the sidebar opened")
            self.assertEqual(support.axe_violations(self.driver), [], "axe-core at 360 px")
            self.find("#places-toggle").click()
        finally:
            self.driver.set_window_size(size["width"], size["height"])

    def test_8_the_list_sorts_by_its_columns_and_each_folder_remembers_its_view(self):
        folder = self.app.path("Columns")
        os.makedirs(os.path.join(folder, "Zebra"))
        for name, size, age in (("apple.txt", 300, 30), ("Banana.mydoc", 0, 10), ("cherry.txt", 20, 20)):
            path = os.path.join(folder, name)
            if name.endswith(".mydoc"):
                os.makedirs(path)
                path = os.path.join(path, "text.txt")
            with open(path, "w") as handle:
                handle.write("x" * size)
            os.utime(os.path.join(folder, name), (1_700_000_000 - age * 86400,) * 2)
        self.browse("Columns")
        wait_for(lambda: len(self.items()) == 4, message="the folder listed")
        self.assertEqual(self.items(), ["apple.txt", "Banana.mydoc", "cherry.txt", "Zebra"])
        self.find("#layout").click()
        wait_for(lambda: self.find("#columns").is_displayed(), message="the list's headings")

        def heading(key):
            return self.find(f'#columns button[data-sort="{key}"]')

        def cells(name):
            return texts(self.driver, f'#items .item[data-name="{name}"] .cell')[:3]

        wait_for(lambda: cells("apple.txt")[0] == "Text", message="the row's cells")
        self.assertEqual(cells("Zebra"), ["Folder", "—", "—"])
        self.assertEqual(cells("apple.txt")[2], "300 B")
        # A click on a heading sorts by it, in its natural direction; a second click reverses.
        # (A package's size is its folder entry's, which depends on the file system; a folder
        # has no size, and is the smallest.)
        sized = lambda: [name for name in self.items() if name != "Banana.mydoc"]
        heading("size").click()
        wait_for(lambda: sized() == ["apple.txt", "cherry.txt", "Zebra"], message="largest first")
        self.assertIn("largest first", heading("size").get_attribute("aria-label"))
        heading("size").click()
        wait_for(lambda: sized() == ["Zebra", "cherry.txt", "apple.txt"], message="smallest first")
        heading("date").click()
        wait_for(lambda: self.items()[1:] == ["Banana.mydoc", "cherry.txt", "apple.txt"],
                 message="newest first (the folder, made now, leads)")
        heading("kind").click()
        wait_for(lambda: self.items()[0] == "Zebra" and self.items()[1] == "Banana.mydoc",
                 message="by kind, A to Z: Folder, MyDoc, Text")
        heading("name").click()
        wait_for(lambda: self.items() == ["apple.txt", "Banana.mydoc", "cherry.txt", "Zebra"],
                 message="by name again")
        heading("name").click()
        wait_for(lambda: self.items() == ["Zebra", "cherry.txt", "Banana.mydoc", "apple.txt"],
                 message="Z to A")
        self.item("cherry.txt").click()
        self.screenshot("browser-list")
        # Another folder has its own view; coming back, the list and its order are as left,
        # after a reload of the page too.
        self.browse()
        wait_for(lambda: "grid" in self.find("#items").get_attribute("class"), message="the top in a grid")
        self.assertFalse(self.find("#columns").is_displayed())
        self.driver.refresh()
        self.browse("Columns")
        wait_for(lambda: self.find("#columns").is_displayed()
                 and self.items() == ["Zebra", "cherry.txt", "Banana.mydoc", "apple.txt"],
                 message="Columns remembered as a list, Z to A")
        self.assertEqual(self.find("#sort").get_attribute("value"), "name")
        # Opened at its address, the folder's first page is asked for before the page's scripts
        # load (early.js), in the remembered order: one request, and the order as left.
        self.driver.refresh()
        wait_for(lambda: self.items() == ["Zebra", "cherry.txt", "Banana.mydoc", "apple.txt"],
                 message="Columns at its address, Z to A")
        lists = self.driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter((e) => e.name.includes('/api/list?')).map((e) => e.name)")
        self.assertEqual(len(lists), 1, lists)
        self.assertIn("folder=Columns&sort=name&order=desc", lists[0])
        # An address with a malformed escape, typed in, shows the library, without a script error.
        self.driver.get(self.app.base + "#/folder/100%")
        self.driver.refresh()
        wait_for(lambda: "Columns" in self.items(), message="the library at a malformed address")

    def test_9_the_toolbar_acts_on_the_selection(self):
        folder = self.app.path("Toolbar")
        os.makedirs(os.path.join(folder, "Into"))
        for name in ("One.txt", "Two.txt"):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(name)
        self.browse("Toolbar")
        wait_for(lambda: len(self.items()) == 3, message="the folder listed")

        def enabled():
            return self.driver.execute_script(
                "return [...document.querySelectorAll('#selection-bar button[data-action]')]"
                ".filter((b) => !b.disabled).map((b) => b.dataset.action)")

        self.assertEqual(enabled(), [], "nothing selected, nothing to do")
        self.item("One.txt").click()
        wait_for(lambda: "quicklook" in enabled(), message="one item's actions")
        self.assertEqual(self.find("#selection-count").text, "1 selected")
        ActionChains(self.driver).key_down(Keys.CONTROL).click(self.item("Two.txt")).key_up(Keys.CONTROL).perform()
        wait_for(lambda: self.find("#selection-count").text == "2 selected", message="two selected")
        self.assertEqual(enabled(), ["move", "duplicate", "delete"], "what applies to two items")
        self.click('#selection-bar button[data-action="move"]')
        self.answer_prompt("Toolbar/Into")
        wait_for(lambda: sorted(os.listdir(os.path.join(folder, "Into"))) == ["One.txt", "Two.txt"],
                 message="both moved by the toolbar")
        # The toolbar is one tab stop, and the arrows move within it.
        self.item("Into").click()
        wait_for(lambda: "open" in enabled(), message="the folder's actions")
        bar = self.driver.execute_script(
            "return [...document.querySelectorAll('#selection-bar button')].filter((b) => b.tabIndex === 0)"
            ".map((b) => b.dataset.action || b.id)")
        self.assertEqual(bar, ["open"])
        self.driver.execute_script("document.querySelector('#selection-bar button[tabindex=\"0\"]').focus()")
        ActionChains(self.driver).send_keys(Keys.ARROW_RIGHT).perform()
        self.assertEqual(self.driver.execute_script("return document.activeElement.dataset.action"), "quicklook")
        # A phone's width: the toolbar is one "Actions…" button that opens the whole menu.
        size = self.driver.get_window_size()
        try:
            self.driver.set_window_size(360, 740)
            wait_for(lambda: self.find("#selection-more").is_displayed()
                     and not self.find('#selection-bar button[data-action="open"]').is_displayed(),
                     message="the toolbar folded into a menu")
            self.find("#selection-more").click()
            wait_for(lambda: self.find("#context-menu").is_displayed(), message="the menu from Actions…")
            self.assertEqual(self.driver.execute_script("return document.activeElement.dataset.action"), "open")
            ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        finally:
            self.driver.set_window_size(size["width"], size["height"])
    def test_10_names_are_renamed_in_place_in_the_browser_and_in_the_editor(self):
        folder = self.app.path("InPlace")
        os.makedirs(folder)
        with open(os.path.join(folder, "Draft.txt"), "w") as handle:
            handle.write("draft")
        self.browse("InPlace")
        wait_for(lambda: self.items() == ["Draft.txt"], message="the folder listed")

        def field():
            return self.driver.execute_script(
                "const f = document.activeElement;"
                "return f.classList.contains('rename-field') ? f.value : null")

        # A click on the selected item's name puts a field in its place; Escape keeps the name.
        self.item("Draft.txt").click()
        self.item("Draft.txt").find_element(By.CSS_SELECTOR, ".name").click()
        wait_for(lambda: field() == "Draft", message="the name field")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        wait_for(lambda: field() is None and self.item("Draft.txt").find_element(By.CSS_SELECTOR, ".name").text == "Draft",
                 message="Escape kept the name")
        self.assertTrue(os.path.exists(os.path.join(folder, "Draft.txt")))
        # A change that arrives while the field is open never takes it away, even when the list
        # was asked for before the field opened and answers after: the page's listings are held
        # here until the field is open, then let through.
        self.driver.execute_script(
            "window.heldLists = []; window.realFetch = window.fetch;"
            "window.fetch = (input, init) => String(input).includes('api/list?')"
            "  ? new Promise((resolve) => heldLists.push(() => resolve(realFetch(input, init))))"
            "  : realFetch(input, init);")
        with open(os.path.join(folder, "Draft.txt"), "a") as handle:
            handle.write(", changed elsewhere")  # its item is made again when the list is drawn
        with open(os.path.join(folder, "Other.txt"), "w") as handle:
            handle.write("other")
        wait_for(lambda: self.driver.execute_script("return heldLists.length") > 0,
                 message="the live update asked for the list")
        ActionChains(self.driver).send_keys(Keys.F2, Keys.END, " v2").perform()
        wait_for(lambda: field() == "Draft v2", message="the field, typed in")
        self.driver.execute_script("window.fetch = realFetch; heldLists.splice(0).forEach((go) => go())")
        wait_for(lambda: self.driver.execute_script("return state.reloading") is False,
                 message="the held listing answered and handled")
        self.assertEqual(field(), "Draft v2", "the field still open, with what was typed")
        ActionChains(self.driver).send_keys(Keys.ENTER).perform()
        wait_for(lambda: sorted(self.items()) == ["Draft v2.txt", "Other.txt"],
                 message="renamed, and the change held back listed after")
        with open(os.path.join(folder, "Draft v2.txt")) as handle:
            self.assertEqual(handle.read(), "draft, changed elsewhere")
        os.remove(os.path.join(folder, "Other.txt"))
        os.rename(os.path.join(folder, "Draft v2.txt"), os.path.join(folder, "Draft.txt"))
        with open(os.path.join(folder, "Draft.txt"), "w") as handle:
            handle.write("draft")
        wait_for(lambda: self.items() == ["Draft.txt"], message="the folder as it was")
        self.item("Draft.txt").click()
        # Leaving the folder with the field open cancels the rename, and the next folder lists
        # (live reloads are not left waiting for a field that is gone).
        ActionChains(self.driver).send_keys(Keys.F2).perform()
        wait_for(lambda: field() == "Draft", message="the name field again")
        ActionChains(self.driver).send_keys("Half").perform()
        self.driver.execute_script("location.hash = '#/folder/'")
        wait_for(lambda: "InPlace" in self.items(), message="the library listed after leaving a rename")
        with open(self.app.path("Arrived.txt"), "w") as handle:
            handle.write("live")
        wait_for(lambda: "Arrived.txt" in self.items(), message="live updates still come")
        self.browse("InPlace")
        wait_for(lambda: self.items() == ["Draft.txt"], message="the rename was cancelled")
        self.item("Draft.txt").click()
        # A double-click on the selected item still opens it, though its first click began a rename.
        ActionChains(self.driver).double_click(
            self.item("Draft.txt").find_element(By.CSS_SELECTOR, ".name")).perform()
        wait_for(lambda: self.find("#editor").is_displayed()
                 and self.find("#text").get_attribute("value") == "draft", message="the editor")
        # The editor's title renames the open document, which goes on saving under its new name.
        self.find("#doc-title").click()
        wait_for(lambda: field() == "Draft", message="the title's field")
        ActionChains(self.driver).send_keys(Keys.END, " final", Keys.ENTER).perform()
        wait_for(lambda: os.path.exists(os.path.join(folder, "Draft final.txt"))
                 and self.find("#doc-title").text == "Draft final", message="renamed from the title")
        self.assertIn("Draft%20final.txt", self.driver.current_url)
        # The title is a button in a heading: the keyboard reaches it, and Escape keeps the name.
        self.assertEqual(self.driver.execute_script(
            "const t = document.getElementById('doc-title'); return [t.tagName, t.parentElement.tagName]"),
            ["BUTTON", "H2"])
        self.find("#doc-title").send_keys(Keys.ENTER)
        wait_for(lambda: field() == "Draft final", message="the title's field from Enter")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        wait_for(lambda: self.driver.execute_script("return document.activeElement.id") == "doc-title"
                 and self.find("#doc-title").text == "Draft final", message="the title back, focused")
        self.find("#text").send_keys(" and more")
        self.wait_saved()
        with open(os.path.join(folder, "Draft final.txt")) as handle:
            self.assertEqual(handle.read(), "draft and more")
        self.assertFalse(os.path.exists(os.path.join(folder, "Draft.txt")))
        self.find("#done").click()
    def test_11_a_lasso_in_the_grid_selects_what_it_touches(self):
        from selenium.webdriver.common.actions.action_builder import ActionBuilder

        folder = self.app.path("Lasso")
        os.makedirs(folder)
        for name in ("One.txt", "Two.txt", "Three.txt", "Four.txt"):
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(name)
        self.browse("Lasso")
        wait_for(lambda: len(self.items()) == 4, message="the folder listed")
        names = self.items()

        def rect(name):
            return self.driver.execute_script(
                "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]",
                self.item(name))

        def selected():
            return self.driver.execute_script(
                "return [...document.querySelectorAll('#items .item[aria-selected=true]')]"
                ".map((e) => e.dataset.name)")

        def lasso(start, end, ctrl=False):
            if ctrl:
                ActionChains(self.driver).key_down(Keys.CONTROL).perform()
            actions = ActionBuilder(self.driver)
            actions.pointer_action.move_to_location(*start).pointer_down() \
                .move_to_location((start[0] + end[0]) // 2, (start[1] + end[1]) // 2) \
                .move_to_location(*end).pointer_up()
            actions.perform()
            if ctrl:
                ActionChains(self.driver).key_up(Keys.CONTROL).perform()

        # From the empty space below the items, up over the first two.
        first, second = rect(names[0]), rect(names[1])
        below = int(max(rect(name)[3] for name in names)) + 12
        lasso((int(second[2]) - 8, below), (int(first[0]) + 8, int((first[1] + first[3]) / 2)))
        wait_for(lambda: selected() == names[:2], message="the lasso selected the first two")
        self.assertFalse(self.driver.execute_script("return document.getElementById('lasso') !== null"),
                         "the rectangle goes when the button is up")
        # With Ctrl held, another lasso adds the last one.
        last = rect(names[3])
        lasso((int(last[2]) - 8, below), (int(last[0]) + 8, int((last[1] + last[3]) / 2)), ctrl=True)
        wait_for(lambda: selected() == [names[0], names[1], names[3]], message="the Ctrl lasso added")
        # A click on the empty space clears the selection.
        actions = ActionBuilder(self.driver)
        actions.pointer_action.move_to_location(int(first[0]) + 8, below).click()
        actions.perform()
        wait_for(lambda: selected() == [], message="a click on the empty space cleared it")

    def browse_notes(self, name, count):
        """Makes a folder of `count` notes ("Note 000.txt" holding "note 0"), browses it once the
        app lists them all, and waits for its first page; answers the folder's path."""
        folder = self.app.path(name)
        os.makedirs(folder)
        for index in range(count):
            with open(os.path.join(folder, f"Note {index:03}.txt"), "w") as handle:
                handle.write(f"note {index}")
        wait_for(lambda: self.app.api("GET", f"/api/list?folder={name}&limit=1")["total"] == count,
                 seconds=60, message=f"the app to list the {count} new notes")
        self.browse(name)
        wait_for(lambda: len(self.listed()) == 200, message="the first page")
        return folder

    def test_12_a_long_folder_keeps_its_place_while_pages_load_and_changes_arrive(self):
        folder = self.browse_notes("Long", 500)
        # A note's thumbnail is its first lines, drawn by the page (no image per note).
        wait_for(lambda: self.driver.execute_script(
            "const l = document.querySelector('#items .item[data-name=\"Note 000.txt\"] .thumb .lines');"
            "return l && !l.hidden ? l.textContent : null") == "note 0", message="the note's first lines")
        self.assertEqual(self.driver.execute_script(
            "return document.querySelectorAll('#items .thumb img').length"), 0)
        # Only the rows near the view are in the document: each option says where it stands in
        # the whole folder, for a screen reader.
        self.assertEqual(self.driver.execute_script(
            "const e = document.querySelector('#items .item[data-name=\"Note 001.txt\"]');"
            "return [e.getAttribute('aria-posinset'), e.getAttribute('aria-setsize')]"), ["2", "500"])
        self.item("Note 000.txt").click()
        wait_for(lambda: self.driver.execute_script(
            "return document.activeElement.dataset.name") == "Note 000.txt", message="the first focused")
        first_out_of_view = lambda: self.driver.execute_script(
            "return document.querySelector('#items .item').getBoundingClientRect().bottom < 0")
        # Scrolled to the end of what is loaded, the next page comes in below: the view stays
        # there and does not jump back to the focused item at the top.
        for expected in (400, 500):
            self.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
            wait_for(lambda: len(self.listed()) == expected, message=f"{expected} items after scrolling")
            self.assertTrue(first_out_of_view(), f"the view stayed down once {expected} were shown")
        # A change made meanwhile by another program reloads the list where it is shown.
        place = self.driver.execute_script("return window.scrollY")
        with open(os.path.join(folder, "Note 250b.txt"), "w") as handle:
            handle.write("new")
        wait_for(lambda: "Note 250b.txt" in self.listed(), message="the new note listed live")
        self.assertTrue(first_out_of_view(), "the live reload left the view where it was")
        self.assertLess(abs(self.driver.execute_script("return window.scrollY") - place), 400)
        self.assertEqual(self.driver.execute_script("return document.activeElement.dataset.name"),
                         "Note 000.txt", "the focus stays on the focused item")
        # The keyboard goes on from the focused item, and brings the selection into view.
        ActionChains(self.driver).send_keys(Keys.END).perform()
        ActionChains(self.driver).send_keys(Keys.HOME).perform()
        wait_for(lambda: not first_out_of_view(), message="Home showed the first item")
        # With the focus elsewhere and the view at the end, rows far above are parked, but not
        # those of the list's tab stop: Tab skips what is hidden, and must reach the list.
        self.find("#search").click()
        self.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
        chunk_parked = lambda index: self.driver.execute_script(
            "return document.querySelectorAll('#items > .chunk')[arguments[0]].classList.contains('parked')", index)
        wait_for(lambda: chunk_parked(1), message="the second rows parked, far above the view")
        self.assertEqual(self.driver.execute_script(
            "return document.querySelector('#items .item[tabindex=\"0\"]').dataset.name"), "Note 000.txt")
        self.assertFalse(chunk_parked(0), "the tab stop's rows stay drawn")

    def test_13_the_grid_keeps_whole_rows_and_the_focus_when_the_window_is_resized(self):
        # The items are laid out in chunks of whole rows; a window that makes rows longer or
        # shorter has them made again, and the arrows still go to the item below.
        self.browse_notes("Wide", 300)
        geometry = lambda: self.driver.execute_script("""
            const items = [...document.querySelectorAll("#items > .chunk:not(.parked) > .item")];
            const lefts = items.map((item) => Math.round(item.getBoundingClientRect().left));
            const columns = lefts.indexOf(lefts[0], 1);
            return { columns, ragged: lefts.findIndex((left, i) => left !== lefts[i % columns]),
                     names: items.map((item) => item.dataset.name) };""")
        # Far from the view, its rows are parked, out of the document (but listed, with their
        # chunk keeping their place); scrolled to, they are back.
        listed_note = "[...state.elements.values()].find((e) => e.dataset.name === 'Note 100.txt')"
        parked = lambda: self.driver.execute_script(
            f"const note = ({listed_note}); return !note.isConnected && note.chunk.classList.contains('parked')")
        self.assertTrue(parked(), "a note far below the view is not drawn")
        # A script that measures an item the moment the page unparks its chunk (a mutation
        # observer, told before anything else runs) finds it in the document, laid out. It
        # watches the whole list: a live reload of the folder may meanwhile make the chunks
        # again, and the note then comes back in a chunk of its own.
        self.driver.execute_script(f"""
            new MutationObserver((changes, observer) => {{
              const note = ({listed_note});
              if (!note.isConnected || note.chunk.classList.contains("parked")) return;
              observer.disconnect();
              window.measuredOnArrival = note.getBoundingClientRect().height;
            }}).observe(document.getElementById("items"),
                        {{ subtree: true, childList: true, attributes: true, attributeFilter: ["class"] }});""")
        with open(os.path.join(self.app.path("Wide"), "Note 000a.txt"), "w") as handle:
            handle.write("a note that makes the chunks again")
        wait_for(lambda: "Note 000a.txt" in self.listed(), message="the new note listed live")
        self.assertTrue(parked(), "Note 100 still parked after the live reload")
        self.driver.execute_script(f"({listed_note}).chunk.scrollIntoView();")
        wait_for(lambda: not parked(), message="Note 100 drawn once scrolled to")
        wait_for(lambda: self.driver.execute_script("return window.measuredOnArrival !== undefined"),
                 message="the measure")
        self.assertGreater(self.driver.execute_script("return window.measuredOnArrival"), 0,
                           "the note is laid out the moment its chunk is back")
        self.item("Note 100.txt").click()
        wait_for(lambda: self.driver.execute_script(
            "return document.activeElement.dataset.name") == "Note 100.txt", message="Note 100 focused")
        size = self.driver.get_window_size()
        try:
            seen = {geometry()["columns"]}
            for width in (900, 1700):
                self.driver.set_window_size(width, size["height"])
                wait_for(lambda: geometry()["columns"] not in seen, message=f"other rows at {width} px")
                shown = geometry()
                seen.add(shown["columns"])
                self.assertEqual(shown["ragged"], -1, f"every row whole at {width} px: {shown}")
                self.assertEqual(self.driver.execute_script("return document.activeElement.dataset.name"),
                                 "Note 100.txt", f"the focus kept at {width} px")
                ActionChains(self.driver).send_keys(Keys.ARROW_DOWN).perform()
                below = shown["names"][shown["names"].index("Note 100.txt") + shown["columns"]]
                wait_for(lambda: self.driver.execute_script(
                    "return document.activeElement.dataset.name") == below, message=f"{below} below at {width} px")
                ActionChains(self.driver).send_keys(Keys.ARROW_UP).perform()
            self.assertGreaterEqual(len(seen), 3, f"three widths, three row lengths: {seen}")
            # A resize while a name is edited leaves the field editing; the rows are made whole
            # once the rename ends.
            ActionChains(self.driver).send_keys(Keys.F2).perform()
            wait_for(lambda: self.driver.execute_script("return document.activeElement.tagName") == "INPUT",
                     message="the rename field")
            self.driver.set_window_size(900, size["height"])
            wait_for(lambda: self.driver.execute_script("return window.innerWidth") < 1000, message="the narrower window")
            self.assertEqual(self.driver.execute_script("return document.activeElement.tagName"), "INPUT",
                             "the rename field kept its focus through the resize")
            ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
            wait_for(lambda: geometry()["ragged"] == -1, message="whole rows once the rename ended")
        finally:
            self.driver.set_window_size(size["width"], size["height"])

    def test_14_moving_many_items_shows_progress_and_cancel_stops_before_the_next(self):
        folder = self.app.path("Many")
        os.makedirs(os.path.join(folder, "Box"))
        names = [f"Item {index}.txt" for index in range(6)]
        for name in names:
            with open(os.path.join(folder, name), "w") as handle:
                handle.write(name)
        self.browse("Many")
        wait_for(lambda: len(self.items()) == 7, message="the folder listed")
        # The page's move number `holdAt` waits until the test lets it go: the job is seen
        # mid-way, whatever the machine's speed.
        self.driver.execute_script("""
            window.movesSeen = 0;
            const fetchBefore = window.fetch;
            window.fetch = (path, options) => {
              if (String(path).startsWith("api/move") && ++window.movesSeen === window.holdAt) {
                return new Promise((go) => { window.releaseMove = go; }).then(() => fetchBefore(path, options));
              }
              return fetchBefore(path, options);
            };""")
        box = lambda: sorted(os.listdir(os.path.join(folder, "Box")))

        def cancel_at(number, label):
            self.driver.execute_script("window.movesSeen = 0; window.releaseMove = null; window.holdAt = arguments[0]", number)
            yield  # the caller starts the work here
            wait_for(lambda: self.driver.execute_script("return typeof window.releaseMove === 'function'"),
                     message=f"move {number} on its way")
            job = self.find("#work .job")
            self.assertTrue(job.is_displayed())
            self.assertIn(label, job.text)
            self.assertEqual(self.driver.execute_script("return document.querySelector('#work progress').value"), number - 1)
            yield  # the caller looks at the job here
            job.find_element(By.CSS_SELECTOR, "button").click()
            self.driver.execute_script("window.releaseMove()")
            wait_for(lambda: not self.find("#work").is_displayed(), message="the job gone once stopped")

        self.item(names[0]).click()
        ActionChains(self.driver).key_down(Keys.SHIFT).click(self.item(names[-1])).key_up(Keys.SHIFT).perform()
        self.assertEqual(self.driver.execute_script("return state.selected.size"), 6)
        steps = cancel_at(3, "Moving 3 of 6")
        next(steps)
        self.driver.execute_script("moveItems([...state.selected], 'Many/Box')")
        next(steps)
        self.assertEqual(support.axe_violations(self.driver), [], "axe-core with the job shown")
        next(steps, None)
        self.assertEqual(len(box()), 3, f"the move in flight finished, and none after it: {box()}")
        self.assertEqual(len([n for n in os.listdir(folder) if n.endswith(".txt")]), 3)
        # Ctrl+Z takes back what was moved, in one step: the app filed each item's move under
        # the page's operation. Ctrl+Shift+Z does it again, and the steps outlive the page.
        self.driver.execute_script("window.holdAt = 0")
        self.press_undo()
        wait_for(lambda: box() == [], message="one Ctrl+Z moved the three back")
        self.assertEqual(sorted(n for n in os.listdir(folder) if n.endswith(".txt")), sorted(names))
        self.press_undo(redo=True)
        wait_for(lambda: len(box()) == 3, message="Ctrl+Shift+Z moved them into Box again")
        self.driver.refresh()
        self.browse("Many")
        wait_for(lambda: len(self.items()) == 4, message="the folder listed after a reload")
        self.press_undo()
        wait_for(lambda: box() == [], message="Ctrl+Z after a reload still takes the move back")
        wait_for(lambda: self.driver.execute_script("return state.selected.size") == 3,
                 message="the three selected where the undo left them")

if __name__ == "__main__":
    unittest.main()
