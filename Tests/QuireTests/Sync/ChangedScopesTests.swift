import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// Where a push looks, from the monitor's paths: the document a change is in, never less. A
/// scope too small would leave a change unsynced until the next whole scan; one too large
/// costs only time.
@Suite("Changed scopes: a push looks where the folder changed")
struct ChangedScopesTests {
  @Test("a member's scope is its package, a placeholder's its document, a hidden name's none")
  func scopes() {
    #expect(ChangedScopes.scope(of: "Notes/a.txt") == "Notes/a.txt")
    #expect(ChangedScopes.scope(of: "Notes/2026") == "Notes/2026")
    #expect(ChangedScopes.scope(of: "Trip.mydoc/images/1.jpg") == "Trip.mydoc")
    #expect(ChangedScopes.scope(of: "a/Trip.mydoc/.quire/save") == "a/Trip.mydoc")
    #expect(ChangedScopes.scope(of: "a/.Memo.txt.icloud") == "a/Memo.txt")
    #expect(ChangedScopes.scope(of: ".Memo.txt.icloud") == "Memo.txt")
    #expect(ChangedScopes.scope(of: "a/.git/config") == nil)
    #expect(ChangedScopes.scope(of: "a/.DS_Store") == nil)
    #expect(ChangedScopes.scope(of: "") == "")
    // A placeholder whose name was shortened does not name its document: its folder does.
    let long = String(repeating: "x", count: 300) + ".txt"
    let shortened = CloudPlaceholder.fileName(for: long)
    #expect(ChangedScopes.scope(of: "a/b/" + shortened) == "a/b")
  }

  @Test("scopes stay disjoint, and the folder's own event is all of it")
  func disjoint() {
    var scopes = ChangedScopes(["a/b/c.txt", "a/b/d.txt", "e.txt"])
    #expect(scopes.paths == ["a/b/c.txt", "a/b/d.txt", "e.txt"])
    scopes.insert("a/b")
    #expect(scopes.paths == ["a/b", "e.txt"])
    scopes.insert("a/b/f.txt")
    #expect(scopes.paths == ["a/b", "e.txt"])
    #expect(scopes.contains("a/b/x/y.txt") && !scopes.contains("a/bc.txt") && !scopes.contains("a"))
    scopes.insert("")
    #expect(scopes.isEverything && scopes.paths == [""] && scopes.contains("z"))
    #expect(!ChangedScopes().contains("a"))
  }

  @Test("a record is in scope exactly when its path is a scope or under one", arguments: 0..<40)
  func recordsAgreeWithPaths(seed: UInt64) {
    var random = SplitMix(seed: seed)
    let names = ["a", "b", "ab", "a b", "é", "x.txt", "y.mydoc"]
    func path() -> String {
      (0..<Int.random(in: 1...4, using: &random)).map { _ in names.randomElement(using: &random)! }
        .joined(separator: "/")
    }
    // Few scopes are compared one by one, many through the folders above: both ways.
    let scopes = ChangedScopes((0..<Int.random(in: 1...14, using: &random)).map { _ in path() })
    for _ in 0..<200 {
      let candidate = path()
      let expected = scopes.paths.contains { candidate == $0 || candidate.hasPrefix($0 + "/") }
      let record = SyncedRecord(
        SyncedItem(
          id: "id", path: candidate, kind: .file, revision: 1, members: [:], isPlaceholder: false))
      #expect(scopes.contains(candidate) == expected, "\(candidate) in \(scopes.paths)")
      #expect(scopes.contains(record) == expected, "\(candidate) in \(scopes.paths)")
    }
  }

  @Test("a scan of the scopes finds what a whole scan finds there", arguments: 0..<8)
  func scanOfScopes(seed: UInt64) throws {
    var random = SplitMix(seed: seed)
    let folder = try TemporaryDirectory()
    let names = ["a", "b", "c.txt", "d.mydoc", "e"]
    var made: [String] = []
    for _ in 0..<30 {
      let parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in
        names.randomElement(using: &random)!
      }
      let path = parts.joined(separator: "/")
      let url = folder.url.appendingPathComponent(path)
      try? FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      if (try? Data("x".utf8).write(to: url)) != nil { made.append(path) }
    }
    let whole = LocalScanner.scan(root: folder.url)
    let scopes = ChangedScopes(
      (0..<Int.random(in: 1...5, using: &random)).compactMap { _ in
        made.randomElement(using: &random)
      }
        + ["a/b", "missing/x.txt"])
    let scoped = LocalScanner.scan(root: folder.url, scopes: scopes, known: [:])
    let expected = whole.filter { scopes.contains($0.path) }
    #expect(scoped.map(\.path).sorted() == expected.map(\.path).sorted())
    #expect(scoped.map(\.id).sorted() == expected.map(\.id).sorted())
  }
}
