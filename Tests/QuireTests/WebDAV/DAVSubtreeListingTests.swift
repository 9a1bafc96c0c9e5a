import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// A folder's listing skips the rest of a big subfolder's subtree: it lists every child once,
/// whatever the sizes of the subtrees around them, and the rows it reads do not grow with them.
@Suite("WebDAV folder listings skip subtrees")
struct DAVSubtreeListingTests {
  /// A session that counts the rows its statements return.
  final class CountingSession: SQLSession {
    let base: any SQLSession
    var rows = 0
    init(_ base: any SQLSession) { self.base = base }
    var byteOrder: String { base.byteOrder }
    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
      try base.execute(sql, arguments)
    }
    func forEach(
      _ sql: String, _ arguments: [any SQLArgument], _ body: (SQLRow) throws -> Void
    ) throws {
      try base.forEach(sql, arguments) { row in
        rows += 1
        try body(row)
      }
    }
  }

  /// A store with alice's drive, and a one-chunk file member to commit anywhere.
  struct Drive {
    let store: ServerStore
    let device: AuthenticatedDevice
    let member: ManifestMember
    let folder: TemporaryDirectory

    init(postgres: URL? = nil) throws {
      folder = try TemporaryDirectory()
      store = try ServerStore(folder: folder.url, postgres: postgres)
      try store.accounts.addUser(name: "alice", password: "alice-password")
      let token = try store.accounts.addDevice(user: "alice", name: "laptop").token
      device = try #require(try store.accounts.device(token: token))
      let bytes = Array("a line\n".utf8)
      let hash = ContentHash(of: bytes)
      var body: [UInt8] = []
      ChunkFrames.append(hash: hash, bytes: bytes, to: &body)
      _ = try store.chunks.storeChunks(user: device.user, body: body, maximumChunk: 262_144)
      member = ManifestMember(
        path: "", size: bytes.count, mode: 0o644, modified: 1_700_000_000, hash: hash,
        chunks: [ChunkReference(hash: hash, size: bytes.count)])
    }

    /// Commits a file at each of `paths` (under "Documents/"), a thousand to a transaction.
    func add(_ paths: [String]) throws {
      for start in stride(from: 0, to: paths.count, by: 1000) {
        let requests = paths[start..<min(start + 1000, paths.count)].map { path in
          CommitRequest(
            commit: UUID().uuidString, item: UUID().uuidString, kind: .file,
            path: "Documents/" + path, base: nil, deleted: false,
            change: ManifestChange(upserted: [member], removed: []))
        }
        _ = try store.commits.commit(
          requests, container: DAVStore.container, device: device, maximumMembers: 10)
      }
    }

    /// The names `folder` lists, and the rows its listing read.
    func list(_ folder: String) throws -> (names: [String], rows: Int) {
      try store.backend.read { db in
        let counting = CountingSession(db)
        let container = try #require(
          try DAVStore.containerID(counting, drive: .own(device.user)))
        counting.rows = 0
        var settled: [DAVResource] = []
        let rest = try DAVStore.folderChildren(
          counting, container: container, folder: DAVPath(stored: "Documents/" + folder),
          batch: 256, settled: { settled += $0 })
        return ((settled + rest).map(\.path.name).sorted(), counting.rows)
      }
    }
  }

  @Test(
    "every child once, around subtrees of every size, on both engines",
    arguments: [(0, false), (1, false), (2, false), (3, false), (4, true), (5, true)])
  func generated(seed: UInt64, postgres: Bool) async throws {
    var generator = SeededGenerator(seed: 31 + seed)
    let drive = try Drive(postgres: postgres ? try await PostgresCluster.shared.database() : nil)
    var paths: [String] = []
    var expected: Set<String> = []
    // Names that sort around a subfolder's "/" and "0": "a-b", "a.b", "a", "a0", "a/…".
    let stems = ["a", "a-b", "a.b", "a0", "b", "Z", "é", "n 1"]
    for index in 0..<Int.random(in: 4...14, using: &generator) {
      let name =
        stems.randomElement(using: &generator)! + (index.isMultiple(of: 3) ? "" : "\(index)")
      guard !expected.contains(name) else { continue }
      expected.insert(name)
      if Bool.random(using: &generator) {
        paths.append("Top/\(name)")
      } else {
        let size = [1, 31, 32, 33, 40, 1030, 1100].randomElement(using: &generator)!
        for file in 0..<size {
          let deeper = file.isMultiple(of: 7) ? "sub/deeper/" : file.isMultiple(of: 5) ? "sub/" : ""
          paths.append("Top/\(name)/\(deeper)f\(file)")
        }
      }
    }
    paths.append("Topper/outside")  // shares the prefix's letters, not its folder
    try drive.add(paths.shuffled(using: &generator))
    let listed = try drive.list("Top")
    #expect(listed.names == expected.sorted(), "seed \(seed)")
  }

  @Test("the rows a listing reads do not grow with a subfolder's subtree")
  func cost() throws {
    var rows: [Int: Int] = [:]
    for size in [100, 5000] {
      let drive = try Drive()
      try drive.add(
        (0..<5).map { "Top/file\($0).txt" } + (0..<3).map { "Top/small/s\($0)" }
          + (0..<size).map { "Top/Big/\($0 % 10)/f\($0)" })
      let listed = try drive.list("Top")
      #expect(
        listed.names == [
          "Big", "file0.txt", "file1.txt", "file2.txt", "file3.txt", "file4.txt", "small",
        ])
      rows[size] = listed.rows
    }
    #expect(rows[100] == rows[5000], "rows read: \(rows)")
    #expect((rows[5000] ?? .max) < 100, "rows read: \(rows)")
  }
}
