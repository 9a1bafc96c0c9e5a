/// A kept version's members by path, built by applying the versions of its chain in order: a
/// full manifest, then each version kept after it, stored as what changed
/// (``LocalVersionManifest/base``). Applying one costs what that version changed.
struct LocalVersionTree {
  private(set) var members: [String: LocalVersionManifest.Member] = [:]
  private(set) var isPackage = false

  /// The tree of a full manifest.
  init(_ full: LocalVersionManifest) {
    members = Dictionary(
      full.members.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    isPackage = full.isPackage
  }

  /// Applies a version stored as the change from the one this tree holds: its removed paths go
  /// (a folder with everything in it), then its members are added or replace what was there.
  mutating func apply(_ change: LocalVersionManifest) {
    guard change.base != nil else {
      self = LocalVersionTree(change)
      return
    }
    // Folders removed take what is in them, in one pass over the tree whatever their number.
    var folders = Set<String>()
    for path in change.removed ?? [] where members.removeValue(forKey: path)?.kind == .directory {
      folders.insert(path)
    }
    if !folders.isEmpty { members = members.filter { !Self.isInside($0.key, anyOf: folders) } }
    for member in change.members { members[member.path] = member }
    isPackage = change.isPackage
  }

  /// Whether `path` is inside one of `folders` (at any depth): one look-up per folder above it.
  static func isInside(_ path: String, anyOf folders: Set<String>) -> Bool {
    var index = path.startIndex
    while let slash = path[index...].firstIndex(of: "/") {
      if folders.contains(String(path[..<slash])) { return true }
      index = path.index(after: slash)
    }
    return false
  }

  /// Whether the version carries a QuickLook thumbnail.
  var hasThumbnail: Bool {
    members["QuickLook/Thumbnail.png"] != nil || members["QuickLook/Thumbnail.svg"] != nil
  }

  /// The members in the order a walk of the package lists them: each folder's entries sorted
  /// by name, a folder followed by what is in it.
  var ordered: [LocalVersionManifest.Member] {
    Self.walkOrder(Array(members.values))
  }

  static func walkOrder(_ members: [LocalVersionManifest.Member]) -> [LocalVersionManifest.Member] {
    members.map { ($0.path.split(separator: "/", omittingEmptySubsequences: false), $0) }
      .sorted { $0.0.lexicographicallyPrecedes($1.0) }
      .map(\.1)
  }
}

extension LocalVersionManifest {
  /// The one version that is this one followed by `later` (a version stored as the change from
  /// this one): what removing this version leaves in `later`'s place. Members of this version
  /// that `later` replaces or removes are dropped, so their blobs are named by no manifest.
  func followed(by later: LocalVersionManifest) -> LocalVersionManifest {
    guard base != nil else {
      var tree = LocalVersionTree(self)
      tree.apply(later)
      return LocalVersionManifest(
        saved: later.saved, device: later.device, isPackage: later.isPackage,
        members: tree.ordered)
    }
    let gone = Set(later.removed ?? [])
    var kept = members.filter { member in
      !gone.contains(member.path) && !LocalVersionTree.isInside(member.path, anyOf: gone)
    }
    let replaced = Set(later.members.map(\.path))
    kept.removeAll { replaced.contains($0.path) }
    return LocalVersionManifest(
      saved: later.saved, device: later.device, isPackage: later.isPackage,
      members: LocalVersionTree.walkOrder(kept + later.members), base: base,
      removed: Array(Set(removed ?? []).union(gone)).sorted())
  }
}
