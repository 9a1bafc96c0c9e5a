import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireServer

/// Generated hostile commits against the store itself: extreme and non-finite numbers, odd
/// names, duplicate and lying references, huge counts. Each is either refused with a typed
/// ``SyncError`` or stored, and whatever is stored reads back as a manifest that passes the
/// same checks a device's download makes, so nothing stored can hurt a device later.
@Suite("Hostile manifests, generated", .timeLimit(.minutes(4)))
struct HostileManifestPropertyTests {
  /// A small deterministic generator (one seed per case), so a failure names its case.
  struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return state >> 11
    }
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next() % UInt64(choices.count))] }
  }

  static let names = [
    "a.txt", "..", ".", "", "/abs", "a//b", "a/", "é", "e\u{301}", "\u{301}x", "a\nb", "a\u{202E}b",
    "a\u{0}b", String(repeating: "n", count: 256), "dir/sub/deep.txt", "CON", "a\\b", "💥",
  ]
  static let numbers: [Double] = [
    0, -0.0, 1, -1, 1e300, -1e300, .infinity, -.infinity, .nan, 253_402_300_799,
    9_223_372_035, 9_223_372_036, -9_223_372_035, -9_223_372_036, Double(Int.max),
    .leastNonzeroMagnitude,
  ]
  static let modes = [0, 0o644, 0o755, 0o777, 0o1000, 0o4755, 0o6755, -1, Int.max, Int.min, 0o7777]
  static let sizes = [0, 1, 16, 17, -1, Int.max, Int.min, 262_144, 262_145]

  @Test("a thousand generated hostile commits are refused with a typed error or stored safely")
  func generated() throws {
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    try store.accounts.addUser(name: "alice", password: "alice-password")
    let token = try store.accounts.addDevice(user: "alice", name: "fuzz").token
    let device = try #require(try store.accounts.device(token: token))
    let chunk = Array("sixteen bytes!!!".utf8)
    var body: [UInt8] = []
    let hash = ContentHash(of: chunk)
    ChunkFrames.append(hash: hash, bytes: chunk, to: &body)
    _ = try store.chunks.storeChunks(user: device.user, body: body, maximumChunk: 262_144)
    let container = "iCloud.net.gacha.mydoc"
    var stored = 0
    for seed in 0..<1000 {
      var random = Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
      let kind: ItemKind = random.pick([.file, .package])
      var members: [ManifestMember] = []
      for _ in 0..<Int(random.next() % 4) {
        let references = (0..<Int(random.next() % 3)).map { _ in
          ChunkReference(
            hash: random.pick([hash, ContentHash(of: [1])]), size: random.pick(Self.sizes + [16]))
        }
        members.append(
          ManifestMember(
            path: kind == .file ? random.pick(["", "", "x"]) : random.pick(Self.names),
            size: random.pick(Self.sizes + [16, 32]), mode: random.pick(Self.modes),
            modified: random.pick(Self.numbers), hash: hash, chunks: references))
      }
      let request = CommitRequest(
        commit: random.pick(["c\(seed)", "c\(seed)~mine", "", "c\(seed)"]),
        item: random.pick(["item-\(seed)", "..", "a.b", "item-\(seed % 7)"]), kind: kind,
        path: "Documents/" + random.pick(Self.names), base: random.pick([nil, -1, 1, Int64.max]),
        deleted: random.pick([false, false, true]),
        change: ManifestChange(upserted: members, removed: random.pick([[], ["a.txt"], [".."]])))
      do {
        let answer = try store.commits.commit(
          request, container: container, device: device, maximumMembers: 1000)
        stored += 1
        // What was stored reads back and passes the checks a device makes before writing.
        let manifest = try store.commits.manifest(
          container: container, item: request.item, revision: answer.revision, since: nil,
          user: device.user)
        try SyncPath.check(manifest.path, what: "item path")
        for member in manifest.change.upserted {
          #expect(ManifestMember.modes.contains(member.mode), "seed \(seed)")
          #expect(ManifestMember.modificationTimes.contains(member.modified), "seed \(seed)")
          #expect(member.chunks.reduce(0) { $0 + $1.size } == member.size, "seed \(seed)")
        }
      } catch {
        // Refused: a typed error a client can act on, never the server's own failure.
        #expect(error.code != .internalError, "seed \(seed): \(error)")
      }
    }
    #expect(stored > 0, "no generated commit was valid: the generator tests nothing stored")
  }
}
