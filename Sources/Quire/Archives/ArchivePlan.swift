import Foundation
import ZIPFoundation

/// An archive's entries, checked before anything is written: every name safe and valid on
/// Linux, no duplicates, no entry written through a link, every link staying inside the
/// document, and sizes within the limits.
struct ArchivePlan {
  enum Kind {
    case file, directory
    case symbolicLink(String)
  }

  struct Item {
    var components: [String]
    var kind: Kind
    var entry: Entry
    var mode: UInt16?
    var date: Date
  }

  /// The document's name in the destination folder.
  var name: String
  /// Whether the document is a folder (package) rather than one file.
  var isFolder: Bool
  /// The entry for the document itself, when the archive has one (its mode and date).
  var rootItem: Item?
  /// Everything inside the document, parents before children.
  var items: [Item]
  var totalSize: Int64

  init(archive: Archive, archiveName: String, limits: ArchiveLimits, path: String)
    throws(QuireError)
  {
    var raw: [Item] = []
    var totalSize: Int64 = 0
    let times = ArchiveDirectory.modificationTimes(path)
    for entry in archive {
      guard raw.count < limits.maximumEntryCount else {
        throw Self.tooLarge(path, "holds more than \(limits.maximumEntryCount) entries")
      }
      let size = Int64(clamping: entry.uncompressedSize)
      totalSize += size
      guard totalSize <= limits.maximumTotalSize else {
        throw Self.tooLarge(path, "expands to more than \(limits.maximumTotalSize) bytes")
      }
      if size >= limits.ratioCheckThreshold {
        let ratio = Double(size) / Double(max(1, entry.compressedSize))
        guard ratio <= limits.maximumCompressionRatio else {
          throw Self.tooLarge(path, "has an entry “\(entry.path)” that expands \(Int(ratio))-fold")
        }
      }
      raw.append(try Self.item(for: entry, path: path, times: times))
    }
    let declared = ArchiveDirectory.declaredEntryCount(path)
    guard !raw.isEmpty, declared == nil || declared == raw.count else {
      throw QuireError(
        .corruptArchive,
        "The archive “\(path)” is \(raw.isEmpty ? "empty" : "damaged: its table of contents is cut short")."
          + " Get a fresh copy of it.", path: path)
    }
    self.totalSize = totalSize
    (name, isFolder, rootItem, items) = try Self.document(raw, archiveName: archiveName, path: path)
    try checkNamesAndLinks(path: path)
  }

  private static func item(for entry: Entry, path: String, times: [String: Date])
    throws(QuireError) -> Item
  {
    // Info-ZIP's zip stores UTF-8 names without the UTF-8 flag; like unzip on Linux, take the
    // bytes as UTF-8 when they are valid UTF-8, and as code page 437 only otherwise.
    let utf8 = entry.path(using: .utf8)
    let name = utf8.isEmpty ? entry.path : utf8
    guard !name.hasPrefix("/"), !name.contains("\0") else {
      throw unsafe(path, "has an absolute or NUL-containing name “\(name)”")
    }
    var parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
    if parts.last == "" && parts.count > 1 { parts.removeLast() }
    for part in parts {
      if part == ".." { throw unsafe(path, "has a name “\(name)” that climbs out with “..”") }
      do throws(QuireError) { try FileName.validate(part) } catch {
        throw QuireError(
          .invalidName,
          "The archive “\(path)” has an entry “\(name)” that Linux cannot store: \(error.message)",
          path: path, cause: error)
      }
    }
    let attributes = entry.fileAttributes
    let mode = (attributes[.posixPermissions] as? NSNumber)?.uint16Value ?? 0
    // ZIPFoundation reads the MS-DOS time as UTC; the archive's own directory says what the
    // writer meant (the extended timestamp, or local time as Info-ZIP writes it).
    let key = name.hasSuffix("/") && name.count > 1 ? String(name.dropLast()) : name
    let date = times[key] ?? attributes[.modificationDate] as? Date ?? Date()
    let kind: Kind
    switch entry.type {
    case .directory: kind = .directory
    case .file: kind = .file
    case .symlink: kind = .symbolicLink("")  // read when checked
    }
    return Item(
      components: parts, kind: kind, entry: entry, mode: mode == 0 ? nil : mode & 0o7777, date: date
    )
  }

  /// One top-level item is the document (`Report.mydoc/…` or `notes.txt`); anything else is the
  /// contents of a folder named after the archive.
  private static func document(_ raw: [Item], archiveName: String, path: String) throws(QuireError)
    -> (String, Bool, Item?, [Item])
  {
    let tops = Set(raw.map { $0.components[0] })
    if tops.count == 1, let top = tops.first {
      let root = raw.first { $0.components.count == 1 }
      if raw.count == 1, let root, case .file = root.kind { return (top, false, root, []) }
      if root.map({ if case .directory = $0.kind { true } else { false } }) ?? true {
        let inside = raw.filter { $0.components.count > 1 }.map { item in
          var item = item
          item.components.removeFirst()
          return item
        }
        return (top, true, root, inside.sorted { $0.components.count < $1.components.count })
      }
    }
    var name = archiveName
    if name.lowercased().hasSuffix(".zip") { name = String(name.dropLast(4)) }
    try FileName.validate(name, in: path)
    return (name, true, nil, raw.sorted { $0.components.count < $1.components.count })
  }

  private func checkNamesAndLinks(path: String) throws(QuireError) {
    var kinds: [String: Kind] = [:]
    for item in items {
      let key = item.components.joined(separator: "/")
      guard kinds.updateValue(item.kind, forKey: key) == nil else {
        throw Self.unsafe(path, "holds “\(key)” twice")
      }
      for depth in 1..<max(1, item.components.count) {
        let parent = item.components[0..<depth].joined(separator: "/")
        switch kinds[parent] {
        case .file?: throw Self.unsafe(path, "puts “\(key)” inside the file “\(parent)”")
        case .symbolicLink?: throw Self.unsafe(path, "writes “\(key)” through the link “\(parent)”")
        default: break
        }
      }
    }
  }

  /// Whether the link at `components` pointing to `destination` resolves inside the document,
  /// following the archive's other links the way the kernel would.
  static func staysInside(
    _ components: [String], _ destination: String, links: [String: String], hops: Int = 0
  ) -> Bool {
    guard hops < 40, !destination.isEmpty, !destination.hasPrefix("/"), !destination.contains("\0")
    else {
      return false
    }
    var stack = Array(components.dropLast())
    for part in destination.split(separator: "/") {
      switch part {
      case ".": continue
      case "..":
        if stack.isEmpty { return false }
        stack.removeLast()
      default:
        stack.append(String(part))
        if let next = links[stack.joined(separator: "/")] {
          guard staysInside(stack, next, links: links, hops: hops + 1) else { return false }
          var resolved = Array(stack.dropLast())
          for step in next.split(separator: "/") where step != "." {
            if step == ".." { resolved.removeLast() } else { resolved.append(String(step)) }
          }
          stack = resolved
        }
      }
    }
    return true
  }

  static func unsafe(_ path: String, _ problem: String) -> QuireError {
    QuireError(
      .unsafeArchive,
      "The archive “\(path)” \(problem); it was not imported and nothing was written.",
      path: path)
  }

  static func tooLarge(_ path: String, _ problem: String) -> QuireError {
    QuireError(
      .archiveTooLarge,
      "The archive “\(path)” \(problem), beyond the import limits; it was not imported.", path: path
    )
  }
}
