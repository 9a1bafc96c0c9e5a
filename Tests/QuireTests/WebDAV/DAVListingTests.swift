import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// A folder's listing is read in batches that a PROPFIND writes while the next rows are read:
/// whatever the batch size, every child shows once, with its kind and time, and a folder made
/// with MKCOL, or implied by the items in it, shows as one folder.
@Suite("WebDAV folder listings")
struct DAVListingTests {
  @Test("every child once, with its kind and time, whatever the batch size", arguments: 0..<12)
  func listing(seed: UInt64) throws {
    var generator = SeededGenerator(seed: 4918 + seed)
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    try store.accounts.addUser(name: "alice", password: "alice-password")
    let token = try store.accounts.addDevice(user: "alice", name: "laptop").token
    let device = try #require(try store.accounts.device(token: token))
    let bytes = Array("a line\n".utf8)
    let hash = ContentHash(of: bytes)
    var body: [UInt8] = []
    ChunkFrames.append(hash: hash, bytes: bytes, to: &body)
    _ = try store.chunks.storeChunks(user: device.user, body: body, maximumChunk: 262_144)
    let drive = DAVDrive.own(device.user)
    try store.dav.makeFolder(at: DAVPath(stored: "Documents/Box"), drive: drive)

    // The expected children of "Documents/Box": a name's kind, and a file's time if it has one.
    enum Kind: Equatable {
      case file(Double?)
      case package, folder
    }
    var expected: [String: Kind] = [:]
    for index in 0..<Int.random(in: 20...120, using: &generator) {
      let name = "n\(index)" + ["", ".txt", " é", "&'x"].randomElement(using: &generator)!
      let modified = Bool.random(using: &generator) ? 0 : 1_700_000_000 + Double(index)
      let member = { (path: String) in
        ManifestMember(
          path: path, size: bytes.count, mode: 0o644, modified: modified, hash: hash,
          chunks: [ChunkReference(hash: hash, size: bytes.count)])
      }
      let request: CommitRequest
      switch Int.random(in: 0..<5, using: &generator) {
      case 0, 1:
        request = Self.commit("Documents/Box/\(name)", kind: .file, [member("")])
        expected[name] = .file(modified > 0 ? modified : nil)
      case 2:
        request = Self.commit("Documents/Box/\(name)", kind: .package, [member("index.txt")])
        expected[name] = .package
      case 3:
        // Items deeper down imply their folder, once however many there are, and join the
        // folder MKCOL made if it was made first.
        let shared = "d\(Int.random(in: 0..<4, using: &generator))"
        request = Self.commit("Documents/Box/\(shared)/x\(index).txt", kind: .file, [member("")])
        expected[shared] = .folder
      default:
        let made =
          Bool.random(using: &generator) ? name : "d\(Int.random(in: 0..<4, using: &generator))"
        if expected[made] == nil {
          try store.dav.makeFolder(at: DAVPath(stored: "Documents/Box/\(made)"), drive: drive)
          expected[made] = .folder
        }
        continue
      }
      _ = try store.commits.commit(
        request, container: DAVStore.container, device: device, maximumMembers: 100)
    }

    let box = DAVResource(path: DAVPath(stored: "Documents/Box"), kind: .folder)
    for batch in [1, 3, 1024] {
      var settled: [DAVResource] = []
      let rest = try store.dav.children(of: box, drive: drive, batch: batch) {
        #expect($0.count <= batch)
        settled += $0
      }
      let listed = settled + rest
      #expect(listed.count == expected.count, "batches of \(batch)")
      #expect(Set(listed.map(\.path.name)) == Set(expected.keys), "batches of \(batch)")
      for child in listed {
        switch (child.kind, expected[child.path.name]) {
        case (.file, .file(let time)?):
          if let time { #expect(child.modified == time) } else { #expect(child.modified != nil) }
        case (.package, .package?), (.folder, .folder?):
          break
        default:
          Issue.record(
            "\(child.path.name) is \(child.kind), not \(String(describing: expected[child.path.name]))"
          )
        }
      }
      #expect(settled.allSatisfy { if case .file = $0.kind { $0.modified != nil } else { false } })
    }
  }

  private static func commit(_ path: String, kind: ItemKind, _ members: [ManifestMember])
    -> CommitRequest
  {
    CommitRequest(
      commit: UUID().uuidString, item: UUID().uuidString, kind: kind, path: path, base: nil,
      deleted: false, change: ManifestChange(upserted: members, removed: []))
  }
}
