import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FileCoordinator {
  /// Whether a presenter in any process presents the item at `url` or something inside it (the
  /// item is open in an app).
  public static func isPresented(_ url: URL) -> Bool {
    let path = CoordinationRuntime.canonicalPath(url)
    return
      (PresenterRegistry.shared.localMatches(of: path, excluding: nil)
      + PresenterRegistry.shared.remoteMatches(of: path)).contains { $0.relation != .container }
  }

  /// Brings the document at `url` here if it is in the cloud (the role of FileManager's
  /// `startDownloadingUbiquitousItem(at:)`), and returns once it is: a coordinated read that
  /// only waits. Nothing happens for a document that is here.
  ///
  /// - Throws: ``QuireError`` `notDownloaded` if it could not be downloaded, `notFound` if
  ///   there is neither the document nor its placeholder.
  public func startDownloadingItem(at url: URL) throws(QuireError) {
    let document = url.standardizedFileURL
    guard
      access(document.path, F_OK) == 0
        || access(CloudPlaceholder.url(for: document).path, F_OK) == 0
    else {
      throw QuireError(
        .notFound, "There is no document at “\(document.path)”, here or in the cloud.",
        path: document.path)
    }
    do {
      try coordinate(readingItemAt: document, options: .withoutChanges) { _ in }
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(
        .notDownloaded, "“\(document.path)” could not be downloaded: \(error).",
        path: document.path, cause: error)
    }
  }

  /// Removes the local copy of the document at `url`, keeping it in the cloud (the role of
  /// FileManager's `evictUbiquitousItem(at:)`): the provider of its folder (the sync agent)
  /// replaces it with its placeholder.
  ///
  /// - Throws: ``QuireError`` `permissionDenied` with the provider's reason if it refused (the
  ///   document has unsaved edits or changes not yet uploaded), `unsupported` if no provider
  ///   runs for its folder.
  public static func evictItem(at url: URL) throws(QuireError) {
    let path = CoordinationRuntime.canonicalPath(url)
    guard access(path, F_OK) == 0 else {
      if access(CloudPlaceholder.url(for: URL(fileURLWithPath: path)).path, F_OK) == 0 { return }
      throw QuireError(.notFound, "There is no document at “\(path)”.", path: path)
    }
    let messenger = PresenterMessenger(excluding: nil)
    // The agent may finish the step in flight first (an upload): wait for it a while.
    let errors = messenger.send(
      messenger.matches(of: path).filter { $0.relation == .container }, timeout: .seconds(120)
    ) { PresenterMessage(kind: .evict, presenter: $0.number, path: path) }
    messenger.finish()
    if let why = errors.first {
      throw QuireError(
        .permissionDenied, "“\(path)” keeps its download: \(why)", path: path)
    }
    guard access(path, F_OK) != 0 else {
      throw QuireError(
        .unsupported,
        "No sync agent removed the download of “\(path)”: it is not in a synced folder whose agent runs (quire sync run), or the agent did not answer in time; nothing was removed.",
        path: path)
    }
  }
}
