import Foundation
import Quire
import QuireSyncProtocol
import Testing

/// The pure merge logic under random histories (the method Dropbox describes for its sync
/// engine): random trees changed on three devices from a common base, commits and pulls applied
/// in shuffled orders against a model of the server that merges with ``RevisionMerge`` and
/// ``TextMerge``. Every history must terminate, leave every device with the server's tree, and
/// lose no committed state: each is on the chain, merged into it, or kept as a conflict
/// revision.
@Suite("Merges converge under random histories")
struct MergeConvergenceTests {
  @Test("three devices, random edits, shuffled commits and pulls: all converge, nothing is lost")
  func randomHistories() throws {
    var merges = 0
    var textMerges = 0
    var kept = 0
    for seed in UInt64(1)...2000 {
      var world = World(seed: seed)
      try world.run()
      merges += world.merges
      textMerges += world.textMerges
      kept += world.conflicts.count
    }
    // The histories really exercise the merge: stale commits, line merges and conflicts.
    #expect(merges > 1000 && textMerges > 80 && kept > 150, "\(merges) \(textMerges) \(kept)")
  }
}

/// One random history: the server's chain and conflict revisions, three devices, the blobs.
private struct World {
  typealias Tree = [String: ManifestMember]

  struct Device {
    let name: String
    var revision: Int
    var synced: Tree
    var local: Tree
  }

  var random: SplitMix
  var blobs: [ContentHash: [UInt8]] = [:]
  var revisions: [Tree] = [[:]]
  /// The device that committed each revision.
  var committers: [String] = ["d0"]
  var conflicts: [Tree] = []
  var devices: [Device]
  var clock = 1.0
  var merges = 0
  var textMerges = 0
  var log: [String] = []
  let seed: UInt64

  init(seed: UInt64) {
    self.seed = seed
    random = SplitMix(seed: seed)
    devices = ["d0", "d1", "d2"].map { Device(name: $0, revision: 0, synced: [:], local: [:]) }
  }

  var current: Tree { revisions[revisions.count - 1] }

  mutating func run() throws {
    // A common base, synced everywhere.
    for _ in 0..<4 { edit(0) }
    try push(0)
    for index in devices.indices { try pull(index) }
    // Random edits, commits and pulls in a shuffled order.
    var events: [(kind: Int, device: Int)] = []
    for _ in 0..<random.below(12) + 4 { events.append((random.below(3), random.below(3))) }
    for event in events {
      switch event.kind {
      case 0: edit(event.device)
      case 1: try push(event.device)
      default: try pull(event.device)
      }
    }
    // Heal: every device commits and pulls until nothing moves, within a bound.
    var passes = 0
    while devices.contains(where: { $0.local != current || $0.synced != current }) {
      passes += 1
      #expect(passes < 10, "no convergence (seed \(seed)): \(log.joined(separator: "; "))")
      if passes >= 10 { return }
      for index in devices.indices { try push(index) }
      for index in devices.indices { try pull(index) }
    }
    for device in devices {
      #expect(device.local == current, "seed \(seed): \(device.name) differs")
    }
  }

  /// A random change to a device's local tree: add, change or remove a member.
  mutating func edit(_ index: Int) {
    clock += 1
    var tree = devices[index].local
    let path = ["a.txt", "b.txt", "c.png", "d.png", "e/f.txt"][random.below(5)]
    if tree[path] != nil, random.below(4) == 0 {
      tree[path] = nil
      log.append("\(devices[index].name) removes \(path)")
    } else {
      let old = tree[path].map { blobs[$0.hash] ?? [] } ?? []
      let bytes: [UInt8]
      if path.hasSuffix(".txt") {
        var lines = String(decoding: old, as: UTF8.self).split(separator: "\n").map(String.init)
        if lines.isEmpty { lines = (0..<16).map { "line \($0)" } }
        lines[random.below(lines.count)] = "\(devices[index].name) \(random.below(100))"
        bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
      } else {
        bytes = Array("\(devices[index].name) image \(random.below(1000))".utf8)
      }
      blobs[ContentHash(of: bytes)] = bytes
      tree[path] = member(path, bytes)
      log.append("\(devices[index].name) writes \(path)")
    }
    devices[index].local = tree
  }

  func member(_ path: String, _ bytes: [UInt8]) -> ManifestMember {
    ManifestMember(
      path: path, size: bytes.count, mode: 0o644, modified: clock, hash: ContentHash(of: bytes),
      chunks: [])
  }

  /// The device commits its local tree, as the agent does: on the current revision a plain
  /// commit; on a stale one, the server's merge, and the device takes the merged revision.
  mutating func push(_ index: Int) throws {
    var device = devices[index]
    guard device.local != device.synced else { return }
    if device.revision == revisions.count - 1 {
      revisions.append(device.local)
      committers.append(device.name)
    } else {
      var merged: Set<String> = []
      var blobs = self.blobs
      let textMerge = {
        (path: String, base: ManifestMember?, mine: ManifestMember, theirs: ManifestMember)
          -> ManifestMember? in
        guard path.hasSuffix(".txt") else { return nil }
        let text = TextMerge(
          base: base.map { blobs[$0.hash] ?? [] } ?? [], mine: blobs[mine.hash] ?? [],
          theirs: blobs[theirs.hash] ?? [])
        guard text.isClean else { return nil }
        merged.insert(path)
        blobs[ContentHash(of: text.text)] = text.text
        return ManifestMember(
          path: path, size: text.text.count, mode: mine.mode,
          modified: max(mine.modified, theirs.modified), hash: ContentHash(of: text.text),
          chunks: [])
      }
      let merge = RevisionMerge(
        base: revisions[device.revision], mine: device.local, theirs: current,
        mineDevice: device.name, theirsDevice: committers[committers.count - 1],
        mergeText: textMerge)
      // The same whichever side commits second.
      let swapped = RevisionMerge(
        base: revisions[device.revision], mine: current, theirs: device.local,
        mineDevice: committers[committers.count - 1], theirsDevice: device.name,
        mergeText: textMerge)
      #expect(
        swapped.members == merge.members,
        "seed \(seed): the merge depends on who commits second: \(log.joined(separator: "; "))")
      self.blobs = blobs
      if merge.mineLost { conflicts.append(device.local) }
      if merge.theirsLost { conflicts.append(current) }
      try checkNothingLost(
        mine: device.local, base: revisions[device.revision], theirs: current,
        merged: merge.members, textMerged: merged, mineKept: merge.mineLost)
      revisions.append(merge.members)
      committers.append(device.name)
      merges += 1
      textMerges += merged.count
      log.append("\(device.name) merges")
    }
    device.revision = revisions.count - 1
    device.synced = current
    device.local = current
    devices[index] = device
  }

  /// A device with no local change takes the current revision; one with changes commits first.
  mutating func pull(_ index: Int) throws {
    if devices[index].local != devices[index].synced { try push(index) }
    devices[index].revision = revisions.count - 1
    devices[index].synced = current
    devices[index].local = current
  }

  /// Each member mine changed is in the merge (as mine's, merged line by line, or beaten by a
  /// change on the other side to a member mine removed), or mine's whole state is kept.
  func checkNothingLost(
    mine: Tree, base: Tree, theirs: Tree, merged: Tree, textMerged: Set<String>, mineKept: Bool
  ) throws {
    if mineKept { return }
    for path in Set(mine.keys).union(base.keys) where mine[path] != base[path] {
      let kept =
        merged[path] == mine[path] || textMerged.contains(path)
        || (mine[path] == nil && theirs[path] != base[path])
      #expect(kept, "seed \(seed): \(path) of a commit was lost: \(log.joined(separator: "; "))")
    }
  }
}
