extension QuireError {
  /// A kind of failure. Compare with the static members: `error.code == .noSpace`.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, Hashable, Sendable {
      case notFound, alreadyExists, permissionDenied, noSpace, readOnlyFileSystem, ioError
      case invalidName, wrongKind, corruptPackage, interruptedSave, unknownType, invalidDeclaration
      case corruptArchive, unsafeArchive, archiveTooLarge, unsupported, internalError,
        corruptDocument, limitReached, cancelled, timedOut, notDownloaded
    }
    private let kind: Kind
    private init(_ kind: Kind) { self.kind = kind }

    /// The document is in the cloud, not on this device, and could not be downloaded now (the
    /// role of `NSUbiquitousFileUnavailableError`): the server is unreachable, no sync agent
    /// runs for its folder, or the item is gone. Its placeholder stays; a later read retries.
    public static let notDownloaded = Code(.notDownloaded)
    /// The file or folder does not exist (any more).
    public static let notFound = Code(.notFound)
    /// Something already exists where Quire was asked to create a new item.
    public static let alreadyExists = Code(.alreadyExists)
    /// The user lacks permission to read or write the item.
    public static let permissionDenied = Code(.permissionDenied)
    /// The disk or the user's quota is full.
    public static let noSpace = Code(.noSpace)
    /// The item is on a read-only file system.
    public static let readOnlyFileSystem = Code(.readOnlyFileSystem)
    /// The device reported an input/output error, or another system call failed.
    public static let ioError = Code(.ioError)
    /// A file name is empty, `.`/`..`, contains `/` or NUL, or is too long for Linux.
    public static let invalidName = Code(.invalidName)
    /// The item is a file where a folder was expected, or the reverse.
    public static let wrongKind = Code(.wrongKind)
    /// A package's bookkeeping is damaged beyond what recovery can repair.
    public static let corruptPackage = Code(.corruptPackage)
    /// A save was committed but could not be finished; it completes the next time the package is read.
    public static let interruptedSave = Code(.interruptedSave)
    /// No content type is declared for the identifier, extension or MIME type.
    public static let unknownType = Code(.unknownType)
    /// A type declaration file is malformed.
    public static let invalidDeclaration = Code(.invalidDeclaration)
    /// An archive is truncated or damaged.
    public static let corruptArchive = Code(.corruptArchive)
    /// An archive tries to write outside its destination (`..`, absolute names, escaping links, duplicates).
    public static let unsafeArchive = Code(.unsafeArchive)
    /// An archive exceeds the size, entry-count or compression-ratio limits (an archive bomb).
    public static let archiveTooLarge = Code(.archiveTooLarge)
    /// A document's contents are damaged or not of the expected type.
    public static let corruptDocument = Code(.corruptDocument)
    /// A system limit was reached, such as the number of inotify watches per user.
    public static let limitReached = Code(.limitReached)
    /// The operation was cancelled (``FileCoordinator/cancel()`` or task cancellation) before it
    /// began; nothing was changed.
    public static let cancelled = Code(.cancelled)
    /// Another program did not answer in time (a file presenter asked to save or relinquish).
    public static let timedOut = Code(.timedOut)
    /// The operation is not supported for this item or on this system.
    public static let unsupported = Code(.unsupported)
    /// Quire broke one of its own invariants; please report it.
    public static let internalError = Code(.internalError)

    /// The code's name, such as `noSpace`.
    public var description: String { kind.rawValue }
  }
}
