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
          size: chunks.reduce(0) { $0 + $1.size }, mode: 0o644,
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
    return SyncedItem(
      id: "item-\(seed)", path: "Folder \(next(10))/Doc \(seed)" + (package ? ".mydoc" : ".txt"),
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
    }
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
