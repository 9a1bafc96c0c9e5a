import Foundation
import ZIPFoundation

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a checked ``ArchivePlan`` below `root`: folders, then files (metered, so an entry that
/// expands beyond what its header said is stopped), then links, then permissions and dates.
struct ArchiveExtractor {
  let archive: Archive
  let plan: ArchivePlan
  let root: String
  let archivePath: String
  let limits: ArchiveLimits
  let progress: PackageArchive.Progress?

  func run() throws(QuireError) {
    var written: Int64 = 0
    let links = plan.items.reduce(into: [String: String]()) { links, item in
      if case .symbolicLink = item.kind { links[item.components.joined(separator: "/")] = "" }
    }
    var destinations = links
    if plan.isFolder {
      try system { () throws(SystemCallError) in try Sys.mkdir(root, mode: 0o700) }
    } else if let item = plan.rootItem {
      try extractFile(item, to: root, written: &written)
    }
    for item in plan.items {
      let path = root.appendingPathComponent(item.components.joined(separator: "/"))
      switch item.kind {
      case .directory: try system { () throws(SystemCallError) in try Sys.mkdir(path, mode: 0o700) }
      case .file: try extractFile(item, to: path, written: &written)
      case .symbolicLink:
        destinations[item.components.joined(separator: "/")] = try linkDestination(item)
      }
    }
    try makeLinks(destinations)
    try applyAttributes()
  }

  private func system(_ body: () throws(SystemCallError) -> Void) throws(QuireError) {
    do throws(SystemCallError) { try body() } catch {
      throw QuireError.system(error, action: "import", path: archivePath)
    }
  }

  private func extractFile(_ item: ArchivePlan.Item, to path: String, written: inout Int64)
    throws(QuireError)
  {
    var fd: Int32 = -1
    try system { () throws(SystemCallError) in
      fd = try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: 0o600)
    }
    defer { Sys.close(fd) }
    let declared = Int64(clamping: item.entry.uncompressedSize)
    var entryBytes: Int64 = 0
    var total = written
    var failure: QuireError?
    let checksum: CRC32
    do {
      checksum = try archive.extract(item.entry, skipCRC32: false) { chunk in
        entryBytes += Int64(chunk.count)
        total += Int64(chunk.count)
        guard entryBytes <= declared, total <= limits.maximumTotalSize else {
          failure = ArchivePlan.tooLarge(
            archivePath, "has an entry that expands beyond what its header declares")
          throw CancellationError()
        }
        try Sys.write(fd, chunk)
        progress?(total, plan.totalSize)
      }
    } catch let error as SystemCallError {
      throw QuireError.system(error, action: "import", path: archivePath)
    } catch {
      throw failure ?? corrupt(item, error)
    }
    guard checksum == item.entry.checksum, entryBytes == declared else { throw corrupt(item, nil) }
    written = total
  }

  private func linkDestination(_ item: ArchivePlan.Item) throws(QuireError) -> String {
    var bytes = Data()
    do {
      _ = try archive.extract(item.entry) { chunk in
        bytes.append(chunk)
        if bytes.count > Int(PATH_MAX) { throw CancellationError() }
      }
    } catch {
      throw corrupt(item, error)
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private func makeLinks(_ destinations: [String: String]) throws(QuireError) {
    for item in plan.items {
      guard case .symbolicLink = item.kind else { continue }
      let key = item.components.joined(separator: "/")
      let destination = destinations[key] ?? ""
      guard ArchivePlan.staysInside(item.components, destination, links: destinations) else {
        throw ArchivePlan.unsafe(
          archivePath, "has a link “\(key)” that points outside the document")
      }
      do throws(SystemCallError) {
        try Sys.symlink(destination, at: root.appendingPathComponent(key))
      } catch {
        throw QuireError.system(error, action: "import", path: archivePath)
      }
    }
  }

  /// Permissions (without set-user-ID, set-group-ID or sticky bits), then dates, deepest first so
  /// that creating children does not disturb a folder's date.
  private func applyAttributes() throws(QuireError) {
    let all =
      (plan.rootItem.map { [($0, root)] } ?? [])
      + plan.items.map { ($0, root.appendingPathComponent($0.components.joined(separator: "/"))) }
    do throws(SystemCallError) {
      if plan.isFolder && plan.rootItem == nil { try Sys.chmod(root, 0o755) }
      for (item, path) in all.reversed() {
        if case .symbolicLink = item.kind {
          try Sys.setModificationTime(path, item.date.timespec)
          continue
        }
        let fallback: UInt16 = if case .directory = item.kind { 0o755 } else { 0o644 }
        try Sys.chmod(path, mode_t((item.mode ?? fallback) & 0o1777 & ~0o1000))
        try Sys.setModificationTime(path, item.date.timespec)
      }
    } catch {
      throw QuireError.system(error, action: "import", path: archivePath)
    }
  }

  private func corrupt(_ item: ArchivePlan.Item, _ cause: (any Error)?) -> QuireError {
    QuireError(
      .corruptArchive,
      "The entry “\(item.entry.path)” of the archive “\(archivePath)” is damaged, encrypted or cut short;"
        + " it was not imported. Get a fresh copy of the archive.", path: archivePath, cause: cause)
  }
}
