import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

@testable import QuireServer

private typealias S = SyncTestSupport

/// A participant's requests through a folder share check every chunk they name against the
/// folder's items; that check reads what changed since the last one, not the folder, so syncing
/// one edit in a shared folder of thousands of documents costs what it does in a small one.
@Suite("Cost follows the change: chunk checks through a folder share", .timeLimit(.minutes(3)))
struct ShareChunkCostTests {
  @Test(
    "after one new document, a participant's chunk request reads its members alone, whatever the folder's size"
  )
  func chunkCheckReadsTheChange() async throws {
    var reads: [Int: Int] = [:]
    for size in [10, 200] {
      let server = try await SyncServerProcess.started()
      let alice = try await server.client("alice")
      _ = try await server.client("bob")  // bob signs in once, as a participant does
      for index in 0..<size {
        _ = try await alice.commit(
          S.commit(
            "page-\(index)", path: "Documents/Album/Page \(index).txt", base: nil, kind: .file,
            upserted: try await S.upload(["": S.bytes("page \(index)")], with: alice)))
      }
      let share = try await alice.share(folder: "Album", with: "bob", role: .read)
      // The server's own data, opened beside it (SQLite allows a second reader).
      let store = try ServerStore(folder: server.data.url)
      let user = try #require(
        try store.backend.read {
          try $0.value(Int64.self, "SELECT id FROM users WHERE name = ?", ["bob"])
        })
      let first = try await S.upload(["": S.bytes("page 0")], with: alice)
      _ = try store.shares.sharedChunks(share.id, user: user, hashes: first[0].chunks.map(\.hash))

      let added = try await S.upload(["": S.bytes("one more page, \(size)")], with: alice)
      _ = try await alice.commit(
        S.commit("new", path: "Documents/Album/New.txt", base: nil, kind: .file, upserted: added))
      let before = store.shares.shareChunks.membersRead
      let download = try store.shares.sharedChunks(
        share.id, user: user, hashes: added[0].chunks.map(\.hash))
      reads[size] = store.shares.shareChunks.membersRead - before
      #expect(download.pieces.count == 1, "the new document's chunk is served")

      // Still refused: a chunk of the owner's outside the folder, though the cache misses it.
      let outside = try await S.upload(["": S.bytes("alice's own, \(size)")], with: alice)
      _ = try await alice.commit(
        S.commit("own", path: "Documents/Own.txt", base: nil, kind: .file, upserted: outside))
      #expect(throws: SyncError.self) {
        try store.shares.sharedChunks(share.id, user: user, hashes: outside[0].chunks.map(\.hash))
      }
      withExtendedLifetime(server) {}
    }
    #expect(reads[10] == 1 && reads[200] == 1, "member rows read for one new document: \(reads)")
  }
}
