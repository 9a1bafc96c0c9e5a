import Foundation

/// One message to a presenter, sent to a presenter of this process directly and to one of
/// another process as a line of JSON over its socket.
struct PresenterMessage: Codable, Sendable {
  enum Kind: String, Codable, Sendable {
    case save, relinquishToReader, relinquishToWriter, accommodateDeletion
    case didMove, didChange, gainedVersion, lostVersion, resolvedVersion
    case subitemAppeared, subitemChanged, subitemMoved, accommodateSubitemDeletion
    /// Not a callback: runs the reacquirers of the presenter's earlier relinquishes.
    case reacquire
    /// To a ``FileProvider``: bring the item at `path` here, or remove its local copy.
    case provide, evict
  }

  var kind: Kind
  /// The presenter's registration number in the receiving process.
  var presenter: Int
  /// The new path (``Kind/didMove``), the subitem's path, or the old path of a moved subitem.
  var path: String?
  /// The new path of a moved subitem.
  var newPath: String?
  /// The version's name.
  var version: String?

  /// Whether the sender waits for the presenter to finish.
  var waitsForReply: Bool {
    switch kind {
    case .save, .relinquishToReader, .relinquishToWriter, .accommodateDeletion,
      .accommodateSubitemDeletion, .provide, .evict:
      true
    default: false
    }
  }

  /// Delivers the message to `presenter`; returns the reacquirer of a relinquish. `progress`
  /// hears a provider's download progress.
  func deliver(to presenter: any FilePresenter, progress: DownloadProgress? = nil) async throws
    -> FilePresenterReacquirer?
  {
    let url = path.map { URL(fileURLWithPath: $0) }
    switch kind {
    case .save: try await presenter.savePresentedItemChanges()
    case .relinquishToReader: return await presenter.relinquishPresentedItemToReader()
    case .relinquishToWriter: return await presenter.relinquishPresentedItemToWriter()
    case .accommodateDeletion: try await presenter.accommodatePresentedItemDeletion()
    case .didMove: if let url { await presenter.presentedItemDidMove(to: url) }
    case .didChange: await presenter.presentedItemDidChange()
    case .gainedVersion: await presenter.presentedItemDidGainVersion(version ?? "")
    case .lostVersion: await presenter.presentedItemDidLoseVersion(version ?? "")
    case .resolvedVersion: await presenter.presentedItemDidResolveConflictVersion(version ?? "")
    case .subitemAppeared: if let url { await presenter.presentedSubitemDidAppear(at: url) }
    case .subitemChanged: if let url { await presenter.presentedSubitemDidChange(at: url) }
    case .subitemMoved:
      if let url, let newPath {
        await presenter.presentedSubitem(at: url, didMoveTo: URL(fileURLWithPath: newPath))
      }
    case .accommodateSubitemDeletion:
      if let url { try await presenter.accommodatePresentedSubitemDeletion(at: url) }
    case .reacquire: break
    case .provide:
      if let url, let provider = presenter as? any FileProvider {
        try await provider.provideItem(at: url, progress: progress ?? { _, _ in })
      }
    case .evict:
      if let url, let provider = presenter as? any FileProvider {
        try await provider.evictItem(at: url)
      }
    }
    return nil
  }
}

/// A presenter's answer to a message that waits for one; a provider's download sends lines with
/// `completed` and `total` (its progress) before its answer.
struct PresenterReply: Codable, Sendable {
  var error: String?
  var completed: Int64?
  var total: Int64?
}
