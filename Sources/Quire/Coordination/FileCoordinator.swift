import Foundation
import Synchronization

/// Coordinates reading and writing of files and folders among processes and threads, and keeps
/// their ``FilePresenter``s informed: NSFileCoordinator, working across the processes of one
/// user on Linux with no daemon to start.
///
/// At any moment an item has many coordinated readers or one coordinated writer, in whatever
/// process they run. Coordination is hierarchical: writing a package or folder excludes reading
/// and writing anything inside it, and writing something inside excludes reading or writing the
/// package as a whole. Locks belong to the process's open descriptors, so a process that dies —
/// even by SIGKILL — releases them at once; a waiting writer is never starved by readers.
///
/// ```swift
/// let coordinator = FileCoordinator(filePresenter: self)
/// try coordinator.coordinate(writingItemAt: url, options: .forReplacing) { url in
///   try data.write(to: url)
/// }
/// ```
///
/// The accessor must use the URL it is given (it differs for ``ReadingOptions/forUploading``
/// and ``ReadingOptions/resolvesSymbolicLink``), must not coordinate the same item again, and
/// should be quick: other programs wait for it. A coordinator created with a presenter does not
/// send that presenter messages about its own accesses.
///
/// The synchronous calls block the calling thread while they wait; from async code use
/// ``coordinate(with:byAccessor:)``. Do not make a synchronous call from the actor a presenter
/// of this process runs on, if that presenter may be asked to save: it could not answer.
public final class FileCoordinator: Sendable {
  /// The presenter on whose behalf this coordinator works; it hears nothing of its accesses.
  public let filePresenter: (any FilePresenter)?
  /// How long a read waits for a document that is in the cloud to be downloaded (see
  /// ``FileProvider``) before it fails with ``QuireError/Code-swift.struct/notDownloaded``.
  public let downloadTimeout: Duration
  /// Hears the progress of a download a read waits for.
  public let downloadProgress: DownloadProgress?
  private let cancelled = Atomic(false)

  /// A coordinator working for `filePresenter` (or for nobody), whose reads wait at most
  /// `downloadTimeout` for a document in the cloud to arrive (``cancel()`` stops the wait too),
  /// telling `downloadProgress` how far it is.
  public init(
    filePresenter: (any FilePresenter)? = nil, downloadTimeout: Duration = .seconds(120),
    downloadProgress: DownloadProgress? = nil
  ) {
    self.filePresenter = filePresenter
    self.downloadTimeout = downloadTimeout
    self.downloadProgress = downloadProgress ?? Self.inheritedDownloadProgress?.report
  }

  /// Where a download reports when its coordinator is given no `downloadProgress`: a
  /// ``Document`` sets it while it reads, so a member it reads from the cloud (a package's
  /// large member, see ``FileWrapper/contents()``) counts as the load's progress.
  @TaskLocal static var inheritedDownloadProgress: InheritedProgress?

  /// A ``DownloadProgress`` boxed in a class: a task-local of an optional function type crashed
  /// optimized builds (its type metadata came through null to `swift_task_localValuePush`,
  /// Swift 6.3 on Linux).
  final class InheritedProgress: Sendable {
    let report: DownloadProgress
    init(_ report: @escaping DownloadProgress) { self.report = report }
  }

  /// Runs `body` with ``inheritedDownloadProgress`` set to `progress`.
  static func withInheritedProgress<T: Sendable>(
    _ progress: DownloadProgress?, isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
  ) async throws -> T {
    try await $inheritedDownloadProgress.withValue(progress.map(InheritedProgress.init)) {
      try await body()
    }
  }

  // MARK: Presenters

  /// Registers `presenter`, so coordinated accesses by any process — and changes by programs
  /// that do not coordinate — reach it, until ``removeFilePresenter(_:)``.
  ///
  /// - Throws: ``QuireError`` if the runtime folder or the socket cannot be made.
  public static func addFilePresenter(_ presenter: any FilePresenter) throws(QuireError) {
    try PresenterRegistry.shared.add(presenter)
  }

  /// Unregisters `presenter`.
  public static func removeFilePresenter(_ presenter: any FilePresenter) {
    PresenterRegistry.shared.remove(presenter)
  }

  /// The presenters registered in this process.
  public static var filePresenters: [any FilePresenter] { PresenterRegistry.shared.presenters }

  // MARK: Coordinating

  /// Reads the item at `url` once no other program writes it, after its presenters saved.
  ///
  /// - Throws: the accessor's error, or a ``QuireError`` with code
  ///   ``QuireError/Code-swift.struct/cancelled`` if ``cancel()`` stopped the wait.
  public func coordinate<T>(
    readingItemAt url: URL, options: ReadingOptions = [], byAccessor reader: (URL) throws -> T
  ) throws -> T {
    try perform([.readingIntent(with: url, options: options)]) { try reader($0[0]) }
  }

  /// Reads many items in one coordinated access: one wait for the locks of all of them, and one
  /// look at the presenters of the folders they share. The accessor gets one URL per item, in
  /// order. This is how a batch of documents is read together (a sync agent's upload), where
  /// NSFileCoordinator's `prepare(forReadingItemsAt:…)` would be used on Apple's systems.
  ///
  /// - Throws: the accessor's error, or a ``QuireError`` with code
  ///   ``QuireError/Code-swift.struct/cancelled`` if ``cancel()`` stopped the wait.
  public func coordinate<T>(
    readingItemsAt urls: [URL], options: ReadingOptions = [], byAccessor reader: ([URL]) throws -> T
  ) throws -> T {
    try perform(urls.map { .readingIntent(with: $0, options: options) }, reader)
  }

  /// Writes the item at `url` once nobody else reads or writes it, after its presenters
  /// relinquished it; they hear afterwards that it changed.
  ///
  /// - Throws: the accessor's error, or a ``QuireError`` with code
  ///   ``QuireError/Code-swift.struct/cancelled`` if ``cancel()`` stopped the wait.
  public func coordinate<T>(
    writingItemAt url: URL, options: WritingOptions = [], byAccessor writer: (URL) throws -> T
  ) throws -> T {
    try perform([.writingIntent(with: url, options: options)]) { try writer($0[0]) }
  }

  /// Reads one item and writes another in one coordinated access (for example, copying).
  public func coordinate<T>(
    readingItemAt readingURL: URL, options readingOptions: ReadingOptions = [],
    writingItemAt writingURL: URL, options writingOptions: WritingOptions = [],
    byAccessor body: (URL, URL) throws -> T
  ) throws -> T {
    try perform([
      .readingIntent(with: readingURL, options: readingOptions),
      .writingIntent(with: writingURL, options: writingOptions),
    ]) { try body($0[0], $0[1]) }
  }

  /// Writes two items in one coordinated access (for example, moving: `.forMoving` on the
  /// source and `.forReplacing` on the destination).
  public func coordinate<T>(
    writingItemAt firstURL: URL, options firstOptions: WritingOptions = [],
    writingItemAt secondURL: URL, options secondOptions: WritingOptions = [],
    byAccessor body: (URL, URL) throws -> T
  ) throws -> T {
    try perform([
      .writingIntent(with: firstURL, options: firstOptions),
      .writingIntent(with: secondURL, options: secondOptions),
    ]) { try body($0[0], $0[1]) }
  }

  /// Coordinates every intent at once, without blocking the caller while it waits, and runs
  /// `accessor` with the URLs to use (one per intent, in order) on the caller's actor.
  /// Cancelling the task cancels the wait.
  public func coordinate<T: Sendable>(
    with intents: [FileAccessIntent], isolation: isolated (any Actor)? = #isolation,
    byAccessor accessor: ([URL]) async throws -> T
  ) async throws -> T {
    let session = CoordinatedAccess(
      intents, presenter: filePresenter, downloadTimeout: downloadTimeout,
      downloadProgress: downloadProgress
    ) { [self] in isCancelled }
    let access: Begun
    if let urls = try session.beginWithoutWaiting() {
      access = Begun(session: session, urls: urls)
    } else {
      let handed = Begun(session: session, urls: [])
      access = try await withTaskCancellationHandler {
        try await begin(handed)
      } onCancel: {
        cancel()
      }
    }
    do {
      let result = try await accessor(access.urls)
      access.session.end()
      return result
    } catch {
      access.session.end()
      throw error
    }
  }

  /// Announces that the accessor is about to move `oldURL` to `newURL`.
  public func item(at oldURL: URL, willMoveTo newURL: URL) {}

  /// Announces that the accessor moved `oldURL` to `newURL`: presenters of the item (and of
  /// items inside it) follow it, and presenters of the folders involved hear of the move. This
  /// coordinator's own presenter is not told, but its registration follows.
  public func item(at oldURL: URL, didMoveTo newURL: URL) {
    CoordinatedAccess.announceMove(from: oldURL, to: newURL, excluding: filePresenter)
  }

  /// Announces that the item at `url` gained the version `version` (a sync agent's role, as the
  /// ubiquity daemon's): its presenters, in every process, hear
  /// ``FilePresenter/presentedItemDidGainVersion(_:)``.
  public func item(at url: URL, didGainVersion version: String) {
    CoordinatedAccess.announceVersion(
      .gainedVersion, of: url, version: version, excluding: filePresenter)
  }

  /// Announces that the conflict version `version` of the item at `url` was resolved: its
  /// presenters hear ``FilePresenter/presentedItemDidResolveConflictVersion(_:)``.
  public func item(at url: URL, didResolveConflictVersion version: String) {
    CoordinatedAccess.announceVersion(
      .resolvedVersion, of: url, version: version, excluding: filePresenter)
  }

  /// Stops waiting: a coordination of this coordinator that has not started its accessor yet
  /// throws ``QuireError/Code-swift.struct/cancelled``, now and from now on.
  public func cancel() { cancelled.store(true, ordering: .relaxed) }

  // MARK: Internals

  private var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

  private func perform<T>(_ intents: [FileAccessIntent], _ body: ([URL]) throws -> T) throws -> T {
    let session = CoordinatedAccess(
      intents, presenter: filePresenter, downloadTimeout: downloadTimeout,
      downloadProgress: downloadProgress
    ) { [self] in isCancelled }
    let urls = try session.begin()
    defer { session.end() }
    return try body(urls)
  }

  private struct Begun: @unchecked Sendable {
    // The session is used by one thread at a time: made by the caller, begun there or on a
    // worker thread, then handed back.
    let session: CoordinatedAccess
    let urls: [URL]
  }

  /// Runs the blocking part of a coordination (`unbegun.session`, made by the caller) on a
  /// worker thread.
  private func begin(_ unbegun: Begun) async throws -> Begun {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global().async {
        do {
          let urls = try unbegun.session.begin()
          continuation.resume(returning: Begun(session: unbegun.session, urls: urls))
        } catch {
          continuation.resume(throwing: error)
        }
      }
    }
  }
}
