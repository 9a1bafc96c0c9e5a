import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Versions kept as what changed: what a document's saves cost, and how history folds a
/// removed version into the one kept after it.
extension LocalVersionStore {
  /// The package at `url` as a change from the version `base`, given the members that changed
  /// since (`changed`, relative paths): each is removed, then added back as it is on disk (a
  /// folder with everything in it), with the folders it is in. Only those members are looked
  /// at, and only their bytes are copied.
  func change(
    of url: URL, identity: String, changed: Set<String>, base: String
  ) throws -> LocalVersionManifest {
    // (The blobs folder is there: the version this one is a change from was kept in it.)
    var members: [String: LocalVersionManifest.Member] = [:]
    var removed: [String] = []
    var newest: Date?
    func add(_ path: String, _ info: stat) throws {
      guard let member = try member(path, info, of: url, identity: identity, reusing: nil) else {
        return
      }
      members[path] = member
      if member.kind != .directory {
        newest = max(newest ?? .distantPast, Self.date(info.st_mtim))
      }
    }
    for path in changed.sorted() where Self.isInside(path) && members[path] == nil {
      // (A path already added came with a folder before it, removed with it.)
      removed.append(path)
      var folder = Substring(path)
      while let slash = folder.lastIndex(of: "/") {
        folder = folder[..<slash]
        let parent = String(folder)
        if members[parent] == nil, let info = try Sys.status(url.path + "/" + parent),
          info.st_mode & S_IFMT == S_IFDIR
        {
          try add(parent, info)
        }
      }
      guard let info = try Sys.status(url.path + "/" + path) else { continue }
      try add(path, info)
      if info.st_mode & S_IFMT == S_IFDIR {
        for (inner, innerInfo) in try walk(url, under: path) { try add(inner, innerInfo) }
      }
    }
    // A version's date is its newest member's; when the save only removed members, the date
    // the version before it was kept at stands in (the previous save wrote just after it).
    return LocalVersionManifest(
      saved: newest ?? Self.keptDate(base), device: deviceName, isPackage: true,
      members: LocalVersionTree.walkOrder(Array(members.values)), base: base,
      removed: removed)
  }

  /// Removes the versions the thinning policy no longer keeps (never the newest), judging
  /// their ages by the times in their names, so no manifest is read unless one goes.
  /// `names` lists the kept versions, newest first, as the caller (holding the lock) knows them.
  func thin(_ identity: String, names: [String]) throws {
    let kept = names.dropFirst()
    let remove = thinning.versionsToRemove(kept.map { ($0, Self.keptDate($0)) }, now: now())
    guard !remove.isEmpty else { return }
    try removeVersions(remove, of: identity)
    try collectGarbage(of: identity)
  }

  /// Removes the named versions, oldest first. The version kept after each, when it is stored
  /// as the change from it, first takes in what it held (``LocalVersionManifest/followed(by:)``),
  /// durably (it may be old, and the base of many), and only then is the removed one unlinked:
  /// a crash or power cut in between leaves both readable.
  func removeVersions(_ remove: Set<String>, of identity: String) throws {
    let names = Array(versionNames(of: identity).reversed())
    for (index, name) in names.enumerated() where remove.contains(name) {
      if index + 1 < names.count {
        let next = names[index + 1]
        // (One cut short by a power cut has nothing to take in, or nothing to give.)
        if let later = try storedIfIntact(next, of: identity), later.base == name,
          let removed = try storedIfIntact(name, of: identity)
        {
          try store(removed.followed(by: later), as: next, of: identity, durable: true)
          do {
            try Sys.unlink(versionFile(name, of: identity).path)
          } catch {
            // Two versions would then be changes from the removed one's base: undo the fold.
            try? store(later, as: next, of: identity, durable: true)
            throw error
          }
          continue
        }
      }
      try Sys.unlink(versionFile(name, of: identity).path)
    }
  }
}
