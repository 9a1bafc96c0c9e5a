/// What a revision changes in its base's manifest: the members written (added or changed) and the
/// paths removed. A commit sends only this, and a device downloads only this, so the cost of a
/// sync follows the change, not the package.
public struct ManifestChange: Hashable, Codable, Sendable {
  /// Members added or changed, by path.
  public var upserted: [ManifestMember]
  /// Paths of members removed.
  public var removed: [String]
  /// On the wire only: the chunk lists of members of `upserted` (listed there with no chunks)
  /// sent as edits of their base's lists. A receiver rebuilds them with
  /// ``resolvingEdits(base:)`` before anything else reads the change; nil once resolved.
  public var edits: [ChunkListEdit]?

  /// A change writing `upserted` and removing `removed`.
  public init(upserted: [ManifestMember] = [], removed: [String] = []) {
    self.upserted = upserted
    self.removed = removed
  }

  /// Whether it changes nothing (a rename or move sends this).
  public var isEmpty: Bool { upserted.isEmpty && removed.isEmpty }

  /// Checks what ``validateShape(kind:)`` checks, the number of members, and each member's mode
  /// and time against the ranges a server stores, throwing ``SyncError`` codes `tooLarge`,
  /// `invalidPath` or `invalidManifest`.
  public func validate(kind: ItemKind, maximumMembers: Int) throws(SyncError) {
    if upserted.count + removed.count > maximumMembers {
      throw SyncError(
        .tooLarge,
        "A commit may change at most \(maximumMembers) members; this one changes \(upserted.count + removed.count). Split it."
      )
    }
    try validateShape(kind: kind)
    for member in upserted {
      guard ManifestMember.modes.contains(member.mode) else {
        throw SyncError(
          .invalidManifest,
          "The member “\(member.path)” has the mode \(String(member.mode, radix: 8)); only permission bits (at most 777) are stored."
        )
      }
      guard ManifestMember.modificationTimes.contains(member.modified) else {
        throw SyncError(
          .invalidManifest,
          "The member “\(member.path)” has the modification time \(member.modified), outside 1677 to 2262 (nanoseconds since 1970 in 64 bits)."
        )
      }
    }
  }

  /// Checks what a device needs before it writes a downloaded change: paths (``SyncPath``),
  /// sizes against their chunks, duplicates, and a flat file's one empty-path member, throwing
  /// ``SyncError`` codes `invalidPath` or `invalidManifest`. A mode or time out of range is
  /// not refused here: a device writes ``ManifestMember/permissions`` and
  /// ``ManifestMember/safeModified``, whatever was stored.
  public func validateShape(kind: ItemKind) throws(SyncError) {
    var seen = Set<String>()
    for member in upserted {
      if kind == .file {
        guard member.path.isEmpty else {
          throw SyncError(
            .invalidManifest,
            "A flat document has one member with an empty path, not “\(member.path)”.")
        }
      } else {
        try SyncPath.check(member.path, what: "member path")
      }
      guard seen.insert(member.path).inserted else {
        throw SyncError(.invalidManifest, "The member “\(member.path)” is listed twice.")
      }
      let maximum = ContentChunker.standard.maximumSize
      guard member.size >= 0, member.chunks.count <= Int.max / maximum,
        member.chunks.allSatisfy({ $0.size > 0 && $0.size <= maximum }),
        member.chunks.reduce(0, { $0 + $1.size }) == member.size
      else {
        throw SyncError(
          .invalidManifest,
          "The member “\(member.path)” says \(member.size) bytes but its chunks do not add up to that, or one is out of size."
        )
      }
    }
    for path in removed {
      if kind == .package { try SyncPath.check(path, what: "member path") }
      guard seen.insert(path).inserted else {
        throw SyncError(.invalidManifest, "The member “\(path)” is both written and removed.")
      }
    }
    if kind == .file, upserted.count > 1 {
      throw SyncError(.invalidManifest, "A flat document has exactly one member.")
    }
  }
}
