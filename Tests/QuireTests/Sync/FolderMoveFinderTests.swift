import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// The folder moves the agent finds among moved items: a function of paths, asked about many
/// generated trees.
@Suite("Quire Sync: finding a folder's move among moved items")
struct FolderMoveFinderTests {
  @Test("a renamed folder, a folder moved into another, and a nested rename are found whole")
  func examples() {
    let synced = ["A/x.txt", "A/Sub/y.txt", "B/z.txt"]
    func find(_ moved: [(String, String)], exists: Set<String> = []) -> [FolderMove] {
      FolderMoveFinder.find(
        moved: moved.map { (from: $0.0, to: $0.1) }, synced: synced,
        folderExists: { exists.contains($0) })
    }
    #expect(
      find([("A/x.txt", "C/x.txt"), ("A/Sub/y.txt", "C/Sub/y.txt")])
        == [FolderMove(from: "A", to: "C")])
    #expect(
      find([("A/x.txt", "B/A/x.txt"), ("A/Sub/y.txt", "B/A/Sub/y.txt")])
        == [FolderMove(from: "A", to: "B/A")])
    #expect(find([("A/Sub/y.txt", "A/Other/y.txt")]) == [FolderMove(from: "A/Sub", to: "A/Other")])
    // Part of a folder moved, or a folder that is still there: items, not a folder.
    #expect(find([("A/x.txt", "C/x.txt")]).isEmpty)
    #expect(
      find([("A/x.txt", "C/x.txt"), ("A/Sub/y.txt", "C/Sub/y.txt")], exists: ["A"])
        == [FolderMove(from: "A/Sub", to: "C/Sub")])
    // A renamed document is no folder's move; nor is the root.
    #expect(find([("B/z.txt", "B/w.txt")]).isEmpty)
    #expect(find([("B/z.txt", "z.txt")]).isEmpty)
  }

  @Test(
    "on generated trees, a whole folder's rename is found, and every move found takes exactly the items in its folder to their new paths",
    arguments: 0..<200)
  func generated(seed: UInt64) {
    var random = SplitMix(seed: seed)
    let folders = ["A", "B", "A/S", "A/S/T", "B/U", "C"]
    var synced: [String] = []
    for index in 0..<Int.random(in: 1...30, using: &random) {
      synced.append(folders.randomElement(using: &random)! + "/f\(index).txt")
    }
    // Rename one folder whole (or not), then move some other items on their own.
    let renamed = folders.randomElement(using: &random)!
    let target = ["R", "A/R", "B/U/R", "Q/Q"].randomElement(using: &random)!
    let whole = Bool.random(using: &random)
    var now: [String: String] = [:]
    let rename = FolderMove(from: renamed, to: target)
    for path in synced {
      if whole, rename.relative(path) != nil, rename.relative(target) == nil {
        now[path] = rename.moved(path)
      } else if Int.random(in: 0..<5, using: &random) == 0 {
        now[path] = "M/" + (path.split(separator: "/").last.map(String.init) ?? path)
      }
    }
    let present = Set(now.values.flatMap(FolderMoveFinder.ancestors(of:)))
      .union(synced.filter { now[$0] == nil }.flatMap(FolderMoveFinder.ancestors(of:)))
    let found = FolderMoveFinder.find(
      moved: now.map { (from: $0.key, to: $0.value) }, synced: synced,
      folderExists: { present.contains($0) })
    if whole, rename.relative(target) == nil, synced.contains(where: { rename.relative($0) != nil })
    {
      #expect(found.contains(rename), "seed \(seed): the rename \(rename) was not found: \(found)")
    }
    var covered = Set<String>()
    for move in found {
      #expect(!present.contains(move.from), "a folder still on disk: \(move)")
      let inside = synced.filter { move.relative($0) != nil }
      #expect(!inside.isEmpty)
      for path in inside {
        #expect(now[path] == move.moved(path), "seed \(seed): \(path) is not where \(move) says")
        #expect(covered.insert(path).inserted, "seed \(seed): \(path) in two moves")
      }
    }
  }
}

extension SplitMix: RandomNumberGenerator {}
