import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// The server merging a commit made on a stale base with the current revision, over a real
/// socket: per member, text line by line, what conflicts kept as conflict revisions.
@Suite("Quire Sync server merges")
struct SyncMergeTests {
  typealias S = SyncTestSupport

  /// Members as manifest members uploaded through `client`, each with modification time `at`.
  private func members(_ contents: [String: String], at time: Double, with client: SyncClient)
    async throws -> [ManifestMember]
  {
    try await S.upload(contents.mapValues(S.bytes), with: client).map {
      var member = $0
      member.modified = time
      return member
    }
  }

  /// The members of `revision` of `item`, as text by path.
  private func texts(_ item: String, _ revision: Int64, _ client: SyncClient) async throws
    -> [String: String]
  {
    let manifest = try await client.manifest(item: item, revision: revision)
    let chunks = try await client.fetchChunks(
      manifest.change.upserted.flatMap { $0.chunks.map(\.hash) })
    var result: [String: String] = [:]
    for member in manifest.change.upserted {
      result[member.path] = String(
        decoding: member.chunks.flatMap { chunks[$0.hash] ?? [] }, as: UTF8.self)
    }
    return result
  }

  @Test("edits of different lines of a text document on two devices both land, with no conflict")
  func textLinesMerge() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    let path = "Documents/Notes.txt"
    let base = try await a.commit(
      S.commit(
        "n", path: path, base: nil, kind: .file,
        upserted: try await members(["": "one\ntwo\nthree\nfour\n"], at: 1, with: a)))
    let fromA = try await a.commit(
      S.commit(
        "n", path: path, base: base.revision, kind: .file,
        upserted: try await members(["": "ONE\ntwo\nthree\nfour\n"], at: 2, with: a)))
    let fromB = try await b.commit(
      S.commit(
        "n", path: path, base: base.revision, kind: .file,
        upserted: try await members(["": "one\ntwo\nthree\nFOUR\n"], at: 3, with: b)))
    #expect(fromA.status == .current)
    #expect(fromB.status == .merged)
    #expect(fromB.current == fromB.revision, "the merge is the current revision")
    #expect(fromB.conflictRevisions ?? [] == [])
    #expect(try await texts("n", fromB.revision, a) == ["": "ONE\ntwo\nthree\nFOUR\n"])
    let entries = try await a.changes(since: 0).entries
    #expect(entries.map(\.conflict) == [false, false, false])
    #expect(entries.last?.base == fromA.revision, "the merge follows A's revision on the chain")
    #expect(entries.allSatisfy { $0.unresolvedConflicts == nil })
    // A, on the revision it made, gets only what B changed.
    let delta = try await a.manifest(item: "n", revision: fromB.revision, since: fromA.revision)
    #expect(delta.since == fromA.revision)
    // The same commit sent again (a lost answer) is answered the same, not merged twice. (An
    // added last line touches B's change of the line before it: a conflict, as in git.)
    let again = try await b.commit(
      CommitRequest(
        commit: "retry", item: "n", kind: .file, path: path, base: base.revision,
        change: ManifestChange(
          upserted: try await members(["": "one\ntwo\nthree\nfour\nfive\n"], at: 4, with: b))))
    let retried = try await b.commit(
      CommitRequest(
        commit: "retry", item: "n", kind: .file, path: path, base: base.revision,
        change: ManifestChange(
          upserted: try await members(["": "one\ntwo\nthree\nfour\nfive\n"], at: 4, with: b))))
    #expect(retried == again)
    #expect(again.conflictRevisions?.count == 1)
    #expect(try await texts("n", again.revision, a) == ["": "one\ntwo\nthree\nfour\nfive\n"])
  }

  @Test("the same line changed on both devices: the later edit is current, the other a conflict")
  func textConflict() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    let path = "Documents/N.txt"
    let base = try await a.commit(
      S.commit(
        "doc", path: path, base: nil, kind: .file,
        upserted: try await members(["": "base"], at: 1, with: a)))
    let fromA = try await a.commit(
      S.commit(
        "doc", path: path, base: base.revision, kind: .file,
        upserted: try await members(["": "from A"], at: 3, with: a)))
    // B's edit is older than A's: A's stays current, B's is kept as a conflict revision.
    let fromB = try await b.commit(
      S.commit(
        "doc", path: path, base: base.revision, kind: .file,
        upserted: try await members(["": "from B"], at: 2, with: b)))
    #expect(fromB.status == .merged)
    #expect(fromB.revision == fromA.revision, "nothing of B's is left: A's revision stays current")
    let kept = try #require(fromB.conflictRevisions?.first)
    #expect(try await texts("doc", fromB.revision, b) == ["": "from A"])
    let conflict = try await b.manifest(item: "doc", revision: kept)
    #expect(conflict.conflict)
    #expect(try await texts("doc", kept, b) == ["": "from B"])
    let entries = try await b.changes(since: 0).entries
    #expect(entries.map(\.conflict) == [false, false, true])
    #expect(entries.last?.unresolvedConflicts == [kept], "every device hears of the conflict")
    #expect(fromA.status == .current)
    let next = try await a.commit(
      S.commit(
        "doc", path: path, base: fromB.revision, kind: .file,
        upserted: try await members(["": "after"], at: 4, with: a)))
    #expect(next.status == .current, "the chain goes on from the merged revision")
  }

  @Test("a newer edit on the stale side wins, and the older current revision is kept")
  func newerStaleEditWins() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    let base = try await a.commit(
      S.commit(
        "p", path: "Documents/P.mydoc", base: nil,
        upserted: try await members(["image.png": "0"], at: 1, with: a)))
    let fromA = try await a.commit(
      S.commit(
        "p", path: "Documents/P.mydoc", base: base.revision,
        upserted: try await members(["image.png": "A"], at: 2, with: a)))
    let fromB = try await b.commit(
      S.commit(
        "p", path: "Documents/P.mydoc", base: base.revision,
        upserted: try await members(["image.png": "B"], at: 5, with: b)))
    let kept = try #require(fromB.conflictRevisions?.first)
    #expect(try await texts("p", fromB.revision, a) == ["image.png": "B"])
    #expect(try await texts("p", kept, a) == ["image.png": "A"])
    #expect(try await texts("p", fromA.revision, a) == ["image.png": "A"])
  }

  @Test("package members added, removed and changed on two devices all apply; change beats removal")
  func packageMembersMerge() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    let path = "Documents/Album.album"
    let base = try await a.commit(
      S.commit(
        "album", path: path, base: nil,
        upserted: try await members(
          ["1.png": "one", "2.png": "two", "3.png": "three", "text.txt": "a\nb\nc\nd\n"], at: 1,
          with: a)))
    // A adds 4.png, removes 1.png, edits the first line of text.txt and changes 3.png.
    let fromA = try await a.commit(
      S.commit(
        "album", path: path, base: base.revision,
        upserted: try await members(
          ["4.png": "four", "text.txt": "A\nb\nc\nd\n", "3.png": "three, A"], at: 2, with: a),
        removed: ["1.png"]))
    // B, offline, adds 5.png, removes 2.png and 3.png (A changed 3.png: the change wins), and
    // edits the last line of text.txt.
    let fromB = try await b.commit(
      S.commit(
        "album", path: "Documents/Renamed.album", base: base.revision,
        upserted: try await members(["5.png": "five", "text.txt": "a\nb\nc\nD\n"], at: 3, with: b),
        removed: ["2.png", "3.png"]))
    #expect(fromA.status == .current)
    #expect(fromB.status == .merged)
    #expect(fromB.conflictRevisions ?? [] == [])
    #expect(
      try await texts("album", fromB.revision, a) == [
        "3.png": "three, A", "4.png": "four", "5.png": "five", "text.txt": "A\nb\nc\nD\n",
      ])
    let merged = try await a.manifest(item: "album", revision: fromB.revision)
    #expect(merged.path == "Documents/Renamed.album", "B's rename applies: A did not rename")
  }

  @Test("a deletion of a document changed meanwhile is kept aside; a change revives a deletion")
  func modificationBeatsDeletion() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    let path = "Documents/D.txt"
    let base = try await a.commit(
      S.commit(
        "d", path: path, base: nil, kind: .file,
        upserted: try await members(["": "base\n"], at: 1, with: a)))
    let edited = try await a.commit(
      S.commit(
        "d", path: path, base: base.revision, kind: .file,
        upserted: try await members(["": "edited\n"], at: 2, with: a)))
    let deleted = try await b.commit(
      S.commit("d", path: path, base: base.revision, kind: .file, deleted: true))
    #expect(deleted.status == .conflict)
    #expect(deleted.current == edited.revision, "the edited document stays")
    // Now B deletes it on the current revision, and A, offline on the edit, changes it again.
    let gone = try await b.commit(
      S.commit("d", path: path, base: edited.revision, kind: .file, deleted: true))
    #expect(gone.status == .current)
    let revived = try await a.commit(
      S.commit(
        "d", path: path, base: edited.revision, kind: .file,
        upserted: try await members(["": "edited again\n"], at: 3, with: a)))
    #expect(revived.status == .merged)
    let manifest = try await a.manifest(item: "d", revision: revived.revision)
    #expect(!manifest.deleted)
    #expect(try await texts("d", revived.revision, a) == ["": "edited again\n"])
  }
}
