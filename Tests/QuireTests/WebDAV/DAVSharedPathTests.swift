import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// Paths in "Shared with me": a share's path is its owner's, read under the share's name, so
/// nothing of where the owner keeps it shows in a URL or a message.
@Suite("WebDAV paths in shares")
struct DAVSharedPathTests {
  let view = DAVView(root: "Documents/Work/Projects", shown: "/Shared with me/Projects")

  @Test("a path in a share reads under its name, in hrefs and messages, and back")
  func viewed() throws {
    let root = DAVPath(stored: "Documents/Work/Projects", view: view)
    let file = root.appending("Plan B.txt")
    #expect(file.path == "Documents/Work/Projects/Plan B.txt")
    #expect(file.href(collection: false) == "/dav/Shared%20with%20me/Projects/Plan%20B.txt")
    #expect(root.href(collection: true) == "/dav/Shared%20with%20me/Projects/")
    #expect(file.description == "/Shared with me/Projects/Plan B.txt")
    #expect(!DAVError.notFound(file).error.message.contains("Work"))
    let parsed = try #require(try DAVPath.parse(file.href(collection: false)))
    #expect(parsed.rest == "Shared with me/Projects/Plan B.txt")
    let mounted = try DAVPath.mounted("Plan B.txt", in: root.path, view: view)
    #expect(mounted == file && mounted.href(collection: false) == file.href(collection: false))
    // Equal by stored path, whatever the view: a lock or a property found for it is its own.
    #expect(DAVPath(stored: file.path) == file)
  }

  @Test("a path too long once it is inside its owner's folder is refused")
  func tooLong() throws {
    let rest = Array(repeating: String(repeating: "n", count: 200), count: 24)
      .joined(separator: "/")
    let error = try #require(throws: DAVError.self) {
      try DAVPath.mounted(rest, in: "Documents/Work/Projects", view: view)
    }
    #expect(error.status.code == 400)
    #expect(error.error.message.contains("/Shared with me/Projects/nnn"), "\(error.error.message)")
    #expect(
      !error.error.message.contains("Work"), "the owner's folders leak: \(error.error.message)")
  }

  @Test("a share whose name is taken is named for its owner, before the extension")
  func freeNames() {
    #expect(DAVStore.freeName("Trip.txt", owner: "alice", taken: []) == "Trip.txt")
    #expect(
      DAVStore.freeName("Trip.txt", owner: "alice", taken: ["Trip.txt"]) == "Trip (alice).txt")
    #expect(
      DAVStore.freeName("Trip.txt", owner: "alice", taken: ["Trip.txt", "Trip (alice).txt"])
        == "Trip (alice 2).txt")
    #expect(DAVStore.freeName("Projects", owner: "bob", taken: ["Projects"]) == "Projects (bob)")
    #expect(DAVStore.freeName(".notes", owner: "bob", taken: [".notes"]) == ".notes (bob)")
  }

  @Test("what others share with an account is its mounts, by name, in their owners' containers")
  func mounts() throws {
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    for name in ["alice", "bob", "carol"] {
      try store.accounts.addUser(name: name, password: "\(name)-password")
    }
    let token = try store.accounts.addDevice(user: "alice", name: "laptop").token
    let alice = try #require(try store.accounts.device(token: token))
    let bob = try store.accounts.accountID(named: "bob")
    let bytes = Array("shared\n".utf8)
    let hash = ContentHash(of: bytes)
    var body: [UInt8] = []
    ChunkFrames.append(hash: hash, bytes: bytes, to: &body)
    _ = try store.chunks.storeChunks(user: alice.user, body: body, maximumChunk: 262_144)
    let member = ManifestMember(
      path: "", size: bytes.count, mode: 0o644, modified: 1_700_000_000, hash: hash,
      chunks: [ChunkReference(hash: hash, size: bytes.count)])
    for (item, path) in [
      ("a", "Documents/A/Trip.txt"), ("b", "Documents/B/Trip.txt"),
      ("p", "Documents/Work/Projects/Plan.txt"),
    ] {
      _ = try store.commits.commit(
        CommitRequest(
          commit: "c-\(item)", item: item, kind: .file, path: path, base: nil, deleted: false,
          change: ManifestChange(upserted: [member], removed: [])),
        container: DAVStore.container, device: alice, maximumMembers: 100)
    }
    _ = try store.shares.share(
      container: DAVStore.container, item: "a", user: alice.user, with: "bob", role: .read)
    _ = try store.shares.share(
      container: DAVStore.container, item: "b", user: alice.user, with: "bob", role: .write)
    let projects = try store.shares.share(
      container: DAVStore.container, folder: "Documents/Work/Projects", user: alice.user,
      with: "bob", role: .write)

    let mounts = try store.dav.sharedMounts(account: bob)
    #expect(mounts.map(\.name) == ["Trip.txt", "Trip (alice).txt", "Projects"])
    #expect(mounts.map(\.mount.access) == [.reader, .writer, .writer])
    #expect(
      mounts.allSatisfy {
        $0.mount.drive.owner == alice.user && $0.mount.drive.container == DAVStore.container
          && $0.mount.account == bob
      })
    #expect(mounts.map(\.mount.drive.item) == ["a", "b", nil])
    #expect(
      mounts.map(\.mount.root.path) == [
        "Documents/A/Trip.txt", "Documents/B/Trip.txt", "Documents/Work/Projects",
      ])
    #expect(
      mounts[1].mount.root.href(collection: false) == "/dav/Shared%20with%20me/Trip%20(alice).txt")
    #expect(try store.dav.sharedMounts(account: store.accounts.accountID(named: "carol")).isEmpty)

    // Another item the owner keeps under the shared document's path is not reached through
    // the share (a device can commit one there).
    _ = try store.commits.commit(
      CommitRequest(
        commit: "c-s", item: "s", kind: .file, path: "Documents/A/Trip.txt/secret.txt", base: nil,
        deleted: false, change: ManifestChange(upserted: [member], removed: [])),
      container: DAVStore.container, device: alice, maximumMembers: 100)
    let secret = DAVPath(stored: "Documents/A/Trip.txt/secret.txt")
    #expect(try store.dav.resource(at: secret, drive: .own(alice.user)) != nil)
    #expect(try store.dav.resource(at: secret, drive: mounts[0].mount.drive) == nil)
    #expect(try store.dav.resource(at: mounts[0].mount.root, drive: mounts[0].mount.drive) != nil)

    _ = try store.shares.unshare(
      container: DAVStore.container, share: projects.id, user: alice.user)
    #expect(
      try store.dav.sharedMounts(account: bob).map(\.name) == ["Trip.txt", "Trip (alice).txt"])
  }
}
