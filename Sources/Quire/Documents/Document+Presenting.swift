import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Document: FilePresenter {
  /// The document's file, readable from any thread.
  nonisolated public var presentedItemURL: URL? { presentedURL.withLock { $0 } }

  /// Another program wants the latest contents: saves unsaved changes now.
  public func savePresentedItemChanges() async throws {
    guard hasUnsavedChanges, !documentState.contains(.closed) else { return }
    try await performSave(to: fileURL, for: .forOverwriting, autosave: true)
  }

  /// Another program (or the document's own folder watch) moved the file: follows it.
  public func presentedItemDidMove(to newURL: URL) async {
    let url = newURL.standardizedFileURL
    guard url != fileURL else { return }
    fileURL = url
    emit(.moved(to: url))
  }

  /// The file changed on disk. Without unsaved changes the document reloads; with them it keeps
  /// both: the other version is copied aside and the document goes into conflict. A change the
  /// document made itself (its file still matches what it last read or wrote) is ignored.
  public func presentedItemDidChange() async {
    let url = fileURL
    let signature = { @Sendable in FileSignature.of(url.path) }
    guard let seen = await judgeAfterSaves({ signature }) ?? nil, seen != fileSignature else {
      return
    }
    // A writer that has not closed the file may be half way (cp truncates, then writes): its
    // close brings this call again, and the change is judged whole then.
    if (try? await performAsynchronousFileAccess({ Self.hasOtherWriters(url.path) })) == true {
      emit(.otherWriterOpen)
      return
    }
    // Looked at again now that no writer has it open: a writer that finished between the first
    // look and the check (cp's truncation seen, then its write and close) changed it, and the
    // version kept must be recorded as what it wrote, or its close would be kept a second time.
    guard let current = await judgeAfterSaves({ signature }) ?? nil, current != fileSignature
    else { return }
    await respondToOutsideChange(current)
  }

  /// Whether a process has the flat file at `path` open for writing now, as the kernel says (a
  /// read lease is granted only when none has); false for a package, a file gone, or a file
  /// system that cannot tell.
  nonisolated static func hasOtherWriters(_ path: String) -> Bool {
    guard let fd = try? Sys.open(path, O_RDONLY | O_NONBLOCK) else { return false }
    defer { Sys.close(fd) }
    guard let info = try? Sys.status(of: fd), info.st_mode & S_IFMT == S_IFREG else { return false }
    return Sys.hasWriters(fd) == true
  }

  /// Runs the check `makeCheck` makes (from the document's records as they are then) on the
  /// file-access executor once no save is running, and again if a save ran while it did (it was
  /// then judged against a record that save replaced): a document's own save never passes for
  /// another program's change. Nil if the document closed.
  private func judgeAfterSaves<T: Sendable>(_ makeCheck: () -> @Sendable () -> T) async -> T? {
    while true {
      await waitForSavesToFinish()
      guard !documentState.contains(.closed) else { return nil }
      let generation = saveGeneration
      let check = makeCheck()
      guard let result = try? await performAsynchronousFileAccess(check) else { return nil }
      if !saveInFlight && saveGeneration == generation { return result }
    }
  }

  /// Another program changed the file: reload, or, with unsaved changes, keep both.
  /// `seenMembers` are the signatures of the changed members as they were judged: the events
  /// still queued for that same change do not cause a second reload.
  private func respondToOutsideChange(
    _ current: FileSignature, seenMembers: [String: FileSignature?] = [:]
  ) async {
    versionChanges = nil  // the next version looks at every member, so it has this change
    if hasUnsavedChanges {
      await keepOtherVersion(signature: current)
    } else {
      // A program that does not coordinate may still be writing: a read that fails (a member
      // gone between listing and reading) is tried again shortly, a few times.
      for attempt in 0..<3 {
        do {
          try await load(from: fileURL, seenMembers: seenMembers)
          return
        } catch {
          if attempt < 2 { try? await Task.sleep(for: .milliseconds(50)) }  // retry pause
        }
      }
    }
  }

  /// The file is about to be deleted, or was: the document closes. Unsaved changes are first
  /// written to the recovered-documents folder, so nothing is lost.
  public func accommodatePresentedItemDeletion() async throws {
    guard !documentState.contains(.closed) else { return }
    var recovered: URL?
    if hasUnsavedChanges, let contents = try? contents(forType: fileType ?? "") {
      let folder = XDGDirectory.data.appendingPathComponent("recovered")
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      let name = FileName.unique(fileURL.lastPathComponent) {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path)
      }
      let target = folder.appendingPathComponent(name)
      do {
        try await writeContents(contents, to: target, for: .forCreating, originalContentsURL: nil)
        recovered = target
      } catch {
        handleError(Self.saveError(error, url: target), userInteractionPermitted: false)
      }
    }
    autosaveTask?.cancel()
    autosaveTask = nil
    documentState = .closed
    DocumentRegistry.shared.remove(self)
    FileCoordinator.removeFilePresenter(self)
    emit(.deleted(recoveredAt: recovered))
  }

  /// Registers the document as a presenter once it is open (or created).
  func startPresenting() {
    do { try FileCoordinator.addFilePresenter(self) } catch {
      handleError(error, userInteractionPermitted: false)
    }
  }

  /// Waits until no save of this document is running.
  private func waitForSavesToFinish() async {
    while saveInFlight {
      await acquireSaveTurn()
      releaseSaveTurn()
    }
  }

  private func keepOtherVersion(signature: FileSignature) async {
    let source = fileURL
    let folder = XDGDirectory.data.appendingPathComponent("conflicts")
      .appendingPathComponent(UUID().uuidString)
    let copy = folder.appendingPathComponent(source.lastPathComponent)
    let seenAt = FileSignature.coarseNow()
    do {
      try await FileCoordinator(filePresenter: self).coordinate(with: [
        .readingIntent(with: source, options: .withoutChanges)
      ]) { urls in
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: urls[0], to: copy)
      }
    } catch {
      handleError(
        QuireError(
          .ioError,
          "Another program changed “\(source.path)”, but its version could not be kept aside (\(error)); your changes are still open.",
          path: source.path, cause: error), userInteractionPermitted: true)
      return
    }
    fileSignature = signature
    memberSignatures.markSeen(at: seenAt)
    conflictCopies.append(copy)
    documentState.insert(.inConflict)
    emit(.conflict(otherVersion: copy))
  }
}

extension Document {
  /// A member of the document's package changed: a change of the document, unless it is the
  /// document's own save (one `stat` of the member decides; see ``MemberSignatures``).
  public func presentedSubitemDidChange(at url: URL) async { await memberDidChange([url]) }
  /// A member appeared in the document's package: treated like a changed member.
  public func presentedSubitemDidAppear(at url: URL) async { await memberDidChange([url]) }
  /// A member of the document's package moved: a change of the document unless both names are
  /// the document's own save (a staged member renamed into place).
  public func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) async {
    await memberDidChange([oldURL, newURL])
  }

  private func memberDidChange(_ urls: [URL]) async {
    let package = fileURL.path
    let members = urls.compactMap { url -> String? in
      let path = url.standardizedFileURL.path
      return path.hasPrefix(package + "/") ? String(path.dropFirst(package.count + 1)) : nil
    }
    let judged = await judgeAfterSaves {
      let known = memberSignatures
      return { [members] in
        var outside = false
        var seen: [String: FileSignature?] = [:]
        for member in members {
          let (changed, signature) = known.isOutsideChange(of: member, in: package)
          outside = outside || changed
          seen[member] = .some(signature)
        }
        return (outside, seen, FileSignature.of(package))
      }
    }
    guard let (outside, seen, current) = judged, outside, let current else { return }
    await respondToOutsideChange(current, seenMembers: seen)
  }
}
