import Foundation
import Synchronization

/// A document the user opens, edits and never has to save: UIDocument (and NSDocument where
/// UIDocument is silent) in Swift-concurrency form.
///
/// Subclass it and override ``contents(forType:)`` and ``load(fromContents:ofType:)``, or the
/// URL-level ``read(from:)`` and ``writeContents(_:to:for:originalContentsURL:)`` for formats
/// that stream or touch package members directly. Register changes with ``undoManager`` (or call
/// ``updateChangeCount(_:)``) and the document saves itself after a quiet period, on close, and
/// when the process is asked to terminate.
///
/// The document lives on the main actor, like UIDocument; its file access runs on its own serial
/// executor, so the caller is never blocked by I/O.
@MainActor
open class Document {
  /// Why a document is being written.
  public enum SaveOperation: Sendable, Hashable {
    /// Writing a new document, which must not exist yet.
    case forCreating
    /// Writing over the document's file (or saving it to a new place).
    case forOverwriting
  }

  /// How a change affects the change count (``updateChangeCount(_:)``).
  public enum ChangeKind: Sendable, Hashable {
    /// A change was made.
    case done
    /// A change was undone.
    case undone
    /// An undone change was redone.
    case redone
    /// The document now matches its file (after a save or a revert).
    case cleared
  }

  /// The change count at one moment: a save records the changes up to its token as saved, so
  /// edits made while it ran stay unsaved.
  public struct ChangeToken: Hashable, Sendable {
    let count: Int
  }

  /// Where the document is on disk; it follows the document when saved to a new place, and when
  /// another program moves or renames it.
  public internal(set) var fileURL: URL {
    didSet { presentedURL.withLock { $0 = fileURL } }
  }
  /// The document's content type identifier, such as `net.gacha.mydoc`.
  public let fileType: String?
  /// The document's name for people: its file name without the extension.
  public var localizedName: String { fileURL.deletingPathExtension().lastPathComponent }
  /// The modification date of the file when last read or saved.
  public internal(set) var fileModificationDate: Date?
  /// The current state flags; ``events()`` reports changes.
  public internal(set) var documentState: DocumentState = .closed {
    didSet { if oldValue != documentState { emit(.stateChanged(documentState)) } }
  }
  /// The document's undo manager; closing an undo group marks the document edited, and undoing
  /// back to the saved state makes it clean again.
  public let undoManager = UndoManager()
  /// Progress of the load or save in progress, while ``documentState`` has `progressAvailable`.
  public internal(set) var progress: Progress?
  /// The last error handed to ``handleError(_:userInteractionPermitted:)``.
  public internal(set) var lastError: QuireError?
  /// How long the document waits after the last change before saving itself.
  public var autosaveDelay: Duration
  /// Where a single-file document's thumbnails go (packages keep theirs inside).
  public var thumbnailCache = ThumbnailCache.shared

  let clock: any Clock<Duration>
  nonisolated let presentedURL: Mutex<URL>
  var fileSignature: FileSignature?
  var memberSignatures = MemberSignatures()
  /// What this document's own saves changed since the version its store last kept for it; nil
  /// when that is not known (before its first save after a load), and the store looks at every
  /// member.
  var versionChanges: VersionChanges?
  /// Counts finished saves, so a judgement made while one ran is made again.
  var saveGeneration = 0
  var conflictCopies: [URL] = []
  /// The synced document's unresolved conflict versions (from its ``VersionStore``).
  var conflictVersions: [FileVersion] = []
  let fileAccess = DocumentFileAccess()
  var changeCount = 0
  var savedChangeCount = 0
  var autosaveTask: Task<Void, Never>?
  var autosaveGeneration = 0
  var saveInFlight = false
  var saveWaiters: [CheckedContinuation<Void, Never>] = []
  var continuations: [Int: AsyncStream<DocumentEvent>.Continuation] = [:]
  var nextContinuation = 0
  var undoObservation: UndoManager.Observation?

  /// A document at `fileURL` of type `fileType`. It is closed until ``open()`` or a save
  /// ``SaveOperation/forCreating``. `clock` times autosaves (tests pass a manual clock).
  public init(
    fileURL: URL, fileType: String? = nil, clock: any Clock<Duration> = ContinuousClock(),
    autosaveDelay: Duration = .seconds(3)
  ) {
    self.fileURL = fileURL.standardizedFileURL
    presentedURL = Mutex(fileURL.standardizedFileURL)
    self.fileType = fileType
    self.clock = clock
    self.autosaveDelay = autosaveDelay
    undoObservation = undoManager.observe { [weak self] event in self?.undoManagerDidChange(event) }
  }

  /// Whether there are changes not yet saved.
  public var hasUnsavedChanges: Bool { changeCount != savedChangeCount }

  // MARK: Subclass points

  /// The document's contents to save: its bytes, or a package as a ``FileWrapper``. Called on the
  /// main actor at the start of a save; the write happens off it.
  open func contents(forType typeName: String) throws -> DocumentContents {
    throw QuireError(
      .unsupported, "\(Swift.type(of: self)) must override contents(forType:) to be saved.")
  }

  /// Loads the document's model from `contents`, read from ``fileURL``.
  open func load(fromContents contents: DocumentContents, ofType typeName: String?) throws {
    throw QuireError(
      .unsupported, "\(Swift.type(of: self)) must override load(fromContents:ofType:) to be opened."
    )
  }

  /// Reads the document at `url`. The default reads the file or package off the main actor
  /// (a package lazily) and hands it to ``load(fromContents:ofType:)``; override it to stream.
  open func read(from url: URL) async throws {
    let contents = try await performAsynchronousFileAccess { try Document.readContents(at: url) }
    try load(fromContents: contents, ofType: fileType)
  }

  /// Writes `contents` to `url` off the main actor. A package written back where it was read is
  /// saved incrementally; a flat file is safe-saved. Override it to write members directly.
  open func writeContents(
    _ contents: DocumentContents, to url: URL, for saveOperation: SaveOperation,
    originalContentsURL: URL?
  ) async throws {
    try await performAsynchronousFileAccess {
      switch contents {
      case .data(let data): try FileWrapper(regularFileWithContents: data).write(to: url)
      case .fileWrapper(let wrapper):
        try wrapper.write(to: url, originalContentsURL: originalContentsURL)
      }
    }
  }

  /// What to write beside the contents, such as a thumbnail; called at each save.
  open func fileAttributesToWrite(to url: URL, for saveOperation: SaveOperation) throws
    -> DocumentFileAttributes
  {
    DocumentFileAttributes()
  }

  /// Receives every error of opening or saving. The default records it in ``lastError``.
  open func handleError(_ error: QuireError, userInteractionPermitted: Bool) {
    lastError = error
  }

  /// Runs `body` on the document's serial file-access executor, off the caller's actor.
  public func performAsynchronousFileAccess<T: Sendable>(_ body: @escaping @Sendable () throws -> T)
    async throws -> T
  {
    try await fileAccess.perform(body)
  }

  /// Reads a package as a lazy wrapper, or a single file's bytes into memory. A document keeps
  /// what it loads, so a flat file is copied rather than mapped: a mapping would crash the app
  /// if another program truncated the file in place.
  nonisolated static func readContents(at url: URL) throws -> DocumentContents {
    let wrapper = try FileWrapper(url: url)
    guard !wrapper.isDirectory else { return .fileWrapper(wrapper) }
    return .data(try FileWrapper(url: url, options: [.immediate, .withoutMapping]).contents())
  }

  // MARK: Events

  /// The document's events, starting with its current state; the stream ends its subscription
  /// when its iterator is dropped.
  public func events() -> AsyncStream<DocumentEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: DocumentEvent.self)
    let id = nextContinuation
    nextContinuation += 1
    continuations[id] = continuation
    continuation.yield(.stateChanged(documentState))
    continuation.onTermination = { [weak self] _ in
      Task { @MainActor in self?.continuations[id] = nil }
    }
    return stream
  }

  func emit(_ event: DocumentEvent) {
    for continuation in continuations.values { continuation.yield(event) }
  }
}
