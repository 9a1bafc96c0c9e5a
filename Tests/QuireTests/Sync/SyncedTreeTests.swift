import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// The agent's synced tree holds a flat file of one chunk in a compact record: what a user
/// relies on is that every item reads back exactly as it was recorded, in memory and from the
/// state file, whatever its shape.
@Suite("The synced tree gives back what it was given")
struct SyncedTreeTests {
  /// A generated item: flat or package, downloaded or a placeholder, of none, one or several
  /// chunks, racily clean or not, with members in the cloud or not.
  static func item(_ seed: Int) -> SyncedItem {
    var generator = SplitMix(seed: UInt64(seed))
    func next(_ bound: Int) -> Int { Int(generator.next() % UInt64(bound)) }
    func hash() -> ContentHash { ContentHash(of: Array("\(generator.next())".utf8)) }
    func member() -> SyncedItem.Member {
      let chunks = (0..<next(3)).map { _ in ChunkReference(hash: hash(), size: 1 + next(5000)) }
      let whole = chunks.count == 1 && next(4) > 0 ? chunks[0].hash : hash()
      let local =
        next(3) == 0
        ? LocalItem.Member.inCloud
        : LocalItem.Member(
          size: chunks.reduce(0) { $0 + $1.size } + (next(8) == 0 ? 1 : 0),
          mode: [0o644, 0o600, 0o755, Int(UInt32.max) + 1][next(4)],
          modifiedNanoseconds: Int64(next(1 << 30)))
      var member = SyncedItem.Member(local: local, hash: whole, chunks: chunks)
      member.racy = next(2) == 0
      return member
    }
    let package = next(3) == 0
    var members: [String: SyncedItem.Member] = [:]
    if package {
      for index in 0..<next(4) { members["m\(index)"] = member() }
    } else {
      members[""] = member()
    }
    // At the top, in a folder, or deeper; short names (held inline) and long ones.
    let folder = ["", "Folder \(next(10))/", "a/b c/Folder \(next(3))/"][next(3)]
    // A name may begin with a character that joins onto the slash before it.
    let name = ["D\(seed)", "A document of some length \(seed)", "\u{301}e\(seed)"][next(3)]
    return SyncedItem(
      id: "item-\(seed)", path: folder + name + (package ? ".mydoc" : ".txt"),
      kind: package ? .package : .file, revision: Int64(next(1000)), members: members,
      isPlaceholder: next(3) == 0)
  }

  @Test("every generated item reads back whole, and its record answers as the item does")
  func roundTrips() throws {
    var tree = SyncedTree()
    var expected: [String: SyncedItem] = [:]
    for seed in 0..<3_000 {
      let item = Self.item(seed)
      tree[item.id] = item
      expected[item.id] = item
      if seed % 7 == 0 {  // changed in place, as the agent does
        tree[item.id]?.path += " 2"
        expected[item.id]?.path += " 2"
      }
      if seed % 11 == 0 {
        tree[item.id] = nil
        expected[item.id] = nil
      }
    }
    #expect(tree.count == expected.count)
    #expect(Set(tree.keys) == Set(expected.keys))
    for (id, item) in expected {
      #expect(tree[id] == item)
      let record = try #require(tree.record(id))
      #expect(record.id == id && record.path == item.path && record.kind == item.kind)
      #expect(record.revision == item.revision && record.isPlaceholder == item.isPlaceholder)
      #expect(record.size == item.size)
      #expect(record.hasMembersInCloud == !item.membersInCloud.isEmpty)
      #expect(record.soleMemberStat == (item.members.count == 1 ? item.members[""]?.local : nil))
      // The same stats, one changed, another path: matched as the item matches them.
      let same = LocalItem(
        id: id, path: item.path, kind: item.kind, members: item.members.mapValues(\.local))
      var changed = same
      if let first = changed.members.keys.first { changed.members[first]?.size += 1 }
      var moved = same
      moved.path += " 3"
      for local in [same, changed, moved] { #expect(record.matches(local) == item.matches(local)) }
      // Paths told apart without building the record's, however they are cut.
      for path in Self.neighbours(of: item.path) {
        let same = path.utf8.elementsEqual(item.path.utf8)
        #expect(record.hasPath(path) == same, "\(path) against \(item.path)")
      }
    }
  }

  /// `path` and paths that differ from it by a byte, a slash moved, or a part cut.
  static func neighbours(of path: String) -> [String] {
    var paths = [path, path + "x", String(path.dropLast()), "/" + path, path + "/"]
    // The same text in the other Unicode form: equal as `String`s, not as names on disk.
    paths += [path.precomposedStringWithCanonicalMapping, path.decomposedStringWithCanonicalMapping]
    if let slash = path.lastIndex(of: "/") {
      var moved = path
      moved.remove(at: slash)
      moved.insert("/", at: moved.index(before: moved.endIndex))
      paths += [moved, String(path[path.index(after: slash)...]), String(path[..<slash])]
    } else {
      paths += ["a/" + path, String(path.prefix(1)) + "/" + path.dropFirst()]
    }
    return paths
  }

  @Test("paths cut anywhere read back as they were")
  func oddPaths() {
    for path in ["x", "/x", "a/\u{301}x", "\u{301}x", "a/b/", "a//b", "é/e\u{301}", ""] {
      let record = SyncedRecord(
        SyncedItem(
          id: "i", path: path, kind: .file, revision: 1, members: [:], isPlaceholder: false))
      #expect(Array(record.path.utf8) == Array(path.utf8), "\(path)")
      #expect(record.hasPath(path))
    }
  }

  @Test("records of one folder share its path, and folders left behind do not pile up")
  func sharedFolders() {
    var tree = SyncedTree()
    for index in 0..<500 {
      tree["f\(index)"] = SyncedItem(
        id: "f\(index)", path: "One folder with a long name/n\(index).txt", kind: .file,
        revision: 1, members: [:], isPlaceholder: true)
    }
    #expect(tree.folderCount == 1)
    // A small tree whose one item is moved through ten thousand folders: the table is started
    // again from the records, not kept growing.
    for index in 0..<10_000 {
      tree["f0"]?.path = "Moved \(index)/n0.txt"
    }
    #expect(tree.folderCount <= 2 * tree.count + 1_025, "\(tree.folderCount) folders held")
    #expect(tree.record("f0")?.path == "Moved 9999/n0.txt")
    #expect(tree.record("f1")?.folder == "One folder with a long name")
  }

  @Test("the state file's items load into the tree as they were recorded")
  func loadsFromState() throws {
    let home = try TemporaryDirectory()
    let state = try SyncState(file: home.url.appendingPathComponent("state.sqlite"))
    let items = (0..<500).map(Self.item)
    try state.record(
      items.map { ($0, Array($0.members.keys), []) }, clearingStatus: false)
    let tree = try state.syncedTree()
    #expect(tree.count == items.count)
    for item in items { #expect(tree[item.id] == item) }
  }
}
