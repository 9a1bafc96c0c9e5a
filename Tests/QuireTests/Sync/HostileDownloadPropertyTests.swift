import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// Generated hostile manifests on a device's download path, as a server that stored them before
/// its checks existed, or one that lies, would send them: odd names, extreme and non-finite
/// numbers, set-uid modes, duplicate and empty member paths, chunks whose bytes are not the size
/// their reference says. The writer either refuses a manifest with a typed error, leaving what
/// was on disk as it was, or writes it inside its folder with permission bits only. It never
/// traps, writes outside its folder, or leaves a temporary.
@Suite("Hostile manifests on a device's download path, generated", .timeLimit(.minutes(4)))
struct HostileDownloadPropertyTests {
  typealias Generator = HostileManifestPropertyTests.Generator
  static let chunk = Array("sixteen bytes!!!".utf8)
  static let hash = ContentHash(of: chunk)

  @Test("six hundred generated hostile manifests are refused or written safely in their folder")
  func generated() throws {
    let base = try TemporaryDirectory()
    let folder = base.file("Drive")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var (written, refused) = (0, 0)
    for seed in 0..<600 {
      var random = Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
      let kind: ItemKind = random.pick([.file, .package])
      let incremental = kind == .package && random.pick([false, true])
      let name = "Doc\(seed)" + (kind == .package ? ".pkg" : ".txt")
      let relative = random.pick([name, name, name, "../Escaped\(seed)", "/abs\(seed)", ""])
      let target = folder.appendingPathComponent(name)
      if incremental {
        try Disk.write("kept", to: target.appendingPathComponent("kept.txt"))
      } else if random.pick([false, true]) {
        try Disk.write("kept", to: target)
      }
      let before = try Disk.tree(folder)
      let manifest = Self.manifest(kind: kind, seed: seed, random: &random)
      let lying = random.next() % 5 == 0
      let writer = DownloadWriter(folder: folder, identity: "item-\(seed)")
      do {
        _ = try writer.write(
          manifest, to: relative,
          chunk: { _ in lying ? Array(Self.chunk.prefix(3)) : Self.chunk },
          incremental: incremental)
        written += 1
        #expect(!lying || manifest.change.upserted.allSatisfy(\.chunks.isEmpty), "seed \(seed)")
      } catch let error as SyncError {
        refused += 1
        #expect(error.code != .internalError, "seed \(seed): \(error)")
        #expect(
          try Disk.tree(folder) == before, "seed \(seed): a refused download changed the disk")
      } catch let error as QuireError {
        refused += 1
        #expect(try Disk.tree(folder) == before, "seed \(seed): \(error) changed the disk")
      } catch {
        Issue.record("seed \(seed): an untyped error \(error)")
      }
      #expect(try Self.names(base.url) == ["Drive"], "seed \(seed): written outside the folder")
      try Self.checkSafe(folder, seed: seed)
    }
    #expect(written > 30, "no generated manifest was valid: the generator tests nothing written")
    #expect(refused > 30, "no generated manifest was hostile")
  }

  static func manifest(kind: ItemKind, seed: Int, random: inout Generator) -> RevisionManifest {
    typealias Hostile = HostileManifestPropertyTests
    let valid = random.next() % 3 == 0
    var members: [ManifestMember] = []
    for index in 0..<(1 + Int(random.next() % 3)) {
      let count = Int(random.next() % 3)
      let references = (0..<count).map { _ in
        ChunkReference(hash: hash, size: valid ? 16 : random.pick(Hostile.sizes + [16, 16]))
      }
      let path =
        kind == .file
        ? (valid ? "" : random.pick(["", "", "x"]))
        : (valid ? "m\(index).txt" : random.pick(Hostile.names + ["m.txt", "d/m.txt"]))
      members.append(
        ManifestMember(
          path: path, size: valid ? 16 * count : random.pick(Hostile.sizes + [16, 32]),
          mode: valid ? 0o644 : random.pick(Hostile.modes),
          modified: valid ? 1_700_000_000 : random.pick(Hostile.numbers), hash: hash,
          chunks: references))
      if kind == .file { break }
    }
    let removed =
      valid || kind == .file ? [] : random.pick([[], ["kept.txt"], [""], [".."], ["/"]])
    return RevisionManifest(
      item: "item-\(seed)", revision: 2, since: 1, kind: kind, path: "Documents/x", deleted: false,
      conflict: false, change: ManifestChange(upserted: members, removed: removed))
  }

  /// Every file below `folder` has permission bits only, and no temporary is left.
  static func checkSafe(_ folder: URL, seed: Int) throws {
    let walker = FileManager.default.enumerator(atPath: folder.path)
    while let relative = walker?.nextObject() as? String {
      let name = (relative as NSString).lastPathComponent
      #expect(!name.hasPrefix(".quire-sync-"), "seed \(seed): a temporary was left: \(relative)")
      var info = stat()
      guard lstat(folder.appendingPathComponent(relative).path, &info) == 0 else { continue }
      #expect(info.st_mode & 0o7000 == 0, "seed \(seed): \(relative) has a set-id bit")
    }
  }

  static func names(_ folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }
}
