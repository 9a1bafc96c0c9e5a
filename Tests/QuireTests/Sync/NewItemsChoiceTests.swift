import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// Which entries of a journal page a pull places in a batch (``NewItemsChoice``): only items
/// new here, each path once, and never a placeholder that the page's later entries would
/// write over.
@Suite("New items choice: what a pull places in one batch, from values alone")
struct NewItemsChoiceTests {
  @Test("new flat files are written together, new items the policy keeps in the cloud shown")
  func chosen() {
    let page = Page()
    page.add("a", "a.txt", size: 10)
    page.add("b", "b.txt", size: 1 << 20)
    page.add("c", "c.txt", size: 10)
    let choice = page.choose(keepingFrom: 1 << 20)
    #expect(choice.files.map(\.entry.item) == ["a", "c"])
    #expect(choice.placeholders.map(\.entry.item) == ["b"])
    #expect(choice.files.map(\.relative) == ["a.txt", "c.txt"])
  }

  @Test("what is known here, a deletion, a conflict, or a path named twice goes the long way")
  func longWay() {
    let page = Page()
    page.add("known", "k.txt", size: 10)
    page.add("d", "d.txt", size: 10, deleted: true)
    page.add("x", "x.txt", size: 10, conflict: true)
    page.add("t1", "same.txt", size: 10)
    page.add("t2", "same.txt", size: 10)
    page.add("bad", "../outside.txt", size: 10)
    page.add("gone", "no-chunks.txt", size: 10, chunksFetched: false)
    let choice = page.choose(known: ["known"])
    #expect(choice.files.map(\.entry.item) == ["t1"])
    #expect(choice.placeholders.isEmpty)
  }

  @Test("a placeholder at a path another item of the page passes through goes the long way")
  func passedThrough() {
    let page = Page()
    page.add("y", "p.txt", size: 10, deleted: true)  // another item renamed there, then deleted
    page.add("n", "p.txt", size: 1 << 20)
    page.add("m", "q.txt", size: 1 << 20)
    let choice = page.choose(keepingFrom: 1 << 20, known: ["y"])
    #expect(choice.placeholders.map(\.entry.item) == ["m"])
  }

  @Test("on generated pages, only new items are chosen, each path once, each item once")
  func generated() {
    var random = SplitMix(seed: 5)
    for round in 0..<500 {
      let page = Page()
      let names = ["a.txt", "b.txt", "c/d.txt", "c/e.txt"]
      var known = Set<String>()
      for index in 0..<(1 + random.below(12)) {
        let item = "i\(random.below(10))"
        if random.below(5) == 0 { known.insert(item) }
        page.add(
          item, names[random.below(names.count)], size: random.below(2) == 0 ? 10 : 1 << 20,
          deleted: random.below(6) == 0, conflict: random.below(8) == 0,
          chunksFetched: random.below(6) != 0, revision: Int64(index + 1))
      }
      let choice = page.choose(keepingFrom: random.below(2) == 0 ? 1 << 20 : .max, known: known)
      let all = choice.files + choice.placeholders
      let context = "round \(round): \(page.entries.map { "\($0.item)@\($0.path)" })"
      #expect(Set(all.map(\.entry.item)).count == all.count, "\(context)")
      #expect(Set(choice.files.map(\.relative)).count == choice.files.count, "\(context)")
      #expect(
        Set(choice.placeholders.map(\.relative)).count == choice.placeholders.count, "\(context)")
      for each in all {
        #expect(!known.contains(each.entry.item) && !each.entry.deleted && !each.entry.conflict)
        #expect(each.manifest.revision == each.entry.revision, "\(context)")
      }
      for each in choice.placeholders {
        let others = page.entries.filter {
          $0.path == each.entry.path && $0.item != each.entry.item
        }
        #expect(others.isEmpty, "a placeholder at a path the page passes through: \(context)")
      }
      for each in choice.files {
        #expect(
          each.manifest.change.upserted[0].chunks.allSatisfy { page.chunks.contains($0.hash) },
          "\(context)")
      }
    }
  }
}

/// A journal page being made, with the manifests and chunks a pull would have fetched for it.
private final class Page {
  /// The page's entries, in order.
  var entries: [ChangeEntry] = []
  /// The manifests fetched, by item (the last entry of an item's).
  var manifests: [String: RevisionManifest] = [:]
  /// The chunks fetched.
  var chunks = Set<ContentHash>()

  /// Adds an entry creating (or deleting) the flat file `item` at `path` of `size` bytes.
  func add(
    _ item: String, _ path: String, size: Int, deleted: Bool = false, conflict: Bool = false,
    chunksFetched: Bool = true, revision: Int64? = nil
  ) {
    let revision = revision ?? Int64(entries.count + 1)
    let hash = ContentHash(of: Data("\(item)\(revision)".utf8))
    entries.append(
      ChangeEntry(
        sequence: Int64(entries.count + 1), item: item, revision: revision, base: nil,
        kind: .file, path: "Documents/" + path, deleted: deleted, conflict: conflict,
        device: "other", committed: 0))
    let member = ManifestMember(
      path: "", size: size, mode: 0o644, modified: 0, hash: hash,
      chunks: [ChunkReference(hash: hash, size: size)])
    manifests[item] = RevisionManifest(
      item: item, revision: revision, since: nil, kind: .file, path: "Documents/" + path,
      deleted: deleted, conflict: conflict, change: ManifestChange(upserted: [member]))
    if chunksFetched { chunks.insert(hash) }
  }

  /// What a pull chooses of the page when the policy keeps items of `keepingFrom` bytes or
  /// more in the cloud, and `known` items are synced or on disk here.
  func choose(keepingFrom: Int = .max, known: Set<String> = []) -> NewItemsChoice {
    let policy = keepingFrom == .max ? DownloadPolicy.all : .onDemand(downloadingUnder: keepingFrom)
    return NewItemsChoice(
      entries: entries, isKnown: { known.contains($0) }, manifests: manifests,
      hasChunk: { self.chunks.contains($0) },
      keepsInCloud: { SyncAgent.keepsInCloud($0, policy: policy) })
  }
}
