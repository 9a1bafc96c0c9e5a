import QuireSyncProtocol
import Testing

@testable import QuireSync

/// What a device tells an open document about its conflict versions: a function of the
/// journal's entries and what the device knew, asked about generated histories.
@Suite("Quire Sync: which conflict versions an item gained or resolved")
struct ConflictChangesTests {
  static func entry(_ item: String, _ sequence: Int64, conflicts: [Int64]?) -> ChangeEntry {
    ChangeEntry(
      sequence: sequence, item: item, revision: sequence, base: nil, kind: .file,
      path: "Documents/\(item).txt", deleted: false, conflict: false, device: "d",
      committed: Double(sequence), unresolvedConflicts: conflicts)
  }

  /// A folder move's entry, which names no item's conflicts, whatever its fields hold.
  static func folderMove(sequence: Int64) -> ChangeEntry {
    var entry = ChangeEntry.moving(
      FolderMove(from: "Documents/X", to: "Documents/Y"), sequence: sequence,
      revisionsBefore: 4, device: "d", committed: Double(sequence))
    entry.item = "c"
    entry.unresolvedConflicts = [9]
    return entry
  }

  @Test(
    "an item's last entry in a page says what holds; a folder move, an unchanged item and the same versions in another order say nothing"
  )
  func examples() {
    let found = ConflictChanges(
      [
        Self.entry("a", 1, conflicts: [4]), Self.entry("a", 2, conflicts: [4, 7]),
        Self.entry("b", 3, conflicts: nil), Self.entry("c", 4, conflicts: [2]),
        Self.folderMove(sequence: 5), Self.entry("d", 6, conflicts: [3, 1]),
      ],
      known: ["b": [1, 2], "c": [2], "d": [1, 3]])
    #expect(
      found.changes == [
        .init(item: "a", gained: [4, 7], resolved: []),
        .init(item: "b", gained: [], resolved: [1, 2]),
      ])
    #expect(found.known == ["a": [4, 7], "c": [2], "d": [1, 3]])
  }

  @Test(
    "on generated histories read in pages of any size, what the presenters were told adds up to each item's conflicts now, and nothing is told twice",
    arguments: 0..<300)
  func generated(seed: UInt64) {
    var random = SplitMix(seed: seed)
    let items = ["a", "b", "c"]
    var truth: [String: [Int64]] = [:]
    var entries: [ChangeEntry] = []
    for sequence in 1...Int64.random(in: 1...40, using: &random) {
      let item = items.randomElement(using: &random)!
      var now = Set(truth[item] ?? [])
      if Bool.random(using: &random) { now.insert(sequence) }
      if !now.isEmpty, Bool.random(using: &random) {
        now.remove(now.randomElement(using: &random)!)
      }
      truth[item] = now.sorted()
      // The server lists the versions in no promised order.
      let listed = now.isEmpty && Bool.random(using: &random) ? nil : now.shuffled(using: &random)
      entries.append(Self.entry(item, sequence, conflicts: listed))
    }
    // The device reads the journal in pages; its presenters hear each change.
    var known: [String: [Int64]] = [:]
    var told: [String: Set<Int64>] = [:]
    var rest = entries[...]
    while !rest.isEmpty {
      let page = rest.prefix(Int.random(in: 1...6, using: &random))
      rest = rest.dropFirst(page.count)
      let found = ConflictChanges(Array(page), known: known)
      for change in found.changes {
        #expect(!change.gained.isEmpty || !change.resolved.isEmpty, "seed \(seed): an empty change")
        for version in change.gained {
          #expect(
            told[change.item, default: []].insert(version).inserted, "seed \(seed): told twice")
        }
        for version in change.resolved {
          #expect(
            told[change.item]?.remove(version) != nil, "seed \(seed): resolved unheard \(version)")
        }
      }
      known = found.known
    }
    for item in items {
      #expect(told[item, default: []] == Set(truth[item] ?? []), "seed \(seed): \(item)")
      #expect(
        known[item].map(Set.init) == (truth[item].flatMap { $0.isEmpty ? nil : Set($0) }),
        "seed \(seed)")
    }
  }
}
