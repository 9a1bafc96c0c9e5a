import Foundation

extension Document {
  /// How to settle a conflict between the document's version and another program's.
  public enum ConflictResolution: Sendable, Hashable {
    /// Keep the open version; the other versions are discarded.
    case keepMine
    /// Replace the open version with the latest other version (undoable until saved).
    case keepOther
    /// Keep both: each other version becomes a document beside this one, named
    /// “Name (conflicted copy).ext”.
    case keepBoth
  }

  /// The other programs' versions kept aside while the document is `inConflict`, oldest first.
  public var otherVersionURLs: [URL] { conflictCopies }

  /// Settles the conflict as `resolution` says and clears `inConflict`: the other programs'
  /// versions kept aside, and a synced document's conflict versions (marked resolved on every
  /// device).
  ///
  /// - Throws: ``QuireError`` if the other version cannot be read or placed; the conflict then
  ///   stays, with every version intact.
  public func resolveConflict(_ resolution: ConflictResolution) async throws(QuireError) {
    try await resolveConflictVersions(resolution)
    guard let latest = conflictCopies.last else {
      if conflictVersions.isEmpty { documentState.remove(.inConflict) }
      return
    }
    switch resolution {
    case .keepMine: break
    case .keepOther:
      do {
        let contents = try await performAsynchronousFileAccess {
          try Document.readContents(at: latest)
        }
        try load(fromContents: contents, ofType: fileType)
      } catch {
        throw Self.openError(error, url: latest)
      }
      updateChangeCount(.done)
      try await performSave(to: fileURL, for: .forOverwriting, autosave: false)
    case .keepBoth:
      for copy in conflictCopies {
        let target = conflictedCopyURL()
        do {
          try FileCoordinator().coordinate(writingItemAt: target, options: .forReplacing) {
            try FileManager.default.moveItem(at: copy, to: $0)
          }
        } catch {
          throw QuireError(
            .ioError,
            "The other version could not be placed at “\(target.path)” (\(error)); it is still kept at “\(copy.path)”.",
            path: target.path, cause: error)
        }
      }
    }
    for copy in conflictCopies {
      try? FileManager.default.removeItem(at: copy.deletingLastPathComponent())
    }
    conflictCopies = []
    documentState.remove(.inConflict)
  }
}

extension Document {
  /// A free place beside the document for a kept version: “Name (conflicted copy).ext”,
  /// numbered when taken.
  func conflictedCopyURL() -> URL {
    let folder = fileURL.deletingLastPathComponent()
    let name = FileName.unique(
      fileURL.lastPathComponent,
      marker: { $0 == 1 ? " (conflicted copy)" : " (conflicted copy) \($0)" }
    ) { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
    return folder.appendingPathComponent(name)
  }
}
