import Foundation
import QuireSyncProtocol
import Testing

/// A member's chunk list sent as an edit of its base's: rebuilt exactly from any base and any
/// change of it, small for a small change, and refused (typed) when it does not apply.
@Suite("Sync protocol: chunk lists sent as edits")
struct ChunkListEditTests {
  /// A chunk named by `index`, of a size that follows from it.
  static func chunk(_ index: Int) -> ChunkReference {
    ChunkReference(hash: ContentHash(of: Array("chunk \(index)".utf8)), size: 16_384 + index % 977)
  }

  /// `base` changed by a few random edits: replacements, insertions, deletions, a block moved
  /// and a block repeated, with chunks drawn from a small pool so that lists repeat chunks.
  static func changed(_ base: [ChunkReference], using random: inout some RandomNumberGenerator)
    -> [ChunkReference]
  {
    var list = base
    for _ in 0..<Int.random(in: 0...4, using: &random) {
      let at = Int.random(in: 0...list.count, using: &random)
      switch Int.random(in: 0..<5, using: &random) {
      case 0 where at < list.count: list[at] = chunk(Int.random(in: 0..<400, using: &random))
      case 1: list.insert(chunk(Int.random(in: 0..<400, using: &random)), at: at)
      case 2 where at < list.count:
        list.removeSubrange(at..<min(list.count, at + Int.random(in: 1...20, using: &random)))
      case 3 where at < list.count:
        let block = Array(list[at..<min(list.count, at + 10)])
        list.removeSubrange(at..<min(list.count, at + 10))
        list.insert(contentsOf: block, at: Int.random(in: 0...list.count, using: &random))
      default:
        list.insert(contentsOf: list[at..<min(list.count, at + 5)], at: list.count)
      }
    }
    return list
  }

  @Test("an edit rebuilds exactly the new list from its base, over 500 generated lists and changes")
  func generated() throws {
    var random = SystemRandomNumberGenerator()
    var sent = 0
    for seed in 0..<500 {
      let base = (0..<Int.random(in: 0...300, using: &random)).map { _ in
        Self.chunk(Int.random(in: 0..<(seed % 2 == 0 ? 100 : 100_000), using: &random))
      }
      let new = Self.changed(base, using: &random)
      guard let edit = ChunkListEdit.between(base: base, new: new, path: "m") else { continue }
      sent += 1
      #expect(try edit.applied(to: base) == new, "seed \(seed)")
      let decoded = try JSONDecoder().decode(
        ChunkListEdit.self, from: try JSONEncoder().encode(edit))
      #expect(decoded == edit)
      #expect(try decoded.applied(to: base) == new)
    }
    #expect(sent > 250, "most small changes of long lists are sent as edits")
  }

  @Test("100 bytes changed in a 4 000-chunk member are three runs, under 400 bytes on the wire")
  func smallChange() throws {
    let base = (0..<4000).map(Self.chunk)
    var new = base
    new[2000] = Self.chunk(-1)
    let edit = try #require(ChunkListEdit.between(base: base, new: new, path: ""))
    #expect(edit.runs.count == 3)
    #expect(try JSONEncoder().encode(edit).count < 400)
    #expect(try JSONEncoder().encode(new).count > 300_000)
    // A short list, or one that shares nothing, goes whole.
    #expect(
      ChunkListEdit.between(base: Array(base[0..<4]), new: Array(new[0..<5]), path: "") == nil)
    #expect(ChunkListEdit.between(base: base, new: (5000..<6000).map(Self.chunk), path: "") == nil)
  }

  @Test(
    "an edit that does not apply, or a change whose edits are malformed, is refused as invalidManifest"
  )
  func refused() throws {
    let base = (0..<100).map(Self.chunk)
    var new = base
    new[50] = Self.chunk(-1)
    let edit = try #require(ChunkListEdit.between(base: base, new: new, path: "m"))
    func expectInvalid(_ body: () throws -> Void) {
      #expect {
        try body()
      } throws: { ($0 as? SyncError)?.code == .invalidManifest }
    }
    expectInvalid { _ = try edit.applied(to: Array(base.dropFirst())) }  // another base
    for runs: [ChunkListEdit.Run] in [
      [.base(start: 0, count: 101)], [.base(start: -1, count: 2)], [.base(start: 5, count: 0)],
      [.base(start: 99, count: .max)], [.base(start: .max, count: 1)], [.new([])],
      // A few bytes that would make a list of billions.
      Array(repeating: .base(start: 0, count: 100), count: 1_000_000),
    ] {
      expectInvalid {
        _ = try ChunkListEdit(path: "m", runs: runs, digest: edit.digest).applied(to: base)
      }
    }
    let member = ManifestMember(
      path: "m", size: new.reduce(0) { $0 + $1.size }, mode: 0o644, modified: 0,
      hash: ContentHash(of: [UInt8]()), chunks: [])
    var change = ManifestChange(upserted: [member])
    change.edits = [edit]
    #expect(try change.resolvingEdits { _ in base }.upserted[0].chunks == new)
    #expect(try change.resolvingEdits { _ in base }.edits == nil)
    expectInvalid { _ = try change.resolvingEdits { _ in nil } }  // no base member
    var twice = change
    twice.edits = [edit, edit]
    expectInvalid { _ = try twice.resolvingEdits { _ in base } }
    var other = change
    other.edits = [ChunkListEdit(path: "n", runs: edit.runs, digest: edit.digest)]
    expectInvalid { _ = try other.resolvingEdits { _ in base } }
    var listed = change
    listed.upserted[0].chunks = new
    expectInvalid { _ = try listed.resolvingEdits { _ in base } }
    // Two edits, each within the limit, that make more than it together: the request's edits
    // share one budget.
    let repeated = Array(repeating: ChunkListEdit.Run.base(start: 0, count: 100), count: 3_000)
    let long = Array(repeating: base, count: 3_000).flatMap { $0 }
    let size = long.reduce(0) { $0 + $1.size }
    var large = ManifestChange(
      upserted: ["a", "b"].map {
        ManifestMember(
          path: $0, size: size, mode: 0o644, modified: 0, hash: member.hash, chunks: [])
      })
    let digest = ChunkListEdit.digest(of: long)
    large.edits = ["a", "b"].map { ChunkListEdit(path: $0, runs: repeated, digest: digest) }
    #expect(
      try ManifestChange(upserted: [large.upserted[0]], removed: []).resolvingEdits { _ in
        base
      } == ManifestChange(upserted: [large.upserted[0]]), "no edits: as it was")
    var one = large
    one.upserted.removeLast()
    one.edits?.removeLast()
    #expect(try one.resolvingEdits { _ in base }.upserted[0].chunks.count == 300_000)
    expectInvalid { _ = try large.resolvingEdits { _ in base } }
    // Made by `editing`, and rebuilt: the same change.
    let whole = ManifestChange(upserted: [
      ManifestMember(
        path: "m", size: member.size, mode: 0o644, modified: 0, hash: member.hash, chunks: new)
    ])
    let edited = whole.editing(base: ["m": base])
    #expect(edited.edits?.count == 1 && edited.upserted[0].chunks.isEmpty)
    #expect(try edited.resolvingEdits { path in ["m": base][path] } == whole)
  }
}
