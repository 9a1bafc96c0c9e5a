import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// What a push makes of its scan, decided from values (``PushDecision``): the rules a user
/// relies on, on named cases and on generated scans of generated synced trees.
@Suite("Push decision: what a scan's items become, from values alone")
struct PushDecisionTests {
  // MARK: Named cases

  @Test("an edit is changed, an untouched file unchanged, a file whose write is put back waits")
  func dispositions() {
    let tree = Tree([("a", "x.txt", 1), ("b", "y.txt", 1), ("c", "z.txt", 1)])
    let items = [file("a", "x.txt", 1), file("b", "y.txt", 2), file("c", "z.txt", 3)]
    let decision = tree.decide(items, facts: PushDecision.Facts(puttingBack: ["c"]))
    #expect(decision.verdicts.map(\.disposition) == [.unchanged, .changed, .waiting])
    #expect(decision.verdicts.allSatisfy { $0.identity == .kept })
    #expect(decision.seen == ["a", "b", "c"])
  }

  @Test("another program's safe-save at a synced path, without its identity, is that document")
  func safeSave() {
    let tree = Tree([("a", "x.txt", 1)])
    let decision = tree.decide([file("new", "x.txt", 2)])
    #expect(decision.verdicts == [.init(identity: .adopted("a"), disposition: .changed)])
    #expect(decision.seen == ["a"])
    // Two new files whose names are one as strings (two Unicode forms of "é") replace it once.
    let nfc = Tree([("a", "caf\u{E9}.txt", 1)])
    let forms = nfc.decide([file("n", "caf\u{E9}.txt", 2), file("m", "cafe\u{301}.txt", 2)])
    #expect(forms.verdicts.map(\.identity) == [.adopted("a"), .kept])
    // The file named with the synced name's bytes takes it, whichever the scan lists first.
    let nfdFirst = nfc.decide([file("m", "cafe\u{301}.txt", 2), file("n", "caf\u{E9}.txt", 2)])
    #expect(nfdFirst.verdicts.map(\.identity) == [.kept, .adopted("a")])
    // Not when the synced document is still there under another name: then it is new.
    let both = tree.decide([file("new", "x.txt", 2), file("a", "moved.txt", 1)])
    #expect(both.verdicts[0] == .init(identity: .kept, disposition: .changed))
    #expect(both.unseen(among: tree.records, gone: []).isEmpty)
  }

  @Test("a second item with one identity, or a copy the agent found, is a new document")
  func copies() {
    let tree = Tree([("a", "x.txt", 1)])
    let twice = tree.decide([file("a", "x.txt", 1), file("a", "copy.txt", 1)])
    #expect(twice.verdicts[0] == .init(identity: .kept, disposition: .unchanged))
    #expect(twice.verdicts[1] == .init(identity: .new, disposition: .changed))
    // `cp -a x.txt copy.txt`, heard alone: the original is where it was synced, out of scope.
    let alone = tree.decide([file("a", "copy.txt", 1)], facts: PushDecision.Facts(copies: [0]))
    #expect(alone.verdicts == [.init(identity: .new, disposition: .changed)])
    #expect(alone.unseen(among: [], gone: []).isEmpty)
  }

  @Test("on the drive, a copy of a shared document is new; a share's agent keeps its items")
  func shared() {
    let tree = Tree()
    let drive = tree.decide(
      [file("s", "Shared/x.txt", 1), file("t", "y.txt", 1)],
      facts: PushDecision.Facts(sharedItems: ["t"], sharesAgents: [0]))
    #expect(drive.verdicts[0].disposition == .othersToSync)
    #expect(drive.verdicts[1] == .init(identity: .new, disposition: .changed))
    #expect(drive.seen.isEmpty)
    let agent = tree.decide(
      [file("t", "y.txt", 1)], facts: PushDecision.Facts(isDrive: false, sharedItems: ["t"]))
    #expect(agent.verdicts == [.init(identity: .kept, disposition: .changed)])
  }

  @Test("a placeholder is deleted only when it is gone; a moved-only item is split from edits")
  func placeholdersAndSplit() {
    var tree = Tree([("a", "x.txt", 1), ("b", "y.txt", 1)])
    tree.put(("p", "p.txt", 1, true))
    let decision = tree.decide([])
    #expect(Set(decision.unseen(among: tree.records, gone: []).keys) == ["a", "b"])
    #expect(Set(decision.unseen(among: tree.records, gone: ["p"]).keys) == ["a", "b", "p"])
    let changed = [file("a", "moved/x.txt", 1), file("b", "moved/y.txt", 2), file("n", "n.txt", 1)]
    let (moved, edited) = PushDecision.split(
      changed: changed, left: changed, record: { tree.tree.record($0) })
    #expect(moved.map(\.id) == ["a"])
    #expect(edited.map(\.id) == ["b", "n"])
    // A folder move committed first leaves its items out of `left`, and records them there.
    var after = tree
    after.put(("a", "moved/x.txt", 1))
    let (none, rest) = PushDecision.split(
      changed: changed, left: [changed[1], changed[2]], record: { after.tree.record($0) })
    #expect(none.isEmpty)  // b's record is still at y.txt, and b was edited: an edit
    #expect(rest.map(\.id) == ["b", "n"])
  }

  @Test("a share's role decides: read-only changes are kept aside, deletions come back")
  func roles() {
    func share(_ role: ShareRole, folder: Bool) -> ShareInfo {
      ShareInfo(
        id: "s", owner: "alice", user: "bob", item: "i", name: "N", kind: .file,
        isFolder: folder, role: role, created: 0)
    }
    #expect(PushRole(nil) == .drive)
    #expect(PushRole(share(.read, folder: true)) == .readOnly)
    #expect(PushRole(share(.read, folder: false)) == .readOnly)
    #expect(PushRole(share(.write, folder: true)) == .writable(isFolder: true))
    #expect(PushRole(share(.write, folder: false)) == .writable(isFolder: false))

    let tree = Tree([("a", "x.txt", 1)])
    let known = tree.tree.record("a")
    let renamed = file("a", "y.txt", 1)
    let edited = file("a", "x.txt", 2)
    let new = file("n", "n.txt", 1)
    for role in [PushRole.drive, .writable(isFolder: true), .writable(isFolder: false)] {
      #expect(role.step(for: renamed, known: known) == .upload)
      #expect(role.step(for: edited, known: known) == .upload)
      #expect(role.step(for: new, known: nil) == .upload)
    }
    #expect(PushRole.readOnly.step(for: renamed, known: known) == .restoreName)
    #expect(PushRole.readOnly.step(for: edited, known: known) == .keepAside)
    #expect(PushRole.readOnly.step(for: file("a", "y.txt", 2), known: known) == .keepAside)
    #expect(PushRole.readOnly.step(for: new, known: nil) == .keepAside)
    #expect(PushRole.drive.uploadsDeletions && PushRole.writable(isFolder: true).uploadsDeletions)
    #expect(!PushRole.readOnly.uploadsDeletions)
    #expect(!PushRole.writable(isFolder: false).uploadsDeletions)
  }

  // MARK: Generated scans

  @Test("on generated trees and scans, every rule a user relies on holds", arguments: 0..<300)
  func generated(seed: UInt64) {
    var random = SplitMix(seed: seed &* 7919 &+ 17)
    let world = GeneratedPush(&random)
    let decision = world.tree.decide(world.items, facts: world.facts, byPath: world.byPath)
    let context = "seed \(seed): \(world.summary)"
    #expect(decision.verdicts.count == world.items.count, "\(context)")

    // Each scanned item's identity after the decision (nil: a fresh one, or a share's).
    let final: [String?] = zip(world.items, decision.verdicts).map { item, verdict in
      switch (verdict.identity, verdict.disposition) {
      case (_, .othersToSync), (.new, _): nil
      case (.kept, _): item.id
      case (.adopted(let id), _): id
      }
    }
    // One identity, one item: never two uploads of one document.
    let carried = final.compactMap { $0 }
    #expect(Set(carried).count == carried.count, "\(context)")
    #expect(Set(carried) == decision.seen, "\(context)")

    for (index, (item, verdict)) in zip(world.items, decision.verdicts).enumerated() {
      let id = final[index]
      if let id, world.facts.puttingBack.contains(id) {
        #expect(verdict.disposition == .waiting, "a put-back is never uploaded over: \(context)")
      }
      if verdict.disposition == .unchanged {
        #expect(id.flatMap { world.tree.tree.record($0) }?.matches(item) == true, "\(context)")
      }
      if let id, verdict.disposition == .changed, let known = world.tree.tree.record(id) {
        #expect(!known.matches(item), "an unchanged file is not uploaded: \(context)")
      }
      if case .adopted(let replaced) = verdict.identity {
        #expect(world.tree.tree.record(item.id) == nil, "\(context)")
        #expect(world.byPath[item.path]?.id == replaced, "\(context)")
        #expect(!world.items.contains { $0.id == replaced }, "\(context)")
      }
      if world.facts.copies.contains(index) || world.facts.sharesAgents.contains(index) {
        #expect(id == nil, "\(context)")
      }
    }

    // Deletions: among what the push looked at, exactly the synced documents gone from the
    // scan, as the generator made them (deleted, or moved out of the places looked at), and a
    // placeholder only when its file is gone.
    let candidates = world.candidates
    let unseen = decision.unseen(among: candidates, gone: world.gone)
    for known in candidates {
      let expected =
        known.isPlaceholder ? world.gone.contains(known.id) : !world.present.contains(known.id)
      #expect((unseen[known.id] != nil) == expected, "\(known.id) at \(known.path): \(context)")
    }

    // The scan's order changes which of two copies is new, never what is deleted.
    var order = Array(world.items.indices)
    order.shuffle(using: &random)
    let shuffled = world.tree.decide(
      order.map { world.items[$0] }, facts: world.facts.reordered(order), byPath: world.byPath)
    #expect(
      Set(shuffled.unseen(among: candidates, gone: world.gone).keys) == Set(unseen.keys),
      "\(context)")
  }
}

// MARK: Helpers

/// A flat file `id` at `path` whose stat is told by `stamp`.
private func file(_ id: String, _ path: String, _ stamp: Int) -> LocalItem {
  LocalItem(
    id: id, path: path, kind: .file,
    members: [
      "": LocalItem.Member(size: 10 + stamp, mode: 0o644, modifiedNanoseconds: Int64(stamp))
    ])
}

/// A synced tree of flat files, each synced at the stat `stamp` tells.
private struct Tree {
  /// The records.
  var tree = SyncedTree()

  /// A tree of `records`: identity, path and stamp.
  init(_ records: [(String, String, Int)] = []) {
    for record in records { put(record) }
  }

  /// Records a file: identity, path and stamp.
  mutating func put(_ record: (String, String, Int)) { put((record.0, record.1, record.2, false)) }

  /// Records a file or a placeholder: identity, path, stamp and whether it is a placeholder.
  mutating func put(_ record: (String, String, Int, Bool)) {
    let (id, path, stamp, isPlaceholder) = record
    let local = file(id, path, stamp).members[""]!
    let hash = ContentHash(of: Data(id.utf8))
    tree[id] = SyncedItem(
      id: id, path: path, kind: .file, revision: 1,
      members: [
        "": SyncedItem.Member(
          local: isPlaceholder ? .inCloud : local, hash: hash,
          chunks: [ChunkReference(hash: hash, size: local.size)])
      ],
      isPlaceholder: isPlaceholder)
  }

  /// Every record.
  var records: [SyncedRecord] { Array(tree.values) }

  /// What a push decides of `items` against this tree (by path: all of it, unless given).
  func decide(
    _ items: [LocalItem], facts: PushDecision.Facts = .init(),
    byPath: [String: SyncedRecord]? = nil
  ) -> PushDecision {
    let byPath = byPath ?? Dictionary(tree.values.map { ($0.path, $0) }) { first, _ in first }
    return PushDecision(items: items, record: { tree.record($0) }, byPath: byPath, facts: facts)
  }
}

extension PushDecision.Facts {
  /// The same facts for the scan reordered so that its item `i` was item `order[i]`.
  fileprivate func reordered(_ order: [Int]) -> PushDecision.Facts {
    var moved = self
    let place = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
    moved.copies = Set(copies.map { place[$0]! })
    moved.sharesAgents = Set(sharesAgents.map { place[$0]! })
    return moved
  }
}

/// A generated synced tree, what happened to each item since, the scan a push would make of
/// it (all of the folder, or some places), and the facts the agent would have found.
private struct GeneratedPush {
  /// The synced tree.
  var tree = Tree()
  /// The push's scan: the files on disk in the places it looked.
  var items: [LocalItem] = []
  /// What the agent found out about them.
  var facts = PushDecision.Facts()
  /// Where the push looked (nil: everywhere).
  var scopes: ChangedScopes?
  /// The placeholders whose files are gone.
  var gone: Set<String> = []
  /// What happened, for a failure's message.
  var summary = ""

  /// The synced records by path, in the places the push looked.
  var byPath: [String: SyncedRecord] {
    Dictionary(candidates.map { ($0.path, $0) }) { first, _ in first }
  }

  /// The synced records in the places the push looked.
  var candidates: [SyncedRecord] {
    tree.records.filter { scopes?.contains($0) ?? true }
  }

  /// The synced documents the scan holds, under their identity or another (safe-saved).
  var present: Set<String> = []

  /// A world drawn from `random`.
  init(_ random: inout SplitMix) {
    let folders = ["", "a/", "b/", "a/c/"]
    let names = ["x.txt", "y.txt", "z.md", "w"]
    func path() -> String {
      folders[random.below(folders.count)] + names[random.below(names.count)]
    }
    var disk: [LocalItem] = []
    var copies: [LocalItem] = []
    var stands: [String: String] = [:]  // a path on disk: the synced document it stands for
    var taken = Set<String>()
    // A place no other file is at (nil when there is none left).
    func free() -> String? {
      for _ in 0..<8 {
        let candidate = path()
        if !(disk + copies).contains(where: { $0.path == candidate }) && !taken.contains(candidate)
        {
          return candidate
        }
      }
      return nil
    }
    for index in 0..<(1 + random.below(12)) {
      let id = "s\(index)"
      let at = path()
      guard !(disk + copies).contains(where: { $0.path == at }), taken.insert(at).inserted else {
        continue
      }
      let isPlaceholder = random.below(8) == 0
      tree.put((id, at, 1, isPlaceholder))
      if isPlaceholder {
        if random.below(2) == 0 { gone.insert(id) }
        continue
      }
      // What stands for the document on disk now, if anything.
      var standing: [LocalItem] = []
      switch random.below(8) {
      case 0: summary += "\(id) deleted; "
      case 1: standing = [file(id, at, 2)]
      case 2: standing = [file(id, free() ?? at, 1)]
      case 3: standing = [file(id, free() ?? at, 3)]
      case 4:
        standing = [file("n\(index)", at, 4)]  // safe-saved: a new file in its place
        summary += "\(id) safe-saved; "
      case 5:
        standing = [file(id, at, 1)]
        if let copy = free() {
          copies.append(file(id, copy, 1))  // copied with its identity
          summary += "\(id) copied; "
        }
      default: standing = [file(id, at, 1)]
      }
      disk += standing
      for item in standing { stands[item.path] = id }
    }
    disk += copies
    for index in 0..<random.below(3) {
      if let at = free() { disk.append(file("new\(index)", at, 1)) }
    }
    disk.shuffle(using: &random)
    if random.below(2) == 0 {
      let places = (0..<(1 + random.below(3))).map { _ in
        random.below(2) == 0 ? path() : String(folders[1 + random.below(3)].dropLast())
      }
      scopes = ChangedScopes(places)
      summary += "scopes \(places); "
    }
    items = disk.filter { scopes?.contains($0.path) ?? true }
    present = Set(items.compactMap { stands[$0.path] })
    let ids = Set(items.map(\.id))
    for id in ids where random.below(6) == 0 { facts.puttingBack.insert(id) }
    // A copy the agent found (its original where it was synced), sometimes; a new file a
    // share's agent syncs, sometimes.
    for (index, item) in items.enumerated() {
      if copies.contains(item), random.below(2) == 0 { facts.copies.insert(index) }
      if item.id.hasPrefix("new"), random.below(5) == 0 { facts.sharesAgents.insert(index) }
    }
    // Items shared with the account are never in its own synced tree.
    if let id = ids.filter({ $0.hasPrefix("new") }).randomElement(using: &random) {
      facts.sharedItems.insert(id)
    }
    summary += "scan \(items.map { "\($0.id)@\($0.path)#\($0.members[""]!.modifiedNanoseconds)" })"
  }
}
