"""The drive over WebDAV (`/dav/` of `quire server`) with the clients people use on it: litmus
(the WebDAV protocol suite), rclone and cadaver, each a real process against a real server.
It opens with an app password (`quire server app-password`) or a device's token, and not with
the account password nor a revoked app password; and a file saved over WebDAV is a commit that
the devices get through the sync journal, bytes included."""

import base64
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import stat
import subprocess
import tempfile
import time
import unittest
import urllib.parse
import uuid
import xml.etree.ElementTree as ElementTree

from support import QUIRE, SyncServer

# The container of the Quire drive; the drive is its Documents/ scope.
CONTAINER = "iCloud.net.gacha.quire"


def quire_server(server, *arguments):
    """What `quire server ARGUMENTS --data DATA` prints, on the server's data folder."""
    result = subprocess.run([QUIRE, "server", *arguments, "--data", server.data],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"quire server {' '.join(arguments)} failed (exit "
                             f"{result.returncode}): {result.stdout}{result.stderr}")
    return result.stdout


def app_password(server, label):
    """A new app password of alice's, labelled `label`: the last line `quire server
    app-password` prints."""
    output = quire_server(server, "app-password", "alice", "--label", label)
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if not lines:
        raise AssertionError("quire server app-password printed no password")
    return lines[-1]


def basic(user, password):
    """An HTTP Basic Authorization header."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def request(server, method, path, authorization=None, body=None, headers=None):
    """One request to the server with these headers (and Host); answers (status, headers,
    body)."""
    parsed = urllib.parse.urlparse(server.url)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
    all_headers = {"Content-Length": str(len(body or b""))}
    if authorization:
        all_headers["Authorization"] = authorization
    all_headers.update(headers or {})
    try:
        connection.request(method, path, body=body, headers=all_headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


PROPFIND_ALL = (b'<?xml version="1.0" encoding="utf-8"?>'
                b'<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>')


PROPPATCH_SET = (b'<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" '
                 b'xmlns:Z="urn:quire-test"><D:set><D:prop><Z:colour>red</Z:colour></D:prop>'
                 b'</D:set></D:propertyupdate>')

LOCK_EXCLUSIVE = (b'<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:">'
                  b'<D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>'
                  b'<D:owner>bob</D:owner></D:lockinfo>')


def listing(server, path, authorization):
    """The names in the collection `path` (a PROPFIND of depth 1), folders with a trailing /."""
    status, _, body = request(server, "PROPFIND", path, authorization, PROPFIND_ALL,
                              {"Depth": "1", "Content-Type": "application/xml"})
    if status != 207:
        raise AssertionError(f"PROPFIND {path}: {status} {body[:500]!r}")
    names = set()
    for response in ElementTree.fromstring(body).iter("{DAV:}response"):
        href = urllib.parse.unquote(urllib.parse.urlparse(response.findtext("{DAV:}href")).path)
        if href.rstrip("/") == urllib.parse.unquote(path).rstrip("/"):
            continue
        folder = response.find(".//{DAV:}resourcetype/{DAV:}collection") is not None
        names.add(href.rstrip("/").rsplit("/", 1)[-1] + ("/" if folder else ""))
    return names


def download_as_a_device(server, token, path):
    """What a device of alice's gets for `path` in the drive's container: the journal's entry
    for it (exactly one commit there, a file), that revision's manifest, then its chunks."""
    bearer = f"Bearer {token}"
    entries, since = [], 0
    while True:
        status, _, body = request(
            server, "GET", f"/v1/containers/{CONTAINER}/changes?since={since}", bearer)
        if status != 200:
            raise AssertionError(f"changes: {status} {body[:500]!r}")
        page = json.loads(body)
        entries += page["entries"]
        since = page["cursor"]
        if not page["more"]:
            break
    found = [entry for entry in entries if entry["path"] == path and not entry["deleted"]]
    if len(found) != 1 or found[0]["kind"] != "file" or found[0]["conflict"]:
        raise AssertionError(f"not one current file commit at {path} in the journal: "
                             + json.dumps(entries, indent=1)[:4000])
    entry = found[0]
    status, _, body = request(
        server, "GET", f"/v1/containers/{CONTAINER}/items/{urllib.parse.quote(entry['item'])}"
        f"/revisions/{entry['revision']}", bearer)
    if status != 200:
        raise AssertionError(f"revision: {status} {body[:500]!r}")
    members = json.loads(body)["change"]["upserted"]
    if [member["path"] for member in members] != [""]:
        raise AssertionError(f"not a flat file's manifest: {body[:2000]!r}")
    hashes = [chunk["h"] for chunk in members[0]["chunks"]]
    status, _, body = request(server, "POST", "/v1/chunks/fetch", bearer,
                              json.dumps({"hashes": sorted(set(hashes))}).encode(),
                              {"Content-Type": "application/json"})
    if status != 200:
        raise AssertionError(f"chunks: {status} {body[:500]!r}")
    chunks, offset = {}, 0
    while offset < len(body):  # framed: 32-byte SHA-256, 4-byte big-endian length, bytes
        digest = body[offset:offset + 32].hex()
        length = int.from_bytes(body[offset + 32:offset + 36], "big")
        chunks[digest] = body[offset + 36:offset + 36 + length]
        offset += 36 + length
    data = b"".join(chunks[digest] for digest in hashes)
    if len(data) != members[0]["size"]:
        raise AssertionError(f"{len(data)} bytes, the manifest says {members[0]['size']}")
    return data


def tree(root):
    """Every file under `root`: its relative path and bytes."""
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            with open(path, "rb") as file:
                files[os.path.relpath(path, root)] = file.read()
    return files


class WebDAVClientTests(unittest.TestCase):
    """Real WebDAV clients against the drive, signed in as alice with an app password."""

    @classmethod
    def setUpClass(cls):
        cls.server = SyncServer()
        try:
            cls.password = app_password(cls.server, "clients")
        except BaseException:
            cls.server.close()
            raise
        cls.dav = cls.server.url + "/dav/"
        cls.authorization = basic("alice", cls.password)

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def temporary_folder(self):
        folder = tempfile.mkdtemp(prefix="quire-webdav-test-")
        self.addCleanup(shutil.rmtree, folder, ignore_errors=True)
        return folder

    # litmus creates (and first deletes) the collection `litmus/` under the URL it is given and
    # runs every test inside it; each suite starts afresh. It writes a full trace of its
    # requests and the server's answers to debug.log in its working folder.
    def run_litmus(self, suite):
        work = self.temporary_folder()
        result = subprocess.run(
            ["litmus", self.dav, "alice", self.password], cwd=work,
            env=dict(os.environ, TESTS=suite), capture_output=True, text=True, timeout=600)
        if result.returncode != 0:
            self.fail(f"litmus {suite} failed (exit {result.returncode}):\n{result.stdout}"
                      f"{result.stderr}\n{self.litmus_trace(work, result.stdout)}")
        self.assertRegex(result.stdout,
                         rf"summary for `{suite}': of \d+ tests run: \d+ passed, 0 failed")
        self.assertIsNone(self.server.process.poll(), "the server died during the run")

    @staticmethod
    def litmus_trace(work, output):
        """The failed tests' part of debug.log (its end when none can be told apart)."""
        try:
            with open(os.path.join(work, "debug.log"), encoding="utf-8", errors="replace") as file:
                log = file.read()
        except OSError:
            return "(no debug.log)"
        sections = re.split(r"(?m)^(?=\*{7} Running test \d+: )", log)
        failed = set(re.findall(r"\d+\. (\w+)\.* *FAIL", output))
        chosen = [section for section in sections
                  if (match := re.match(r"\*{7} Running test \d+: (\w+)", section))
                  and match.group(1) in failed]
        text = "\n".join(chosen) if chosen else log
        return "debug.log:\n" + text[-20000:]

    def test_litmus_basic(self):
        """litmus's basic suite: OPTIONS, PUT and GET byte for byte (UTF-8 names too), DELETE,
        MKCOL, and the errors a client relies on (409 with no parent, 405 over an existing
        resource, 415 for a body)."""
        self.run_litmus("basic")

    def test_litmus_copymove(self):
        """litmus's copymove suite: COPY and MOVE of files and collections, with and without
        Overwrite, onto existing and missing destinations, and shallow copies."""
        self.run_litmus("copymove")

    def test_litmus_props(self):
        """litmus's props suite: PROPFIND (and refusing malformed bodies), PROPPATCH setting,
        replacing and removing dead properties in several namespaces, kept across MOVE."""
        self.run_litmus("props")

    def test_litmus_http(self):
        """litmus's http suite: a PUT with Expect: 100-continue is answered, not left waiting."""
        self.run_litmus("http")

    def test_litmus_locks(self):
        """litmus's locks suite (class 2): exclusive and shared locks, depth 0 and infinity,
        lock discovery, refresh, 423 for a writer without the token, If headers with lock
        tokens and ETags (412 when they fail), and a LOCK of an unmapped URL."""
        self.run_litmus("locks")

    def test_rclone_copies_a_tree_up_and_down_unchanged(self):
        """rclone (a webdav remote, vendor other) copies ~50 files in nested folders and a 3 MiB
        binary up to the drive and back down into another folder: the two trees are byte for
        byte the same, and `rclone check --download` finds no difference on the server."""
        home = self.temporary_folder()
        up = os.path.join(self.temporary_folder(), "up")
        down = os.path.join(self.temporary_folder(), "down")
        generator = random.Random(7)
        for index in range(49):
            folder = os.path.join(up, ["Notes", "Notes/2024", "Notes/2024/März", "Photos/raw",
                                       "Projects/a b/c", ""][index % 6])
            os.makedirs(folder, exist_ok=True)
            name = f"file {index}.txt" if index % 3 else f"Résumé-{index}.md"
            with open(os.path.join(folder, name), "wb") as file:
                file.write(f"note {index}\n".encode()
                           + generator.randbytes(generator.randrange(0, 4000)))
        with open(os.path.join(up, "Photos", "big.bin"), "wb") as file:
            file.write(generator.randbytes(3 * 1024 * 1024))
        obscured = subprocess.run(
            ["rclone", "--config", os.devnull, "obscure", self.password],
            capture_output=True, text=True, check=True, timeout=60).stdout.strip()
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, "config"),
                   XDG_CACHE_HOME=os.path.join(home, "cache"),
                   RCLONE_CONFIG_Q_TYPE="webdav", RCLONE_CONFIG_Q_URL=self.dav,
                   RCLONE_CONFIG_Q_VENDOR="other", RCLONE_CONFIG_Q_USER="alice",
                   RCLONE_CONFIG_Q_PASS=obscured)

        def rclone(*arguments):
            # No retries: a request the server fails must fail the run, not be hidden by a
            # second attempt.
            result = subprocess.run(
                ["rclone", "--config", os.devnull, "--retries", "1", "--low-level-retries", "1",
                 *arguments], env=env, capture_output=True, text=True, timeout=600)
            self.assertEqual(result.returncode, 0,
                             f"rclone {' '.join(arguments)}:\n{result.stdout}{result.stderr}")

        rclone("copy", up, "q:rclone-up")
        rclone("copy", "q:rclone-up", down)
        sent, received = tree(up), tree(down)
        self.assertEqual(len(sent), 50)
        self.assertEqual(sorted(received), sorted(sent))
        for path, data in sent.items():
            self.assertEqual(received[path], data, f"{path} came back different")
        rclone("check", "--download", up, "q:rclone-up")
        top = {name + ("/" if os.path.isdir(os.path.join(up, name)) else "")
               for name in os.listdir(up)}
        self.assertEqual(listing(self.server, "/dav/rclone-up/", self.authorization), top)

    def test_a_cadaver_session_makes_folders_and_puts_gets_moves_and_deletes_files(self):
        """A scripted cadaver session (credentials from ~/.netrc) makes a folder and one inside
        it, puts two files, gets one back, moves it into the inner folder, deletes the other
        and lists: every step succeeds, the file got back is the one put, and the server then
        holds exactly the moved file, with its bytes, in the inner folder."""
        home = self.temporary_folder()
        work = self.temporary_folder()
        host = urllib.parse.urlparse(self.server.url).hostname
        netrc = os.path.join(home, ".netrc")
        with open(netrc, "w") as file:
            file.write(f"machine {host} login alice password {self.password}\n")
        os.chmod(netrc, stat.S_IRUSR | stat.S_IWUSR)
        report = b"Quarterly report\n" + random.Random(3).randbytes(200_000)
        with open(os.path.join(work, "report.bin"), "wb") as file:
            file.write(report)
        with open(os.path.join(work, "draft.txt"), "w") as file:
            file.write("a draft to throw away\n")
        script = "\n".join([
            "mkcol Cadaver", "cd Cadaver", "mkcol Archive",
            "put report.bin report.bin", "put draft.txt draft.txt",
            "get report.bin fetched.bin",
            "move report.bin Archive/report.bin",
            "delete draft.txt",
            "ls", "ls Archive", "quit", ""])
        result = subprocess.run(["cadaver", self.dav], input=script, cwd=work,
                                env=dict(os.environ, HOME=home), capture_output=True, text=True,
                                timeout=120)
        output = result.stdout + result.stderr
        # cadaver exits 0 whatever its commands did; a failed one says so.
        self.assertEqual(result.returncode, 0, output)
        self.assertFalse("failed" in output.lower(), output)
        # mkcol ×2, put ×2, get, move, delete, ls ×2
        self.assertEqual(output.count("succeeded"), 9, output)
        with open(os.path.join(work, "fetched.bin"), "rb") as file:
            self.assertEqual(file.read(), report, "cadaver's get gave other bytes than its put")
        # `ls Archive` lists the moved file with its size.
        self.assertRegex(output, rf"report\.bin\s+{len(report)}\b", output)

        self.assertEqual(listing(self.server, "/dav/Cadaver/", self.authorization), {"Archive/"})
        self.assertEqual(listing(self.server, "/dav/Cadaver/Archive/", self.authorization),
                         {"report.bin"})
        status, _, body = request(self.server, "GET", "/dav/Cadaver/Archive/report.bin",
                                  self.authorization)
        self.assertEqual(status, 200)
        self.assertEqual(body, report)
        for gone in ("/dav/Cadaver/report.bin", "/dav/Cadaver/draft.txt"):
            status, _, _ = request(self.server, "GET", gone, self.authorization)
            self.assertEqual(status, 404, gone)


class WebDAVAccessTests(unittest.TestCase):
    """Who the drive opens to, and what a file saved through it means for alice's devices."""

    @classmethod
    def setUpClass(cls):
        cls.server = SyncServer(users=("alice", "bob"))

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def test_another_account_sees_and_touches_only_its_own_drive(self):
        """bob's app password opens bob's drive: alice's file is not listed, not readable, and
        bob's DELETE, MOVE and PUT at its path change only bob's drive. alice's password with
        bob's name opens nothing, and a path that climbs out of the drive is refused."""
        alice = basic("alice", app_password(self.server, "alice-laptop"))
        output = quire_server(self.server, "app-password", "bob", "--label", "bob-laptop")
        bob = basic("bob", output.strip().splitlines()[-1])
        status, _, body = request(self.server, "PUT", "/dav/Private.txt", alice, b"alice's\n")
        self.assertEqual(status, 201, body[:500])
        self.assertNotIn("Private.txt", listing(self.server, "/dav/", bob))
        self.assertEqual(request(self.server, "GET", "/dav/Private.txt", bob)[0], 404)
        self.assertEqual(request(self.server, "DELETE", "/dav/Private.txt", bob)[0], 404)
        self.assertEqual(request(self.server, "MOVE", "/dav/Private.txt", bob,
                                 headers={"Destination": "/dav/Mine.txt"})[0], 404)
        self.assertEqual(request(self.server, "PUT", "/dav/Private.txt", bob, b"bob's\n")[0], 201)
        self.assertEqual(request(self.server, "GET", "/dav/Private.txt", alice)[2], b"alice's\n")
        self.assertEqual(request(self.server, "GET", "/dav/Private.txt", bob)[2], b"bob's\n")
        alice_password = alice.split()[1]
        alice_secret = base64.b64decode(alice_password).decode().split(":", 1)[1]
        self.assertEqual(self.propfind_root(basic("bob", alice_secret))[0], 401)
        for climbing in ["/dav/../v1/health", "/dav/a/%2e%2e/%2e%2e/etc/passwd", "/dav/%00"]:
            status, _, body = request(self.server, "GET", climbing, alice)
            self.assertIn(status, (400, 404), f"{climbing}: {status} {body[:300]!r}")
            self.assertNotIn(b"root:", body)

    def test_what_others_share_is_under_shared_with_me_and_a_read_only_share_refuses_writes(self):
        """alice shares a folder with bob read-write and a document read-only. bob's drive lists
        "Shared with me" with both at their names; he reads them, edits, adds, renames and
        deletes inside the folder (alice reads his changes in her drive, where they are
        commits), and locks a file there that alice's own write then waits for. Every write to
        the read-only document is 403, as are moving or deleting the shared folder itself,
        moving a file out of it, and writing into "Shared with me"; nothing else of alice's is
        reachable through it."""
        token = self.server.sign_in()
        alice = basic("alice", app_password(self.server, "sharing"))
        output = quire_server(self.server, "app-password", "bob", "--label", "bob-sharing")
        bob = basic("bob", output.strip().splitlines()[-1])
        for folder in ("/dav/Lent/", "/dav/Lent/Projects/", "/dav/Lent/Private/"):
            self.assertEqual(request(self.server, "MKCOL", folder, alice)[0], 201, folder)
        for path, content in (("/dav/Lent/Projects/Plan.txt", b"the plan\n"),
                              ("/dav/Lent/Private/Diary.txt", b"dear diary\n"),
                              ("/dav/Lent/Recipe.txt", b"flour, water\n")):
            self.assertEqual(request(self.server, "PUT", path, alice, content)[0], 201, path)
        bearer = f"Bearer {token}"
        scope = f"/v1/containers/{CONTAINER}"
        status, _, body = request(self.server, "POST", f"{scope}/shares", bearer, json.dumps(
            {"user": "bob", "role": "write", "folder": "Lent/Projects"}).encode(),
            {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body[:500])
        recipe = self.item_at(token, "Documents/Lent/Recipe.txt")
        status, _, body = request(self.server, "POST", f"{scope}/items/{recipe}/shares", bearer,
                                  json.dumps({"user": "bob", "role": "read"}).encode(),
                                  {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body[:500])

        shared = "/dav/Shared%20with%20me/"
        self.assertIn("Shared with me/", listing(self.server, "/dav/", bob))
        self.assertNotIn("Shared with me/", listing(self.server, "/dav/", alice))
        self.assertEqual(listing(self.server, shared, bob), {"Projects/", "Recipe.txt"})
        self.assertEqual(listing(self.server, shared + "Projects/", bob), {"Plan.txt"})
        status, _, body = request(self.server, "PROPFIND", shared + "Projects/", bob, PROPFIND_ALL,
                                  {"Depth": "1", "Content-Type": "application/xml"})
        hrefs = [element.text for element in ElementTree.fromstring(body).iter("{DAV:}href")]
        self.assertEqual(sorted(hrefs), [shared + "Projects/", shared + "Projects/Plan.txt"])
        self.assertEqual(request(self.server, "GET", shared + "Projects/Plan.txt", bob)[2],
                         b"the plan\n")
        self.assertEqual(request(self.server, "GET", shared + "Recipe.txt", bob)[2],
                         b"flour, water\n")

        # The read-only document: every write is 403, and it stays as alice has it.
        for method, headers, body in (("PUT", {}, b"bob's recipe\n"), ("DELETE", {}, None),
                                      ("PROPPATCH", {}, PROPPATCH_SET),
                                      ("MOVE", {"Destination": shared + "Other.txt"}, None),
                                      ("LOCK", {}, LOCK_EXCLUSIVE)):
            status, _, answer = request(self.server, method, shared + "Recipe.txt", bob, body,
                                        headers)
            self.assertEqual(status, 403, f"{method}: {answer[:300]!r}")
            self.assertEqual(json.loads(answer)["error"]["code"], "forbidden")
        self.assertEqual(request(self.server, "GET", "/dav/Lent/Recipe.txt", alice)[2],
                         b"flour, water\n")

        # The read-write folder: edits, new files, renames and deletions inside it are alice's
        # commits too.
        self.assertEqual(request(self.server, "PUT", shared + "Projects/Plan.txt", bob,
                                 b"the plan, as bob sees it\n")[0], 204)
        self.assertEqual(request(self.server, "GET", "/dav/Lent/Projects/Plan.txt", alice)[2],
                         b"the plan, as bob sees it\n")
        self.assertEqual(request(self.server, "PUT", shared + "Projects/Budget.txt", bob,
                                 b"12 coffees\n")[0], 201)
        self.assertEqual(request(self.server, "MOVE", shared + "Projects/Budget.txt", bob, headers={
            "Destination": self.server.url + shared + "Projects/Costs.txt"})[0], 201)
        self.assertEqual(listing(self.server, "/dav/Lent/Projects/", alice),
                         {"Plan.txt", "Costs.txt"})
        self.assertEqual(request(self.server, "GET", "/dav/Lent/Projects/Costs.txt", alice)[2],
                         b"12 coffees\n")
        self.assertEqual(request(self.server, "DELETE", shared + "Projects/Costs.txt", bob)[0], 204)
        self.assertEqual(listing(self.server, "/dav/Lent/Projects/", alice), {"Plan.txt"})

        # A lock bob takes in the share holds against alice's own writes.
        status, headers, body = request(self.server, "LOCK", shared + "Projects/Plan.txt", bob,
                                        LOCK_EXCLUSIVE, {"Content-Type": "application/xml"})
        self.assertEqual(status, 200, body[:500])
        self.assertIn(b"Shared%20with%20me/Projects/Plan.txt", body)
        self.assertEqual(request(self.server, "PUT", "/dav/Lent/Projects/Plan.txt", alice,
                                 b"alice's\n")[0], 423)
        self.assertEqual(request(self.server, "UNLOCK", shared + "Projects/Plan.txt", bob,
                                 headers={"Lock-Token": headers["Lock-Token"]})[0], 204)
        self.assertEqual(request(self.server, "PUT", "/dav/Lent/Projects/Plan.txt", alice,
                                 b"alice's\n")[0], 204)

        # The share itself, and what is outside it, are alice's alone.
        refused = [("DELETE", shared + "Projects/", {}),
                   ("MOVE", shared + "Projects/", {"Destination": "/dav/Mine/"}),
                   ("MOVE", shared + "Projects/Plan.txt", {"Destination": "/dav/Plan.txt"}),
                   ("COPY", shared + "Projects/Plan.txt", {"Destination": "/dav/Plan.txt"}),
                   ("PUT", shared + "Mine.txt", {}), ("MKCOL", shared + "Mine/", {}),
                   ("DELETE", shared, {})]
        for method, path, headers in refused:
            status, _, answer = request(self.server, method, path, bob, headers=headers)
            self.assertEqual(status, 403, f"{method} {path}: {answer[:300]!r}")
        self.assertEqual(listing(self.server, "/dav/Lent/Projects/", alice), {"Plan.txt"})
        for path in (shared + "Private/Diary.txt", shared + "Projects/%2e%2e/Private/Diary.txt",
                     shared + "Projects/..%2FPrivate%2FDiary.txt", shared + "Lent/Recipe.txt"):
            status, _, answer = request(self.server, "GET", path, bob)
            self.assertIn(status, (400, 404), f"{path}: {status} {answer[:300]!r}")
            self.assertNotIn(b"dear diary", answer)

        # A lock's token is its taker's: alice's lock shows to bob without its token, and her
        # token in bob's hands neither opens the lock nor removes it.
        status, headers, body = request(self.server, "LOCK", "/dav/Lent/Projects/Plan.txt", alice,
                                        LOCK_EXCLUSIVE, {"Content-Type": "application/xml"})
        self.assertEqual(status, 200, body[:500])
        token = headers["Lock-Token"].strip("<>")
        status, _, body = request(self.server, "PROPFIND", shared + "Projects/Plan.txt", bob,
                                  PROPFIND_ALL, {"Depth": "0"})
        self.assertEqual(status, 207, body[:300])
        self.assertIn(b"activelock", body)
        self.assertNotIn(token.encode(), body)
        self.assertNotIn(b"Lent", body)
        status, _, body = request(self.server, "PUT", shared + "Projects/Plan.txt", bob, b"bob's\n",
                                  {"If": f"(<{token}>)"})
        self.assertEqual(status, 423, body[:300])
        self.assertNotIn(b"Lent", body)
        self.assertEqual(request(self.server, "UNLOCK", shared + "Projects/Plan.txt", bob,
                                 headers={"Lock-Token": f"<{token}>"})[0], 409)
        self.assertEqual(request(self.server, "UNLOCK", "/dav/Lent/Projects/Plan.txt", alice,
                                 headers={"Lock-Token": f"<{token}>"})[0], 204)
        self.assertEqual(request(self.server, "GET", "/dav/Lent/Projects/Plan.txt", alice)[2],
                         b"alice's\n")

    def test_an_account_past_its_heavy_requests_at_once_is_told_to_wait_and_others_are_served(self):
        """Twelve GETs of a 32 MiB file whose client reads nothing: eight are answered and hold
        their places until their bytes are written, the other four are 429 with Retry-After, as
        are a DELETE, COPY and MOVE of a folder (each a commit over all it holds), while a
        file's DELETE is served. Another account is served meanwhile, and once the readers go,
        alice is served again."""
        alice = basic("alice", app_password(self.server, "heavy"))
        output = quire_server(self.server, "app-password", "bob", "--label", "bob-heavy")
        bob = basic("bob", output.strip().splitlines()[-1])
        content = random.Random(5).randbytes(32 << 20)
        self.assertEqual(request(self.server, "PUT", "/dav/Heavy.bin", alice, content)[0], 201)
        self.assertEqual(request(self.server, "MKCOL", "/dav/Pile/", alice)[0], 201)
        for path in ["/dav/Pile/a.txt", "/dav/Single.txt"]:
            self.assertEqual(request(self.server, "PUT", path, alice, b"a\n")[0], 201)
        parsed = urllib.parse.urlparse(self.server.url)
        connections, statuses = [], []
        try:
            for _ in range(12):
                connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
                connections.append(connection)
                connection.request("GET", "/dav/Heavy.bin", headers={"Authorization": alice})
                response = connection.getresponse()  # the headers; the body stays unread
                statuses.append((response.status, response.headers.get("Retry-After")))
            self.assertEqual(sorted(status for status, _ in statuses), [200] * 8 + [429] * 4,
                             f"{statuses}; server: {self.server.logged()}")
            self.assertTrue(all(wait for status, wait in statuses if status == 429), statuses)
            destination = {"Destination": "/dav/Pile2/"}
            self.assertEqual(
                [request(self.server, "DELETE", "/dav/Pile/", alice)[0],
                 request(self.server, "COPY", "/dav/Pile/", alice, headers=destination)[0],
                 request(self.server, "MOVE", "/dav/Pile/", alice, headers=destination)[0],
                 request(self.server, "DELETE", "/dav/Single.txt", alice)[0]],
                [429, 429, 429, 204])
            self.assertEqual(self.propfind_root(bob)[0], 207)
            self.assertEqual(request(self.server, "PROPFIND", "/dav/", bob, PROPFIND_ALL,
                                     {"Depth": "1"})[0], 207)
        finally:
            for connection in connections:
                connection.close()
        # The server gives a place back once it sees its reader gone; until then it says when
        # to ask again, and a client does as it says.
        for _ in range(30):
            status, headers, body = request(self.server, "GET", "/dav/Heavy.bin", alice)
            if status != 429:
                break
            time.sleep(float(headers["Retry-After"]))
        self.assertEqual((status, body == content), (200, True))
        self.assertEqual(request(self.server, "DELETE", "/dav/Pile/", alice)[0], 204)

    def item_at(self, token, path):
        """The item id of alice's live document at `path`, from her container's journal."""
        items, since = {}, 0
        while True:
            status, _, body = request(
                self.server, "GET", f"/v1/containers/{CONTAINER}/changes?since={since}",
                f"Bearer {token}")
            self.assertEqual(status, 200, body[:500])
            page = json.loads(body)
            for entry in page["entries"]:
                items[entry["path"]] = None if entry["deleted"] else entry["item"]
            since = page["cursor"]
            if not page["more"]:
                break
        self.assertIsNotNone(items.get(path), f"no live item at {path}")
        return items[path]

    def test_names_that_fuse_with_a_slash_are_served_not_fatal(self):
        """Names that begin with a combining mark (U+0301) or end with a character that joins
        what follows it (U+0600) are cut and compared as bytes: a listing of such a path is a
        404, not a crash of the server, and two names that differ only by a leading combining
        mark stay two files."""
        authorization = basic("alice", app_password(self.server, "unicode"))
        for path in ["/dav/x%D8%80", "/dav/x%D8%80/y", "/dav/%CC%81"]:
            status, _, body = request(self.server, "PROPFIND", path, authorization, b"",
                                      {"Depth": "1"})
            self.assertEqual(status, 404, f"{path}: {status} {body[:300]!r}")
        self.assertEqual(request(self.server, "MKCOL", "/dav/Fuse/", authorization)[0], 201)
        for name, content in [("b", b"plain\n"), ("%CC%81b", b"accented\n")]:
            status, _, body = request(self.server, "PUT", f"/dav/Fuse/{name}", authorization,
                                      content)
            self.assertEqual(status, 201, body[:300])
        self.assertEqual(listing(self.server, "/dav/Fuse/", authorization), {"b", "\u0301b"})
        self.assertEqual(request(self.server, "GET", "/dav/Fuse/%CC%81b", authorization)[2],
                         b"accented\n")
        status, _, body = request(self.server, "PROPFIND", "/dav/", authorization, b"",
                                  {"Depth": "0"})
        self.assertEqual(status, 207, "the server still answers")

    def test_a_move_onto_a_folder_that_holds_the_source_is_refused(self):
        """MOVE /dav/Outer/Inner onto /dav/Outer (Overwrite: T) would delete the folder that
        holds what is moved: it is refused with 403 and both stay as they were."""
        authorization = basic("alice", app_password(self.server, "mover"))
        self.assertEqual(request(self.server, "MKCOL", "/dav/Outer/", authorization)[0], 201)
        self.assertEqual(request(self.server, "MKCOL", "/dav/Outer/Inner/", authorization)[0], 201)
        self.assertEqual(request(self.server, "PUT", "/dav/Outer/Inner/kept.txt", authorization,
                                 b"kept\n")[0], 201)
        status, _, body = request(self.server, "MOVE", "/dav/Outer/Inner/", authorization,
                                  headers={"Destination": self.server.url + "/dav/Outer/",
                                           "Overwrite": "T"})
        self.assertEqual(status, 403, body[:300])
        self.assertEqual(request(self.server, "GET", "/dav/Outer/Inner/kept.txt",
                                 authorization)[2], b"kept\n")

    def test_a_copy_of_depth_0_copies_the_folder_alone(self):
        """COPY of a folder with Depth: 0 makes the folder with its own dead properties, and
        nothing of what is inside: no file, no empty subfolder, no subfolder's property
        (RFC 4918 §9.8.3). Depth: infinity copies all three."""
        authorization = basic("alice", app_password(self.server, "copier"))
        patch = (b'<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" '
                 b'xmlns:Z="urn:quire-test"><D:set><D:prop><Z:colour>%s</Z:colour></D:prop>'
                 b'</D:set></D:propertyupdate>')
        for path in ["/dav/Album/", "/dav/Album/Empty/"]:
            self.assertEqual(request(self.server, "MKCOL", path, authorization)[0], 201)
        self.assertEqual(request(self.server, "PUT", "/dav/Album/photo.txt", authorization,
                                 b"photo\n")[0], 201)
        for path, colour in [("/dav/Album/", b"red"), ("/dav/Album/Empty/", b"blue")]:
            status, _, body = request(self.server, "PROPPATCH", path, authorization,
                                      patch % colour, {"Content-Type": "application/xml"})
            self.assertEqual(status, 207, body[:300])

        def colour(path):
            status, _, body = request(
                self.server, "PROPFIND", path, authorization,
                b'<?xml version="1.0"?><D:propfind xmlns:D="DAV:" xmlns:Z="urn:quire-test">'
                b'<D:prop><Z:colour/></D:prop></D:propfind>', {"Depth": "0"})
            if status == 404:
                return None
            self.assertEqual(status, 207, body[:300])
            return ElementTree.fromstring(body).findtext(".//{urn:quire-test}colour")

        for depth, name in [("0", "Shallow"), ("infinity", "Deep")]:
            status, _, body = request(self.server, "COPY", "/dav/Album/", authorization,
                                      headers={"Destination": f"/dav/{name}/", "Depth": depth})
            self.assertEqual(status, 201, body[:300])
            self.assertEqual(colour(f"/dav/{name}/"), "red", f"Depth {depth}: the folder's own")
        self.assertEqual(listing(self.server, "/dav/Shallow/", authorization), set())
        self.assertIsNone(colour("/dav/Shallow/Empty/"), "no subfolder's property, nor subfolder")
        self.assertEqual(listing(self.server, "/dav/Deep/", authorization),
                         {"photo.txt", "Empty/"})
        self.assertEqual(colour("/dav/Deep/Empty/"), "blue")

    def test_a_member_cannot_replace_a_folder_of_its_package(self):
        """In a package holding a.txt and Data/x, MOVE a.txt onto Data would leave a member
        Data beside Data/x: it is refused with 409, and both members stay readable."""
        token = self.server.sign_in()
        bearer = f"Bearer {token}"
        members, frames = [], b""
        for path, content in [("a.txt", b"a\n"), ("Data/x", b"x\n")]:
            digest = hashlib.sha256(content).digest()
            frames += digest + len(content).to_bytes(4, "big") + content
            members.append({"path": path, "size": len(content), "mode": 0o644, "modified": 0,
                            "hash": digest.hex(), "chunks": [{"h": digest.hex(),
                                                              "n": len(content)}]})
        status, _, body = request(self.server, "POST", "/v1/chunks", bearer, frames,
                                  {"Content-Type": "application/octet-stream"})
        self.assertEqual(status, 200, body[:300])
        commit = {"commit": str(uuid.uuid4()), "item": str(uuid.uuid4()), "kind": "package",
                  "path": "Documents/Pack.mydoc", "base": None, "deleted": False,
                  "change": {"upserted": members, "removed": []}}
        status, _, body = request(self.server, "POST", f"/v1/containers/{CONTAINER}/commits",
                                  bearer, json.dumps(commit).encode(),
                                  {"Content-Type": "application/json"})
        self.assertEqual(status, 201, body[:300])
        authorization = basic("alice", app_password(self.server, "packer"))
        self.assertEqual(listing(self.server, "/dav/Pack.mydoc/", authorization),
                         {"a.txt", "Data/"})
        status, _, body = request(self.server, "MOVE", "/dav/Pack.mydoc/a.txt", authorization,
                                  headers={"Destination": "/dav/Pack.mydoc/Data",
                                           "Overwrite": "T"})
        self.assertEqual(status, 409, body[:300])
        self.assertEqual(request(self.server, "GET", "/dav/Pack.mydoc/a.txt", authorization)[2],
                         b"a\n")
        self.assertEqual(request(self.server, "GET", "/dav/Pack.mydoc/Data/x", authorization)[2],
                         b"x\n")

    def test_a_listing_dates_packages_and_undated_files_as_their_own_propfind_does(self):
        """A package, and a file whose member carries no time of its own, show the time their
        revision was committed: the same in their folder's listing as asked alone, and now."""
        token = self.server.sign_in()
        bearer = f"Bearer {token}"
        content = b"dated by its commit\n"
        digest = hashlib.sha256(content).digest()
        status, _, body = request(self.server, "POST", "/v1/chunks", bearer,
                                  digest + len(content).to_bytes(4, "big") + content,
                                  {"Content-Type": "application/octet-stream"})
        self.assertEqual(status, 200, body[:300])
        for kind, path, member in [("package", "Documents/Dated/Pack.mydoc", "a.txt"),
                                   ("file", "Documents/Dated/Undated.txt", "")]:
            commit = {"commit": str(uuid.uuid4()), "item": str(uuid.uuid4()), "kind": kind,
                      "path": path, "base": None, "deleted": False,
                      "change": {"upserted": [{
                          "path": member, "size": len(content), "mode": 0o644, "modified": 0,
                          "hash": digest.hex(),
                          "chunks": [{"h": digest.hex(), "n": len(content)}]}],
                          "removed": []}}
            status, _, body = request(
                self.server, "POST", f"/v1/containers/{CONTAINER}/commits", bearer,
                json.dumps(commit).encode(), {"Content-Type": "application/json"})
            self.assertEqual(status, 201, body[:300])
        authorization = basic("alice", app_password(self.server, "dates"))

        def dates(path, depth):
            status, _, body = request(self.server, "PROPFIND", path, authorization,
                                      PROPFIND_ALL, {"Depth": depth})
            self.assertEqual(status, 207, body[:300])
            return {urllib.parse.unquote(response.findtext("{DAV:}href")).rstrip("/"):
                    (response.findtext(".//{DAV:}getlastmodified"),
                     response.findtext(".//{DAV:}creationdate"))
                    for response in ElementTree.fromstring(body).iter("{DAV:}response")}

        listed = dates("/dav/Dated/", "1")
        for href in ["/dav/Dated/Pack.mydoc", "/dav/Dated/Undated.txt"]:
            self.assertEqual(listed[href], dates(href, "0")[href], href)
            shown = time.mktime(time.strptime(listed[href][0], "%a, %d %b %Y %H:%M:%S GMT"))
            self.assertLess(abs(shown - time.mktime(time.gmtime())), 300, listed[href])

    def propfind_root(self, authorization):
        return request(self.server, "PROPFIND", "/dav/", authorization, PROPFIND_ALL,
                       {"Depth": "0", "Content-Type": "application/xml"})

    def test_without_credentials_the_drive_asks_for_basic_authentication(self):
        """No credentials: 401 with a Basic challenge in the realm Quire, which is what makes
        WebDAV clients (Finder, Windows, davfs2, rclone, cadaver) ask for the password."""
        for method, path in (("PROPFIND", "/dav/"), ("GET", "/dav/anything.txt"),
                             ("PUT", "/dav/anything.txt")):
            status, headers, _ = request(self.server, method, path,
                                         body=b"x" if method == "PUT" else None)
            self.assertEqual(status, 401, f"{method} {path}")
            challenge = headers.get("WWW-Authenticate") or ""
            self.assertTrue(challenge.startswith('Basic realm="Quire"'),
                            f"{method} {path}: WWW-Authenticate {challenge!r}")

    def test_an_app_password_opens_the_drive_and_the_account_password_does_not(self):
        """alice with an app password gets her drive (207); with her account password, which a
        WebDAV client would keep in plain sight, she gets 401."""
        password = app_password(self.server, "laptop")
        status, _, body = self.propfind_root(basic("alice", password))
        self.assertEqual(status, 207, body[:500])
        status, headers, _ = self.propfind_root(basic("alice", "alice-password"))
        self.assertEqual(status, 401)
        self.assertTrue((headers.get("WWW-Authenticate") or "").startswith("Basic"))

    def test_a_revoked_app_password_no_longer_opens_the_drive(self):
        """An app password is listed with the devices under its label and revoked like one:
        from then on it gets 401, while alice's other app passwords keep working."""
        lost = app_password(self.server, "lost phone")
        kept = app_password(self.server, "desktop")
        self.assertEqual(self.propfind_root(basic("alice", lost))[0], 207)
        devices = quire_server(self.server, "devices", "alice")
        rows = [line.split("\t") for line in devices.splitlines()]
        # Listed under its label, marked as an app password rather than a device.
        lost_rows = [row for row in rows if "lost phone (app password)" in row]
        self.assertEqual(len(lost_rows), 1, devices)
        self.assertEqual(len([row for row in rows if "desktop (app password)" in row]), 1,
                         devices)
        self.assertNotIn("revoked", lost_rows[0], devices)
        quire_server(self.server, "revoke", lost_rows[0][0])
        self.assertEqual(self.propfind_root(basic("alice", lost))[0], 401)
        self.assertEqual(self.propfind_root(basic("alice", kept))[0], 207)
        devices = quire_server(self.server, "devices", "alice")
        self.assertIn("revoked", [row for row in (line.split("\t") for line in devices.splitlines())
                                  if row[0] == lost_rows[0][0]][0], devices)

    def test_a_device_token_opens_the_drive_as_a_bearer_token(self):
        """A signed-in device's token, sent as `Authorization: Bearer`, opens the drive."""
        token = self.server.sign_in()
        status, _, body = self.propfind_root(f"Bearer {token}")
        self.assertEqual(status, 207, body[:500])

    def test_a_file_put_over_webdav_reaches_the_devices_through_the_journal(self):
        """A file PUT into a folder over WebDAV is a commit in the drive's container: a device
        reading the change journal finds it at Documents/FOLDER/NAME, and fetching that
        revision's manifest and chunks, as a device does, gives back exactly the bytes put."""
        token = self.server.sign_in()
        authorization = basic("alice", app_password(self.server, "journal"))
        content = b"written over WebDAV\n" + random.Random(11).randbytes(300_000)
        status, _, body = request(self.server, "MKCOL", "/dav/Journal/", authorization)
        self.assertEqual(status, 201, body[:500])
        status, _, body = request(self.server, "PUT", "/dav/Journal/from%20webdav.bin",
                                  authorization, content)
        self.assertEqual(status, 201, body[:500])

        self.assertEqual(
            download_as_a_device(self.server, token, "Documents/Journal/from webdav.bin"), content)

    def test_a_lock_is_honoured_by_a_device_too(self):
        """While a WebDAV client holds a lock on a document, a device's commit to it (here a
        rename) is not applied over the lock: it is kept as a conflict version, and the
        document stays where it was. Once unlocked, the same rename goes through."""
        token = self.server.sign_in()
        bearer = f"Bearer {token}"
        authorization = basic("alice", app_password(self.server, "locker"))
        status, _, body = request(self.server, "PUT", "/dav/Locked%20plan.txt", authorization,
                                  b"mine while I edit it\n")
        self.assertEqual(status, 201, body[:500])
        lockinfo = (b'<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:">'
                    b'<D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>'
                    b'<D:owner>Word on the laptop</D:owner></D:lockinfo>')
        status, headers, body = request(self.server, "LOCK", "/dav/Locked%20plan.txt",
                                        authorization, lockinfo,
                                        {"Depth": "0", "Timeout": "Second-600"})
        self.assertEqual(status, 200, body[:500])
        lock_token = headers["Lock-Token"]
        self.assertTrue(lock_token.startswith("<urn:uuid:"), lock_token)

        status, _, body = request(
            self.server, "GET", f"/v1/containers/{CONTAINER}/changes?since=0", bearer)
        self.assertEqual(status, 200, body[:500])
        entry = [entry for entry in json.loads(body)["entries"]
                 if entry["path"] == "Documents/Locked plan.txt"][-1]

        def rename(to):
            commit = {"commit": str(uuid.uuid4()), "item": entry["item"], "kind": "file",
                      "path": to, "base": entry["revision"], "deleted": False,
                      "change": {"upserted": [], "removed": []}}
            status, _, body = request(
                self.server, "POST", f"/v1/containers/{CONTAINER}/commits", bearer,
                json.dumps(commit).encode(), {"Content-Type": "application/json"})
            self.assertIn(status, (200, 201), body[:500])
            return json.loads(body)

        answer = rename("Documents/Renamed by a device.txt")
        self.assertEqual(answer["status"], "conflict", answer)
        self.assertEqual(answer["current"], entry["revision"], answer)
        self.assertIn("Locked plan.txt", listing(self.server, "/dav/", authorization))
        self.assertNotIn("Renamed by a device.txt", listing(self.server, "/dav/", authorization))

        status, _, body = request(self.server, "UNLOCK", "/dav/Locked%20plan.txt", authorization,
                                  headers={"Lock-Token": lock_token})
        self.assertEqual(status, 204, body[:500])
        self.assertEqual(rename("Documents/Renamed by a device.txt")["status"], "current")
        names = listing(self.server, "/dav/", authorization)
        self.assertIn("Renamed by a device.txt", names)
        self.assertNotIn("Locked plan.txt", names)

    def test_a_lock_on_a_member_holds_against_a_device_that_edits_or_moves_its_package(self):
        """A lock on one member of a package (Pack.mydoc/a.txt) is a lock on that resource: a
        device's change to a.txt, or its rename of the whole package, is kept as a conflict
        version and a.txt stays as it was; a change to the member b.txt beside it goes through."""
        bearer = f"Bearer {self.server.sign_in()}"
        authorization = basic("alice", app_password(self.server, "member-locker"))
        item = str(uuid.uuid4())

        def commit(path, base, contents, removed=()):
            members, frames = [], b""
            for member, content in contents.items():
                digest = hashlib.sha256(content).digest()
                frames += digest + len(content).to_bytes(4, "big") + content
                members.append({"path": member, "size": len(content), "mode": 0o644,
                                "modified": 0, "hash": digest.hex(),
                                "chunks": [{"h": digest.hex(), "n": len(content)}]})
            if frames:
                status, _, body = request(self.server, "POST", "/v1/chunks", bearer, frames,
                                          {"Content-Type": "application/octet-stream"})
                self.assertEqual(status, 200, body[:300])
            status, _, body = request(
                self.server, "POST", f"/v1/containers/{CONTAINER}/commits", bearer,
                json.dumps({"commit": str(uuid.uuid4()), "item": item, "kind": "package",
                            "path": path, "base": base, "deleted": False,
                            "change": {"upserted": members, "removed": list(removed)}}).encode(),
                {"Content-Type": "application/json"})
            self.assertIn(status, (200, 201), body[:300])
            return json.loads(body)

        first = commit("Documents/Locked pack.mydoc", None, {"a.txt": b"a\n", "b.txt": b"b\n"})
        lockinfo = (b'<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:">'
                    b'<D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>'
                    b'</D:lockinfo>')
        status, _, body = request(self.server, "LOCK", "/dav/Locked%20pack.mydoc/a.txt",
                                  authorization, lockinfo, {"Depth": "0"})
        self.assertEqual(status, 200, body[:300])

        edited = commit("Documents/Locked pack.mydoc", first["current"], {"a.txt": b"device\n"})
        self.assertEqual(edited["status"], "conflict", edited)
        removed = commit("Documents/Locked pack.mydoc", first["current"], {}, removed=["a.txt"])
        self.assertEqual(removed["status"], "conflict", removed)
        moved = commit("Documents/Moved pack.mydoc", first["current"], {})
        self.assertEqual(moved["status"], "conflict", moved)
        self.assertEqual(request(self.server, "GET", "/dav/Locked%20pack.mydoc/a.txt",
                                 authorization)[2], b"a\n")
        beside = commit("Documents/Locked pack.mydoc", first["current"], {"b.txt": b"device\n"})
        self.assertEqual(beside["status"], "current", beside)
        self.assertEqual(request(self.server, "GET", "/dav/Locked%20pack.mydoc/b.txt",
                                 authorization)[2], b"device\n")
        self.assertEqual(request(self.server, "GET", "/dav/Locked%20pack.mydoc/a.txt",
                                 authorization)[2], b"a\n")



def peak_rss_mib(pid):
    """The process's peak resident memory (VmHWM), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


class WebDAVLargeFileTests(unittest.TestCase):
    """A large PUT on a server of its own, so that its peak memory is this PUT's."""

    def test_a_large_put_is_stored_in_bounded_memory_and_reads_back_whole(self):
        """A 160 MiB PUT, sent in pieces, is cut into chunks as it arrives: the server's peak
        memory grows by far less than the file (before, it held the body and a copy of it),
        and a GET returns every byte, as does a GET of a 100 MiB range of it (streamed from
        the chunks that hold it; it was sent whole). A PUT that says it is over the limit gets 413 before any
        byte is read, and the drive keeps the first file."""
        server = SyncServer()
        try:
            authorization = basic("alice", app_password(server, "backup"))
            status, _, body = request(server, "PUT", "/dav/warm.txt", authorization, b"warm\n")
            self.assertEqual(status, 201, body[:300])
            before = peak_rss_mib(server.process.pid)
            size, piece = 160 << 20, 1 << 20
            seed = random.Random(7)
            pieces = [seed.randbytes(piece) for _ in range(8)]  # repeated, the file is not held
            digest = hashlib.sha256()
            for index in range(size // piece):
                digest.update(pieces[index % len(pieces)])
            parsed = urllib.parse.urlparse(server.url)
            connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=300)
            try:
                connection.request("PUT", "/dav/Large.bin",
                                   body=(pieces[index % len(pieces)] for index in range(size // piece)),
                                   headers={"Authorization": authorization,
                                            "Content-Length": str(size)})
                response = connection.getresponse()
                self.assertEqual(response.status, 201, response.read()[:300])
                response.read()
            finally:
                connection.close()
            grown = peak_rss_mib(server.process.pid) - before
            self.assertLess(grown, 64, f"the server's peak memory grew by {grown:.0f} MiB for 160 MiB")
            status, headers, body = request(server, "GET", "/dav/Large.bin", authorization)
            self.assertEqual(status, 200)
            self.assertEqual(len(body), size)
            self.assertEqual(hashlib.sha256(body).hexdigest(), digest.hexdigest())
            self.assertEqual(headers["ETag"].strip('"'), digest.hexdigest()[:32])
            # A range of 100 MiB (over the 64 MiB once read into memory, then sent whole) is
            # streamed from the chunks that hold it, as the whole file is: 206 and its bytes.
            start, end = 3 * piece + 12345, 103 * piece + 999
            expected = b"".join(pieces[index % len(pieces)] for index in range(size // piece))
            status, headers, body = request(server, "GET", "/dav/Large.bin", authorization,
                                            headers={"Range": f"bytes={start}-{end}"})
            self.assertEqual(status, 206, body[:300])
            self.assertEqual(headers["Content-Range"], f"bytes {start}-{end}/{size}")
            self.assertEqual(len(body), end - start + 1)
            self.assertEqual(body, expected[start:end + 1])
            status, headers, body = request(server, "GET", "/dav/Large.bin", authorization,
                                            headers={"Range": "bytes=-10"})
            self.assertEqual((status, body), (206, expected[-10:]))
            del expected
            parsed = urllib.parse.urlparse(server.url)
            connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=60)
            try:
                connection.putrequest("PUT", "/dav/Large.bin")
                connection.putheader("Authorization", authorization)
                connection.putheader("Content-Length", str(1 << 40))
                connection.endheaders()
                response = connection.getresponse()
                self.assertEqual(response.status, 413, response.read()[:300])
            finally:
                connection.close()
            self.assertEqual(request(server, "HEAD", "/dav/Large.bin", authorization)[1]
                             ["Content-Length"], str(size))
        finally:
            server.close()

if __name__ == "__main__":
    unittest.main()
