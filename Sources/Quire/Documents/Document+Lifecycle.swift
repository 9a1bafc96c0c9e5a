import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Document {
  /// Opens the document: reads it off the main actor and loads it. A document whose file is not
  /// writable — or has no write permission bits at all, which even root respects here, as
  /// editors do — opens with `editingDisabled`.
  ///
  /// - Throws: ``QuireError`` saying why: ``QuireError/Code-swift.struct/notFound``,
  ///   ``QuireError/Code-swift.struct/permissionDenied``, ``QuireError/Code-swift.struct/wrongKind``
  ///   (a folder where a file was expected) or ``QuireError/Code-swift.struct/corruptDocument``.
  public func open() async throws(QuireError) {
    guard documentState.contains(.closed) else { return }
    try await load(from: fileURL)
    var info = stat()
    let writable =
      access(fileURL.path, W_OK) == 0 && stat(fileURL.path, &info) == 0
      && info.st_mode & 0o222 != 0
    documentState = writable ? .normal : .editingDisabled
    DocumentRegistry.shared.add(self)
    startPresenting()
    await refreshConflictVersions()
  }

  /// Saves unsaved changes, then closes the document.
  public func close() async throws(QuireError) {
    // The pending autosave goes first: one that woke while this save ran would write again
    // after the document closed.
    autosaveTask?.cancel()
    autosaveTask = nil
    if hasUnsavedChanges && !documentState.contains(.closed) {
      try await performSave(to: fileURL, for: .forOverwriting, autosave: false)
    }
    documentState = .closed
    DocumentRegistry.shared.remove(self)
    FileCoordinator.removeFilePresenter(self)
  }

  /// Discards unsaved changes and reloads the document from `url`; undo history is cleared.
  public func revert(toContentsOf url: URL) async throws(QuireError) {
    try await load(from: url)
    fileURL = url.standardizedFileURL
  }

  /// Reads the document from `url`. `seenMembers`: see ``MemberSignatures/reset(loadedAt:seen:)``.
  func load(from url: URL, seenMembers: [String: FileSignature?] = [:]) async throws(QuireError) {
    let loading = Progress(totalUnitCount: 1)
    progress = loading
    let before = documentState
    documentState.insert([.progressAvailable, .editingDisabled])
    defer {
      loading.completedUnitCount = 1
      documentState.remove(.progressAvailable)
      progress = nil
    }
    do {
      let loadedAt = FileSignature.coarseNow()
      // A document in the cloud is downloaded first: its bytes are the load's progress.
      let coordinator = FileCoordinator(filePresenter: self) { completed, total in
        loading.totalUnitCount = max(total, 1)
        loading.completedUnitCount = min(completed, max(total, 1))
      }
      fileSignature = try await coordinator.coordinate(with: [
        .readingIntent(with: url)
      ]) { urls in
        try await FileCoordinator.withInheritedProgress(coordinator.downloadProgress) {
          try await self.read(from: urls[0])
        }
        return FileSignature.of(urls[0].path)
      }
      memberSignatures.reset(loadedAt: loadedAt, seen: seenMembers)
      versionChanges = nil  // what another program changed is not known member by member
    } catch {
      documentState = before
      let failure = Self.openError(error, url: url)
      handleError(failure, userInteractionPermitted: true)
      throw failure
    }
    documentState.remove(.editingDisabled)
    undoManager.removeAllActions()
    changeCount = 0
    savedChangeCount = 0
    fileModificationDate = fileSignature?.modificationDate  // taken inside the read
    emit(.loaded)
  }

  static func openError(_ error: any Error, url: URL) -> QuireError {
    if let error = error as? QuireError {
      if [.notFound, .permissionDenied, .wrongKind, .corruptDocument, .notDownloaded].contains(
        error.code)
      {
        var opening = error
        opening.message =
          "The document “\(url.lastPathComponent)” could not be opened. " + error.message
        return opening
      }
      return QuireError(
        .corruptDocument,
        "The document “\(url.path)” could not be opened: \(error.message)", path: url.path,
        cause: error)
    }
    return QuireError(
      .corruptDocument,
      "The document “\(url.path)” could not be opened: its contents are damaged or not of this type (\(error)).",
      path: url.path, cause: error)
  }
}
