"""Sharing from the app's item menu, in a real headless Chromium: Alice's page shares a synced
document with Bob (who sees it under "Shared with me" on his device and page, marked as hers),
makes a public link that opens in a browser without an account, and revokes both; and shares a
folder with everything in it."""

import os
import unittest
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select

from support import SyncServer, item_action, menu_entry, texts, wait_for
from test_sync_apps import Device, commits_of, read


class SharingTests(unittest.TestCase):
    def item(self, device, name):
        found = device.driver.find_elements(By.CSS_SELECTOR, f'.item[data-name="{name}"]')
        return found[0] if found else None

    def shared_rows(self, device):
        return texts(device.driver, "#share-list li")

    def test_the_share_dialog_shares_with_an_account_and_by_link_and_revokes_both(self):
        server = SyncServer(users=("alice", "bob"))
        a = Device("A", server, run=("--shares-every", "0.3"))
        b = Device("B", server, run=("--shares-every", "0.3"), user="bob")
        try:
            with open(a.app.path("Trip.txt"), "w") as handle:
                handle.write("plans for the trip\n")
            # At least one commit: an agent that scans between the file's creation and its write
            # commits it empty first, then again (CI failed on "== 1" once, with the folder below).
            wait_for(lambda: commits_of(a, "Trip.txt") >= 1, seconds=30, message="Trip.txt synced")
            a.driver.get(a.app.url)
            wait_for(lambda: self.item(a, "Trip.txt") is not None
                     and (self.item(a, "Trip.txt").get_attribute("data-sync") or "current") == "current",
                     seconds=30, message="Trip.txt synced on A's page")
            item_action(a.driver, "Trip.txt", "share")
            dialog = a.driver.find_element(By.CSS_SELECTOR, "#share-dialog")
            wait_for(dialog.is_displayed, message="the Share dialog")
            wait_for(lambda: self.shared_rows(a) == ["Not shared with anyone."], message="no shares yet")

            # An account that does not exist: the server's message, in the dialog.
            a.driver.find_element(By.CSS_SELECTOR, "#share-user").send_keys("nobody")
            a.driver.find_element(By.CSS_SELECTOR, "#share-add").click()
            wait_for(lambda: "no account “nobody”" in a.driver.find_element(By.CSS_SELECTOR, "#share-error").text,
                     message="the error for an unknown account")

            a.driver.find_element(By.CSS_SELECTOR, "#share-user").send_keys("bob")
            Select(a.driver.find_element(By.CSS_SELECTOR, "#share-role")).select_by_value("write")
            a.driver.find_element(By.CSS_SELECTOR, "#share-add").click()
            wait_for(lambda: any(row.startswith("bob: can make changes") for row in self.shared_rows(a)),
                     message="bob in the dialog's list")
            shared = os.path.join(b.app.library, "Shared with me", "Trip.txt")
            wait_for(lambda: read(shared) == "plans for the trip\n", seconds=30,
                     message="the share on Bob's device")
            b.driver.get(b.app.url)
            b.driver.get(b.app.base + "#/folder/Shared with me")
            wait_for(lambda: self.item(b, "Trip.txt") is not None
                     and self.item(b, "Trip.txt").get_attribute("data-shared") == "readWrite",
                     seconds=30, message="Trip.txt marked shared on Bob's page")
            self.assertEqual(self.item(b, "Trip.txt").get_attribute("data-owner"), "alice")
            share = wait_for(lambda: menu_entry(b.driver, "Trip.txt", "share"), message="Bob's menu")
            self.assertFalse(share.is_enabled(), "a participant does not share another's document")

            # The public link: it opens without an account, shows the text, and goes when removed.
            a.driver.find_element(By.CSS_SELECTOR, "#share-public").click()
            link = a.driver.find_element(By.CSS_SELECTOR, "#share-link")
            wait_for(lambda: link.get_attribute("href").startswith(server.url), message="the link")
            url = link.get_attribute("href")
            b.driver.get(url)
            wait_for(lambda: "plans for the trip" in b.driver.page_source, message="the public page")
            a.driver.find_element(By.CSS_SELECTOR, "#share-link-remove").click()
            wait_for(lambda: not a.driver.find_element(By.CSS_SELECTOR, "#share-link-line").is_displayed(),
                     message="the link gone from the dialog")
            with self.assertRaises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url, timeout=10)
            self.assertEqual(refused.exception.code, 404)

            # Stop sharing: gone from the list, and from Bob's device.
            a.driver.find_element(By.CSS_SELECTOR, '#share-list li[data-user="bob"] button').click()
            wait_for(lambda: self.shared_rows(a) == ["Not shared with anyone."], message="bob removed")
            wait_for(lambda: not os.path.exists(shared), seconds=30, message="the share gone from Bob's device")
            self.assertEqual(read(a.app.path("Trip.txt")), "plans for the trip\n")
            self.assertEqual(a.script_errors(), [], "script errors in A's page")
        finally:
            a.stop()
            b.stop()
            server.close()

    def test_the_share_dialog_shares_a_folder_with_everything_in_it(self):
        server = SyncServer(users=("alice", "bob"))
        a = Device("A", server, run=("--shares-every", "600"))
        b = Device("B", server, run=("--shares-every", "600"), user="bob")
        try:
            os.makedirs(a.app.path("Projects"))
            with open(a.app.path("Projects/Plan.txt"), "w") as handle:
                handle.write("the plan\n")
            wait_for(lambda: commits_of(a, "Projects/Plan.txt") >= 1, seconds=30, message="Plan.txt synced")
            a.driver.get(a.app.url)
            wait_for(lambda: self.item(a, "Projects") is not None, seconds=30, message="the folder on A's page")
            item_action(a.driver, "Projects", "share")
            dialog = a.driver.find_element(By.CSS_SELECTOR, "#share-dialog")
            wait_for(dialog.is_displayed, message="the Share dialog")
            self.assertIn("everything in it", a.driver.find_element(By.CSS_SELECTOR, "#share-title").text)
            wait_for(lambda: self.shared_rows(a) == ["Not shared with anyone."], message="no shares yet")
            self.assertFalse(a.driver.find_element(By.CSS_SELECTOR, "#share-public").is_displayed(),
                             "a folder has no public link")

            a.driver.find_element(By.CSS_SELECTOR, "#share-user").send_keys("bob")
            a.driver.find_element(By.CSS_SELECTOR, "#share-add").click()
            wait_for(lambda: any(row.startswith("bob: view only") for row in self.shared_rows(a)),
                     message="bob in the list")
            shared = os.path.join(b.app.library, "Shared with me", "Projects", "Plan.txt")
            wait_for(lambda: read(shared) == "the plan\n", seconds=30, message="the folder on Bob's device")
            with open(a.app.path("Projects/Later.txt"), "w") as handle:
                handle.write("added later\n")
            later = os.path.join(b.app.library, "Shared with me", "Projects", "Later.txt")
            wait_for(lambda: read(later) == "added later\n", seconds=30, message="a later document")

            a.driver.find_element(By.CSS_SELECTOR, '#share-list li[data-user="bob"] button').click()
            wait_for(lambda: self.shared_rows(a) == ["Not shared with anyone."], message="bob removed")
            wait_for(lambda: not os.path.exists(os.path.dirname(shared)), seconds=30,
                     message="the folder gone from Bob's device")
            self.assertEqual(read(a.app.path("Projects/Plan.txt")), "the plan\n")
            self.assertEqual(a.script_errors(), [], "script errors in A's page")
        finally:
            a.stop()
            b.stop()
            server.close()


if __name__ == "__main__":
    unittest.main()
