import Foundation

extension Document {
  /// The synced document's conflict versions no one has resolved yet (another device's
  /// concurrent edits that lost to the current version), newest first. While there are any,
  /// the document is ``DocumentState/inConflict``.
  public var unresolvedConflictVersions: [FileVersion] { conflictVersions }

  /// A sync agent says the document gained a version: it may be a conflict.
  public nonisolated func presentedItemDidGainVersion(_ version: String) async {
    await refreshConflictVersions()
  }

  /// A sync agent says a conflict version was resolved (here or on another device).
  public nonisolated func presentedItemDidResolveConflictVersion(_ version: String) async {
    await refreshConflictVersions()
  }

  /// Asks the document's version store (``FileVersion/store(for:)``) for its unresolved
  /// conflict versions, and goes ``DocumentState/inConflict`` while there are any.
  func refreshConflictVersions() async {
    guard let store = FileVersion.store(for: fileURL) else { return }
    guard
      let unresolved = try? await FileVersion.unresolvedConflictVersionsOfItem(
        at: fileURL, store: store)
    else { return }
    let gained = unresolved.filter { !conflictVersions.contains($0) }
    conflictVersions = unresolved
    if !unresolved.isEmpty {
      documentState.insert(.inConflict)
      for version in gained { emit(.conflictVersion(version)) }
    } else if conflictCopies.isEmpty {
      documentState.remove(.inConflict)
    }
  }

  /// Settles the synced conflict: `keepMine` keeps the current version, `keepOther` makes the
  /// newest conflict version current, `keepBoth` keeps each conflict version as a document
  /// beside this one; then every conflict version is marked resolved, on every device.
  func resolveConflictVersions(_ resolution: ConflictResolution) async throws(QuireError) {
    let versions = conflictVersions
    guard let store = FileVersion.store(for: fileURL), !versions.isEmpty else { return }
    do {
      switch resolution {
      case .keepMine: break
      case .keepOther:
        try await versions[0].replaceItem(at: fileURL)
      case .keepBoth:
        for version in versions {
          let source = try await version.contentsURL()
          try FileCoordinator().coordinate(
            writingItemAt: conflictedCopyURL(), options: .forReplacing
          ) {
            try FileManager.default.copyItem(at: source, to: $0)
          }
        }
      }
      try await store.setResolved(true, versions.map(\.record), item: fileURL)
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(
        .ioError,
        "The conflict of “\(fileURL.path)” could not be settled (\(error)); every version is kept.",
        path: fileURL.path, cause: error)
    }
    conflictVersions = []
    if conflictCopies.isEmpty { documentState.remove(.inConflict) }
  }
}
