import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The intent record of a package save that changes more than one item.
///
/// A save first writes every new member under a staging name in the package's top folder, then
/// writes this journal and makes it durable: that is the commit point. Applying it renames the
/// staged items into place and moves replaced or removed items to trash names; every step is
/// idempotent, so a reader that finds a journal after a crash applies it again (roll forward),
/// and a reader that finds staged items without a valid journal deletes them (roll back).
struct SaveJournal: Codable, Equatable {
  static let fileName = ".quire-journal"
  static let stagePrefix = ".quire-stage-"
  static let trashPrefix = ".quire-trash-"
  private static let header = "QUIRE-JOURNAL 1\n"

  enum Operation: Codable, Equatable {
    /// Rename the staged item `stage` to `path`, first moving a folder there to `trash`.
    case place(path: String, stage: String, trash: String)
    /// Move the item at `path` to `trash`.
    case remove(path: String, trash: String)
    /// Set permissions and/or the modification time of `path` ("" is the package itself).
    case attributes(path: String, mode: UInt16?, seconds: Int?, nanoseconds: Int?)

    var path: String {
      switch self {
      case .place(let path, _, _), .remove(let path, _), .attributes(let path, _, _, _): path
      }
    }
  }

  var operations: [Operation]

  /// Whether a top-level name belongs to Quire's save bookkeeping rather than to the document.
  static func isBookkeeping(_ name: String) -> Bool {
    name == fileName || name.hasPrefix(stagePrefix) || name.hasPrefix(trashPrefix)
  }

  /// The journal's bytes: a header, the JSON of the operations, and an FNV-1a checksum line, so a
  /// torn or partly written journal is recognised as not committed.
  func encoded() -> Data {
    let json = (try? JSONEncoder().encode(self)) ?? Data()
    var data = Data(Self.header.utf8)
    data.append(json)
    data.append(contentsOf: Array("\n\(String(Self.checksum(json), radix: 16))\n".utf8))
    return data
  }

  /// Decodes a journal, or nil if it is incomplete, damaged or names anything outside the package.
  static func decode(_ data: Data) -> SaveJournal? {
    guard data.starts(with: Data(header.utf8)) else { return nil }
    let body = data.dropFirst(header.utf8.count)
    guard body.last == 0x0A, let split = body.dropLast().lastIndex(of: 0x0A) else { return nil }
    let json = body[body.startIndex..<split]
    let sum = String(decoding: body[(split + 1)..<(body.endIndex - 1)], as: UTF8.self)
    guard String(checksum(json), radix: 16) == sum,
      let journal = try? JSONDecoder().decode(SaveJournal.self, from: Data(json)),
      journal.operations.allSatisfy(isSafe)
    else { return nil }
    return journal
  }

  private static func isSafe(_ operation: Operation) -> Bool {
    let components = operation.path.split(separator: "/", omittingEmptySubsequences: false)
    let pathIsSafe =
      operation.path.isEmpty
      || components.allSatisfy { (try? FileName.validate(String($0))) != nil }
    switch operation {
    case .place(_, let stage, let trash):
      return pathIsSafe && !operation.path.isEmpty && stage.hasPrefix(stagePrefix)
        && trash.hasPrefix(trashPrefix) && !stage.contains("/") && !trash.contains("/")
    case .remove(_, let trash):
      return pathIsSafe && !operation.path.isEmpty && trash.hasPrefix(trashPrefix)
        && !trash.contains("/")
    case .attributes:
      return pathIsSafe
    }
  }

  static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }

  /// Applies the operations to the package at `root`; safe to run again after a crash part-way.
  /// Returns the folders whose entries changed, which the caller must fsync.
  func apply(root: String) throws(SystemCallError) -> Set<String> {
    var touched: Set<String> = [root]
    for operation in operations {
      try Self.apply(operation, root: root, touched: &touched)
    }
    return touched
  }

  static func apply(_ operation: Operation, root: String, touched: inout Set<String>)
    throws(SystemCallError)
  {
    let target = operation.path.isEmpty ? root : root.appendingPathComponent(operation.path)
    switch operation {
    case .place(_, let stage, let trash):
      let staged = root.appendingPathComponent(stage)
      guard let stagedInfo = try Sys.status(staged) else { return }  // already placed
      if let existing = try Sys.status(target), existing.isDirectory || stagedInfo.isDirectory {
        try Sys.rename(target, root.appendingPathComponent(trash))
      }
      try Sys.rename(staged, target)
      touched.insert(target.deletingLastPathComponent)
    case .remove(_, let trash):
      guard try Sys.status(target) != nil else { return }
      try Sys.rename(target, root.appendingPathComponent(trash))
      touched.insert(target.deletingLastPathComponent)
    case .attributes(_, let mode, let seconds, let nanoseconds):
      guard try Sys.status(target) != nil else { return }
      if let mode { try Sys.chmod(target, mode_t(mode)) }
      if let seconds {
        try Sys.setModificationTime(target, timespec(tv_sec: seconds, tv_nsec: nanoseconds ?? 0))
      }
    }
  }
}
