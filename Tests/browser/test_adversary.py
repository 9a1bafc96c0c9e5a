"""The sync server against hostile peers: another account, a read-only participant, a
read-write participant of a folder share, the holder of a public link and a stranger each try
every route of docs/sync-api.yaml with the owner's identifiers (container, items, revisions,
shares, chunks, users). None may get a 5xx, see the owner's private bytes or paths, or change
anything of the owner's outside what its share allows."""

import hashlib
import http.client
import json
import os
import re
import struct
import subprocess
import unittest
import urllib.parse
import uuid

from support import QUIRE, ROOT, SyncServer

CONTAINER = "iCloud.net.gacha.mydoc"
SECRET = b"alice's private diary, not for anyone"
USERS = ("alice", "bob", "carol", "dave")


class Peer:
    """One HTTP identity against the server: a bearer token, or none."""

    def __init__(self, port, token=None):
        self.port = port
        self.token = token

    def call(self, method, path, body=None, raw=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {}
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            headers["Content-Type"] = "application/json" if raw is None else "application/octet-stream"
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        connection.close()
        return response.status, payload

    def json(self, method, path, body=None, raw=None):
        status, payload = self.call(method, path, body, raw)
        if status >= 300:
            raise AssertionError(f"{method} {path}: {status} {payload[:300]!r}")
        return json.loads(payload) if payload else None


def sign_in(port, user):
    return Peer(port).json("POST", "/v1/sign-in",
                           {"user": user, "password": f"{user}-password", "device": "adversary"})["token"]


def frame(data):
    digest = hashlib.sha256(data).digest()
    return digest + struct.pack(">I", len(data)) + data, digest.hex()


def member(data, chunk_hash):
    return {"path": "", "size": len(data), "mode": 0o644, "modified": 1_700_000_000.0,
            "hash": hashlib.sha256(data).hexdigest(), "chunks": [{"h": chunk_hash, "n": len(data)}]}


def commit(item, path, data=None, chunk_hash=None, base=None, deleted=False):
    upserted = [member(data, chunk_hash)] if data is not None else []
    return {"commit": str(uuid.uuid4()), "item": item, "kind": "file", "path": path, "base": base,
            "deleted": deleted, "change": {"upserted": upserted, "removed": []}}


class AdversaryTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = SyncServer(users=USERS)
        cls.port = urllib.parse.urlparse(cls.server.url).port
        cls.peers = {user: Peer(cls.port, sign_in(cls.port, user)) for user in USERS}
        alice = cls.peers["alice"]
        body, cls.secret_hash = frame(SECRET)
        alice.json("POST", "/v1/chunks", raw=body)
        plan_bytes = b"the shared plan"
        plan_body, cls.plan_hash = frame(plan_bytes)
        alice.json("POST", "/v1/chunks", raw=plan_body)
        scope = f"/v1/containers/{CONTAINER}"
        cls.diary = alice.json("POST", f"{scope}/commits",
                               commit("diary", "Documents/Private/diary.txt", SECRET, cls.secret_hash))
        cls.plan = alice.json("POST", f"{scope}/commits",
                              commit("plan", "Documents/Shared/plan.txt", plan_bytes, cls.plan_hash))
        cls.bob_share = alice.json("POST", f"{scope}/items/plan/shares", {"user": "bob", "role": "read"})
        cls.carol_share = alice.json("POST", f"{scope}/shares",
                                     {"user": "carol", "role": "write", "folder": "Shared"})
        cls.link = alice.json("POST", f"{scope}/items/plan/link")
        cls.before = cls.owner_state()

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    @classmethod
    def owner_state(cls):
        alice = cls.peers["alice"]
        scope = f"/v1/containers/{CONTAINER}"
        return {
            "changes": alice.json("GET", f"{scope}/changes?since=0"),
            "shares": alice.json("GET", f"{scope}/shares"),
            "diary": alice.json("GET", f"{scope}/items/diary/revisions/{cls.diary['revision']}"),
            "versions": alice.json("GET", f"{scope}/items/diary/versions"),
            "link": alice.json("GET", f"{scope}/items/plan/link"),
        }

    def routes(self):
        """Every operation of the OpenAPI document, with the owner's identifiers filled in."""
        with open(os.path.join(ROOT, "docs", "sync-api.yaml")) as handle:
            text = handle.read()
        operations = []
        path = None
        for line in text.splitlines():
            found = re.match(r"^  (/\S+):\s*$", line)
            if found:
                path = found.group(1)
                continue
            verb = re.match(r"^    (get|post|put|delete|patch):\s*$", line)
            if verb and path:
                operations.append((verb.group(1).upper(), path))
        self.assertGreater(len(operations), 30, "the document's operations were not all found")
        values = {
            "container": CONTAINER, "item": "diary", "revision": str(self.diary["revision"]),
            "share": self.carol_share["id"], "user": "bob",
        }
        filled = []
        for method, template in operations:
            if template in ("/v1/health", "/v1/sign-in") or template.endswith("/events"):
                continue  # public by design, or endless streams (tested in test_shutdown)
            filled.append((method, template, re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], template)))
        return filled

    def body_for(self, method, template):
        """A well-formed body aimed at the owner's private document."""
        if template.endswith("/chunks/fetch") or template.endswith("/chunks/missing"):
            return {"hashes": [self.secret_hash]}
        if template.endswith("/commits/batch"):
            return {"commits": [commit("diary", "Documents/Private/diary.txt", deleted=True,
                                       base=self.diary["revision"])]}
        if template.endswith("/commits"):
            return commit("diary", "Documents/Shared/diary.txt", base=self.diary["revision"])
        if template.endswith("/manifests"):
            return {"revisions": [{"item": "diary", "revision": self.diary["revision"]}]}
        if template.endswith("/resolve") or template.endswith("/remove"):
            return {"revisions": [self.diary["revision"]]}
        if template.endswith("/shares") and method == "POST":
            return {"user": "dave", "role": "write", "folder": "Private"}
        return None

    def assert_nothing_leaked(self, who, method, path, status, payload):
        self.assertLess(status, 500, f"{who} {method} {path}: {status} {payload[:200]!r}")
        self.assertNotIn(SECRET, payload, f"{who} {method} {path} read the owner's private bytes")
        self.assertNotIn(b"Private/diary", payload, f"{who} {method} {path} saw the private path")
        self.assertNotIn(b"SQLite", payload, f"{who} {method} {path}: the database's text")

    def test_every_route_refuses_every_hostile_peer(self):
        attackers = {
            "another account": self.peers["dave"],
            "a read-only participant": self.peers["bob"],
            "a read-write participant": self.peers["carol"],
            "a public link's holder": Peer(self.port, self.link["token"]),
            "a stranger": Peer(self.port),
            "a forged token": Peer(self.port, "0" * 64),
        }
        # What the read-write participant may legitimately read of its own share.
        own_share_reads = ("/v1/shares/{share}/changes", "/v1/shares/{share}/chunks/missing")
        for who, peer in attackers.items():
            for method, template, path in self.routes():
                body = self.body_for(method, template)
                status, payload = peer.call(method, path, body)
                self.assert_nothing_leaked(who, method, path, status, payload)
                if peer.token is None or who in ("a public link's holder", "a forged token"):
                    self.assertEqual(status, 401, f"{who} {method} {path}: {status}")
                    continue
                if who == "a read-write participant" and template in own_share_reads:
                    continue
                names_owner = "{item}" in template or "{share}" in template
                if (method == "GET" and names_owner) or template.endswith(("/fetch", "/manifests")):
                    # The owner's items, revisions, chunks and shares are not found: in the
                    # attacker's own container they do not exist, and no share gives them.
                    self.assertIn(status, (400, 403, 404), f"{who} {method} {path}: {status}")
        self.assertEqual(self.owner_state(), self.before, "a hostile peer changed the owner's state")

    def test_participants_reach_only_what_is_shared(self):
        bob, carol = self.peers["bob"], self.peers["carol"]
        share = f"/v1/shares/{self.carol_share['id']}"
        # The read-write participant cannot reach, move in or delete the private document.
        status, payload = carol.call("POST", f"{share}/commits",
                                     commit("diary", "Documents/Shared/diary.txt",
                                            base=self.diary["revision"]))
        self.assertIn(status, (403, 404), payload)
        status, payload = carol.call("GET", f"{share}/items/diary/revisions/{self.diary['revision']}")
        self.assertEqual(status, 404, payload)
        status, payload = carol.call("POST", f"{share}/chunks/fetch", {"hashes": [self.secret_hash]})
        self.assertEqual(status, 404, payload)
        # The read-only participant writes nothing through its share.
        ro = f"/v1/shares/{self.bob_share['id']}"
        status, payload = bob.call("POST", f"{ro}/commits",
                                   commit("plan", "Documents/plan.txt",
                                          base=self.plan["revision"], deleted=True))
        self.assertEqual(status, 403, payload)
        # Neither participant can use the other's share.
        status, _ = bob.call("GET", f"{share}/changes?since=0")
        self.assertEqual(status, 404)
        status, _ = carol.call("GET", f"{ro}/changes?since=0")
        self.assertEqual(status, 404)
        self.assertEqual(self.owner_state(), self.before)

    def test_hostile_bodies_never_crash_the_server(self):
        dave = self.peers["dave"]
        scope = f"/v1/containers/{CONTAINER}"
        bodies = [
            b"{", b"[]", b"null", b'{"commit": 1e309}', b'{"commit":"a","commit":"b"}',
            json.dumps(commit("x", "Documents/x.txt") | {"kind": "folder"}).encode(),
            json.dumps(commit("x", "Documents/x.txt") | {"base": 2 ** 70}).encode(),
            json.dumps(commit("x", "Documents/" + "a" * 5000)).encode(),
            json.dumps(commit("x", "Documents/a\u0000b")).encode(),
            json.dumps({"commits": [commit("x", "Documents/x.txt")] * 2000}).encode(),
            json.dumps({"revisions": [{"item": "x", "revision": -1}] * 5000}).encode(),
        ]
        for body in bodies:
            for path in (f"{scope}/commits", f"{scope}/commits/batch", f"{scope}/manifests"):
                status, payload = dave.call("POST", path, raw=body)
                self.assertLess(status, 500, f"{path} {body[:80]!r}: {status} {payload[:200]!r}")
        self.assertIsNone(self.server.process.poll(), "the server died")
        self.assertEqual(self.owner_state(), self.before)


if __name__ == "__main__":
    unittest.main()
