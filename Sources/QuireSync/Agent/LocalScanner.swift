import Foundation
import Quire
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Finds the documents in the synced folder: regular files, and packages (folders with an
/// extension, such as `Trip.mydoc`); plain folders are descended into. Hidden names (the
/// agent's own `.quire-sync`, a package's save bookkeeping) and symbolic links are skipped, so
/// the agent never follows a link out of its folder.
enum LocalScanner {
  /// Every document under `root`.
  ///
  /// `known` (synced items by path) spares reading identities: a flat file at a synced item's
  /// path whose stat (size, mode, time to the nanosecond) is still the synced one is that item,
  /// as ``SyncedItem/matches(_:)`` already assumes for its contents. A scan of a folder of
  /// thousands of synced files is then a `stat` each, not a `stat` and an extended attribute.
  static func scan(root: URL, known: [String: SyncedRecord] = [:]) -> [LocalItem] {
    var items: [LocalItem] = []
    walk(root, relative: "", known: known, into: &items)
    return items
  }

  /// The documents in `scopes` under `root`: each scope's document, or what a plain folder
  /// holds, as ``scan(root:known:)`` would find them there.
  static func scan(root: URL, scopes: ChangedScopes, known: [String: SyncedRecord]) -> [LocalItem]
  {
    if scopes.isEverything { return scan(root: root, known: known) }
    var items: [LocalItem] = []
    for scope in scopes.paths.sorted() {
      guard let info = status(root.path + "/" + scope) else { continue }
      visit(root, scope, info, known: known, into: &items)
    }
    return items
  }

  /// The item at `relative` under `root`, or nil if there is none (or it is not a document).
  static func item(at relative: String, root: URL) -> LocalItem? {
    let path = root.path + "/" + relative
    guard let info = status(path) else { return nil }
    if isRegular(info) {
      guard let id = try? ItemIdentity.of(URL(fileURLWithPath: path)) else { return nil }
      return LocalItem(id: id, path: relative, kind: .file, members: ["": member(info)])
    }
    guard isDirectory(info), isPackageName(relative) else { return nil }
    guard let id = try? ItemIdentity.of(URL(fileURLWithPath: path)) else { return nil }
    var members: [String: LocalItem.Member] = [:]
    packageMembers(path, relative: "", into: &members)
    return LocalItem(id: id, path: relative, kind: .package, members: members)
  }

  static func isPackageName(_ relative: String) -> Bool {
    let name = relative.split(separator: "/").last.map(String.init) ?? relative
    return !(URL(fileURLWithPath: name).pathExtension.isEmpty)
  }

  private static func walk(
    _ root: URL, relative: String, known: [String: SyncedRecord], into items: inout [LocalItem]
  ) {
    let folder = relative.isEmpty ? root.path : root.path + "/" + relative
    for name in entries(folder) where !name.hasPrefix(".") {
      let child = relative.isEmpty ? name : relative + "/" + name
      guard let info = status(folder + "/" + name) else { continue }
      visit(root, child, info, known: known, into: &items)
    }
  }

  /// Adds what is at `child`, of stat `info`: what a plain folder holds, or the document.
  private static func visit(
    _ root: URL, _ child: String, _ info: stat, known: [String: SyncedRecord],
    into items: inout [LocalItem]
  ) {
    if isDirectory(info) && !isPackageName(child) {
      walk(root, relative: child, known: known, into: &items)
    } else if isRegular(info), let synced = known[child], synced.kind == .file,
      synced.soleMemberStat == member(info)
    {
      items.append(
        LocalItem(id: synced.id, path: child, kind: .file, members: ["": member(info)]))
    } else if let item = item(at: child, root: root) {
      items.append(item)
    }
  }

  /// The placeholder files of whole documents under `root` (not those of a package's members),
  /// each by its document's path: what the scan, which skips hidden names, does not list.
  static func placeholders(root: URL) -> [(document: String, placeholder: String)] {
    var found: [(document: String, placeholder: String)] = []
    func walk(_ relative: String) {
      let folder = relative.isEmpty ? root.path : root.path + "/" + relative
      for name in entries(folder) {
        let child = relative.isEmpty ? name : relative + "/" + name
        guard let info = status(folder + "/" + name) else { continue }
        if isDirectory(info), !name.hasPrefix("."), !isPackageName(child) {
          walk(child)
        } else if isRegular(info), CloudPlaceholder.isPlaceholderName(name),
          let document = CloudPlaceholder.documentURL(
            forPlaceholder: URL(fileURLWithPath: folder + "/" + name))
        {
          let inner = document.lastPathComponent
          found.append((relative.isEmpty ? inner : relative + "/" + inner, child))
        }
      }
    }
    walk("")
    return found
  }

  /// The members of the package folder at `path` (placeholders as ``LocalItem/Member/inCloud``).
  static func packageMembers(
    _ path: String, relative: String, into members: inout [String: LocalItem.Member]
  ) {
    for name in entries(path) where !name.hasPrefix(".quire") {
      guard let info = status(path + "/" + name) else { continue }
      if isRegular(info), let member = CloudPlaceholder.memberName(forPlaceholder: name) {
        // In the cloud, unless the member itself is here too (its placeholder left over).
        let child = relative.isEmpty ? member : relative + "/" + member
        if members[child] == nil { members[child] = .inCloud }
        continue
      }
      let child = relative.isEmpty ? name : relative + "/" + name
      if isDirectory(info) {
        packageMembers(path + "/" + name, relative: child, into: &members)
      } else if isRegular(info) {
        members[child] = member(info)
      }
    }
  }

  /// The names in the folder at `path` (none if it cannot be listed), through ``Sys``.
  static func entries(_ path: String) -> [String] {
    ((try? Sys.listDirectory(at: path)) ?? []).map(\.name)
  }

  /// The `lstat` of `path`, through ``Sys``; nil if it is gone or cannot be read.
  static func status(_ path: String) -> stat? {
    (try? Sys.status(path)) ?? nil
  }

  static func member(_ info: stat) -> LocalItem.Member {
    LocalItem.Member(
      size: Int(info.st_size), mode: Int(info.st_mode & 0o777),
      modifiedNanoseconds: info.st_mtim.saturatingNanoseconds)
  }

  static func isRegular(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFREG }
  static func isDirectory(_ info: stat) -> Bool { info.st_mode & S_IFMT == S_IFDIR }
}
