import Foundation

/// A presenter of a folder whose documents may be in the cloud rather than here: the role of
/// NSFileProviderExtension's `startProvidingItem(at:)`. A sync agent (Quire Sync's `quire sync
/// run`) registers one for the folder it syncs.
///
/// A coordinated read of a document that is only a ``CloudPlaceholder`` asks the provider of a
/// folder holding it to bring it here, and waits (see
/// ``FileCoordinator/init(filePresenter:downloadTimeout:)``) before it reads, unless it reads
/// with ``FileCoordinator/ReadingOptions/immediatelyAvailableMetadataOnly``.
public protocol FileProvider: FilePresenter {
  /// Brings the document at `url` here (downloads it in place of its placeholder) and returns
  /// once it is there; throws why it could not. `progress` takes the bytes done so far and
  /// the total, as they arrive: the waiting reader's ``DownloadProgress``.
  func provideItem(at url: URL, progress: @escaping DownloadProgress) async throws

  /// Removes the local copy of the document at `url`, leaving its placeholder; throws why it
  /// may not (unsaved or unsent changes).
  func evictItem(at url: URL) async throws
}
