import Foundation

extension Document {
  /// Saves the document to `url`. With ``SaveOperation/forCreating`` the file must not exist;
  /// saving to another URL moves the document there. Saves run one at a time; the changes made
  /// until the save started are marked saved, later ones stay unsaved.
  ///
  /// On failure the state gets `savingError`, the changes stay in memory, the error goes to
  /// ``handleError(_:userInteractionPermitted:)``, and the next autosave tries again.
  public func save(to url: URL, for saveOperation: SaveOperation) async throws(QuireError) {
    try await performSave(to: url.standardizedFileURL, for: saveOperation, autosave: false)
  }

  /// Saves if there are unsaved changes; returns whether the document is saved afterwards.
  @discardableResult
  public func autosave() async -> Bool {
    guard hasUnsavedChanges, !documentState.contains(.closed) else { return !hasUnsavedChanges }
    do {
      try await performSave(to: fileURL, for: .forOverwriting, autosave: true)
      return true
    } catch {
      return false
    }
  }

  /// Records a change, an undo, a redo, or that the document matches its file.
  public func updateChangeCount(_ change: ChangeKind) {
    let wasEdited = hasUnsavedChanges
    switch change {
    case .done:
      // A new change after undoing past the saved state makes that state unreachable.
      if changeCount < savedChangeCount { savedChangeCount = .min }
      changeCount += 1
    case .undone: changeCount -= 1
    case .redone: changeCount += 1
    case .cleared: savedChangeCount = changeCount
    }
    changed(from: wasEdited)
  }

  /// A token for the changes made so far, taken when a save captures the contents.
  public func changeCountToken(for saveOperation: SaveOperation) -> ChangeToken {
    ChangeToken(count: changeCount)
  }

  /// Marks the changes up to `token` as saved.
  public func updateChangeCount(withToken token: ChangeToken, for saveOperation: SaveOperation) {
    let wasEdited = hasUnsavedChanges
    savedChangeCount = token.count
    changed(from: wasEdited)
  }

  private func changed(from wasEdited: Bool) {
    if wasEdited != hasUnsavedChanges { emit(.editedChanged(hasUnsavedChanges: hasUnsavedChanges)) }
    if hasUnsavedChanges { scheduleAutosave() }
  }

  func undoManagerDidChange(_ event: UndoManager.Event) {
    switch event {
    case .didCloseGroup where !undoManager.isUndoing && !undoManager.isRedoing:
      updateChangeCount(.done)
    case .didUndo: updateChangeCount(.undone)
    case .didRedo: updateChangeCount(.redone)
    default: break
    }
  }

  func performSave(to url: URL, for operation: SaveOperation, autosave: Bool)
    async throws(QuireError)
  {
    await acquireSaveTurn()
    defer { releaseSaveTurn() }
    // An autosave that waited for its turn may find the changes saved, or the document closed,
    // by the save before it: writing then would touch a file its owner has let go of.
    if autosave && (!hasUnsavedChanges || documentState.contains(.closed)) { return }
    let token = changeCountToken(for: operation)
    emit(.saving(operation))
    let saving = Progress(totalUnitCount: 1)
    progress = saving
    documentState.insert(.progressAvailable)
    defer {
      saving.completedUnitCount = 1
      documentState.remove(.progressAvailable)
      progress = nil
    }
    do {
      if operation == .forCreating && FileManager.default.fileExists(atPath: url.path) {
        throw QuireError(
          .alreadyExists, "“\(url.path)” already exists; choose another name.", path: url.path)
      }
      var contents = try self.contents(forType: fileType ?? "")
      let attributes = try fileAttributesToWrite(to: url, for: operation)
      contents = try attachThumbnail(attributes.thumbnail, to: contents)
      let original: URL? = operation == .forOverwriting && url == fileURL ? fileURL : nil
      let writing = FileAccessIntent.writingIntent(
        with: url, options: operation == .forCreating ? [] : .forMerging)
      let report = SaveReport()
      let known = Self.versionChanges(
        versionChanges, stillTrueFor: contents, at: url, signatures: memberSignatures)
      versionChanges = nil  // known again only once this save has succeeded
      let (signature, written, changes) = try await FileCoordinator(filePresenter: self).coordinate(
        with: [writing]
      ) { urls in
        var kept: String?
        if operation == .forOverwriting, let store = FileVersion.store(for: urls[0]) {
          // History is best effort: a version that cannot be kept never stops the save.
          kept = try? await store.recordVersion(of: urls[0], changes: known)
        }
        try await SaveReport.$current.withValue(report) {
          try await self.writeContents(
            contents, to: urls[0], for: operation, originalContentsURL: original)
        }
        if case .data = contents, let thumbnail = attributes.thumbnail {
          try? self.thumbnailCache.store(thumbnail, forDocumentAt: urls[0])
        }
        // One stat of the item and one per member the save touched: never a walk.
        var written = MemberSignatures()
        written.record(report.members(of: urls[0].path), in: urls[0].path)
        // A package saved member by member says what it changed: the next version costs that.
        let changes = kept.flatMap { name in
          report.savedMembers(of: urls[0].path).map {
            VersionChanges(since: name, members: Set($0))
          }
        }
        return (FileSignature.of(urls[0].path), written, changes)
      }
      fileSignature = signature
      memberSignatures.adopt(written)
      versionChanges = changes
      saveGeneration += 1
    } catch {
      let failure = Self.saveError(error, url: url)
      documentState.insert(.savingError)
      handleError(failure, userInteractionPermitted: !autosave)
      emit(.saveFailed(failure))
      scheduleAutosave()
      throw failure
    }
    fileURL = url
    fileModificationDate = fileSignature?.modificationDate  // taken inside the write
    updateChangeCount(withToken: token, for: operation)
    documentState.remove(.savingError)
    if operation == .forCreating {
      documentState.remove(.closed)
      startPresenting()
    }
    emit(.saved(operation, autosave: autosave))
  }

  /// What the document's own saves changed since its store's newest version, if that is all
  /// that changed. A member this save replaces or removes that another program changed since
  /// (its event perhaps not yet judged) makes it unknown: the store then looks at every member,
  /// and the version keeps that program's bytes before this save replaces them. One `stat` per
  /// member the save changes.
  nonisolated static func versionChanges(
    _ known: VersionChanges?, stillTrueFor contents: DocumentContents, at url: URL,
    signatures: MemberSignatures
  ) -> VersionChanges? {
    guard let known, case .fileWrapper(let wrapper) = contents, wrapper.isDirectory,
      let plan = try? SavePlan(root: wrapper)
    else { return nil }
    let package = url.standardizedFileURL.path
    for change in plan.changes {
      let path: [String]
      switch change {
      case .place(let member, _), .remove(let member), .attributes(let member, _, _):
        path = member
      }
      guard !path.isEmpty else { continue }
      // (A member not on disk has no bytes to keep: one the save adds, or one already gone.)
      let (outside, signature) = signatures.isOutsideChange(
        of: path.joined(separator: "/"), in: package)
      if outside && signature != nil { return nil }
    }
    return known
  }

  private func attachThumbnail(_ thumbnail: Thumbnail?, to contents: DocumentContents) throws
    -> DocumentContents
  {
    guard let thumbnail, case .fileWrapper(let wrapper) = contents, wrapper.isDirectory else {
      return contents
    }
    let folder: FileWrapper
    if let existing = wrapper.fileWrappers?["QuickLook"], existing.isDirectory {
      folder = existing
    } else {
      folder = FileWrapper(directoryWithFileWrappers: [:])
      folder.preferredFilename = "QuickLook"
      try wrapper.addFileWrapper(folder)
    }
    let name = "Thumbnail." + thumbnail.fileExtension
    for (key, old) in folder.fileWrappers ?? [:] where key.hasPrefix("Thumbnail.") {
      folder.removeFileWrapper(old)
    }
    try folder.addRegularFile(withContents: thumbnail.data, preferredFilename: name)
    return contents
  }

  static func saveError(_ error: any Error, url: URL) -> QuireError {
    if let error = error as? QuireError { return error }
    return QuireError(
      .ioError,
      "The document “\(url.path)” could not be saved: \(error). Your changes are kept; try again.",
      path: url.path, cause: error)
  }

  func acquireSaveTurn() async {
    if !saveInFlight {
      saveInFlight = true
      return
    }
    await withCheckedContinuation { saveWaiters.append($0) }
  }

  func releaseSaveTurn() {
    if saveWaiters.isEmpty {
      saveInFlight = false
    } else {
      saveWaiters.removeFirst().resume()
    }
  }

  /// Starts (or extends) the quiet period after which the document saves itself.
  func scheduleAutosave() {
    autosaveGeneration += 1
    guard autosaveTask == nil, !documentState.contains(.closed) else { return }
    autosaveTask = Task { [weak self] in await self?.runAutosave() }
  }

  private func runAutosave() async {
    while true {
      let generation = autosaveGeneration
      do {
        try await clock.sleep(for: autosaveDelay)
      } catch {
        autosaveTask = nil
        return
      }
      if generation == autosaveGeneration { break }  // no change during the quiet period
    }
    autosaveTask = nil
    guard !documentState.contains(.editingDisabled) else { return }
    await autosave()
  }
}
