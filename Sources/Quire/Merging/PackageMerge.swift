import Foundation

/// The three-way merge of two changed copies of a document — two package folders or two flat
/// files — against their common base, written out as one document: ``MemberMerge`` decides each
/// member, ``TextMerge`` merges the text ones both sides changed.
///
/// It is what `quire merge BASE MINE THEIRS` runs, with the same rules the sync server merges
/// concurrent edits by. A member still in conflict keeps mine's contents (a text member gets
/// git's conflict markers, as `git merge-file` writes them) and is listed in ``conflicts``.
///
/// ```swift
/// let merge = try PackageMerge(base: base, mine: mine, theirs: theirs)
/// try merge.write(to: mine)
/// if !merge.conflicts.isEmpty { … }
/// ```
///
/// The cost is a read of every member of the three copies, and memory for the text members
/// merged.
public struct PackageMerge: Sendable {
  /// How one changed member was settled.
  public enum Resolution: String, Sendable, Equatable {
    /// Mine's change kept.
    case mine
    /// Theirs' change taken.
    case theirs
    /// Removed.
    case removed
    /// Both sides' changes merged line by line.
    case merged
    /// Changed differently on both sides and not mergeable: mine's kept (with markers if text).
    case conflict
  }

  /// Each changed member (the empty path for a flat file) and how it was settled, by path.
  public let changes: [(path: String, resolution: Resolution)]
  /// Whether the three are flat files rather than packages.
  public let isFlatFile: Bool
  private let contents: [String: Source]

  /// Where a member of the result comes from.
  private enum Source: Sendable {
    case file(URL)
    case bytes([UInt8], mode: Int)
  }

  /// The paths still in conflict.
  public var conflicts: [String] { changes.filter { $0.resolution == .conflict }.map(\.path) }

  /// Merges `mine` and `theirs` (both changed from `base`); all three are packages, or all
  /// three flat files. `types` tells text members from others.
  public init(base: URL, mine: URL, theirs: URL, types: TypeRegistry = TypeRegistry())
    throws(QuireError)
  {
    let kinds = try [base, mine, theirs].map { url throws(QuireError) in try Self.isFolder(url) }
    guard kinds.allSatisfy({ $0 == kinds[0] }) else {
      throw QuireError(
        .wrongKind,
        "“\(mine.lastPathComponent)”, its base and theirs must all be packages or all be files.",
        path: mine.path)
    }
    isFlatFile = !kinds[0]
    let baseFiles = try Self.members(of: base)
    let mineFiles = try Self.members(of: mine)
    let theirFiles = try Self.members(of: theirs)
    let plan = MemberMerge(base: baseFiles, mine: mineFiles, theirs: theirFiles) {
      Self.same($0, $1)
    }
    var contents = mineFiles.mapValues { Source.file($0) }
    var changes: [(path: String, resolution: Resolution)] = []
    for (path, outcome) in plan.outcomes {
      switch outcome {
      case .mine:
        changes.append((path, .mine))
      case .theirs(let file):
        contents[path] = .file(file)
        changes.append((path, .theirs))
      case .removed:
        contents[path] = nil
        changes.append((path, .removed))
      case .both(let original, let m, let t):
        let name = path.isEmpty ? mine.lastPathComponent : path
        let mineBytes = try Self.read(m)
        guard TextMerge.isText(name: name, bytes: mineBytes, types: types) else {
          changes.append((path, .conflict))
          continue
        }
        let merge = TextMerge(
          base: try original.map { url throws(QuireError) in try Self.read(url) } ?? [],
          mine: mineBytes, theirs: try Self.read(t), labels: (mine.path, theirs.path))
        contents[path] = .bytes(merge.text, mode: Self.mode(of: m))
        changes.append((path, merge.isClean ? .merged : .conflict))
      }
    }
    self.changes = changes
    self.contents = contents
  }

  /// Writes the result at `output` (replacing what is there, such as mine), inside a
  /// coordinated write: a package is built beside it and swapped in whole.
  public func write(to output: URL) throws(QuireError) {
    let staging = output.deletingLastPathComponent().appendingPathComponent(
      ".quire-merge-\(UUID().uuidString)")
    do {
      defer { try? FileManager.default.removeItem(at: staging) }
      if isFlatFile {
        try place(contents[""], at: staging)
      } else {
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
        for (path, source) in contents.sorted(by: { $0.key < $1.key }) {
          let target = staging.appendingPathComponent(path)
          try FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
          try place(source, at: target)
        }
      }
      try FileCoordinator().coordinate(writingItemAt: output, options: .forReplacing) { url in
        if FileManager.default.fileExists(atPath: url.path) {
          try Sys.exchange(staging.path, url.path)  // the old copy is removed with the staging
        } else {
          try FileManager.default.moveItem(at: staging, to: url)
        }
      }
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError.wrap(
        error, "Could not write the merge to “\(output.path)”.", path: output.path)
    }
  }

  private func place(_ source: Source?, at target: URL) throws {
    switch source {
    case .file(let url):
      try FileManager.default.copyItem(at: url, to: target)
    case .bytes(let bytes, let mode):
      try Data(bytes).write(to: target)
      try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: target.path)
    case nil:
      try Data().write(to: target)
    }
  }

  private static func isFolder(_ url: URL) throws(QuireError) -> Bool {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw QuireError(.notFound, "There is nothing at “\(url.path)” to merge.", path: url.path)
    }
    return isDirectory.boolValue
  }

  /// A package's regular files by relative path, or a flat file as the one member "".
  private static func members(of url: URL) throws(QuireError) -> [String: URL] {
    guard try isFolder(url) else { return ["": url] }
    var result: [String: URL] = [:]
    let root = url.standardizedFileURL.path
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [:] }
    while let relative = walker.nextObject() as? String {
      let file = URL(fileURLWithPath: root).appendingPathComponent(relative)
      let values = try? file.resourceValues(forKeys: [.isRegularFileKey])
      if values?.isRegularFile == true { result[relative] = file }
    }
    return result
  }

  private static func same(_ a: URL, _ b: URL) -> Bool {
    guard mode(of: a) == mode(of: b) else { return false }
    return FileManager.default.contentsEqual(atPath: a.path, andPath: b.path)
  }

  private static func mode(of url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.posixPermissions] as? Int)
      ?? 0o644
  }

  private static func read(_ url: URL) throws(QuireError) -> [UInt8] {
    do {
      return [UInt8](try Data(contentsOf: url))
    } catch {
      throw QuireError.wrap(error, "Could not read “\(url.path)” to merge it.", path: url.path)
    }
  }
}
