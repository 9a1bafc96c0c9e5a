extension SyncError {
  /// A kind of failure; new codes may be added, so a client treats an unknown one by its status.
  public struct Code: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible {
    /// The code's name, such as `invalidPath`.
    public let rawValue: String
    /// The code named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// No device token, or one the server does not know or has revoked (401).
    public static let unauthorized = Code(rawValue: "unauthorized")
    /// The user name or password is wrong (401).
    public static let badCredentials = Code(rawValue: "badCredentials")
    /// The request is not valid JSON or lacks a field (400).
    public static let malformed = Code(rawValue: "malformed")
    /// A path is empty, absolute, has `..`, NUL or a name Linux cannot store (400).
    public static let invalidPath = Code(rawValue: "invalidPath")
    /// A container identifier or item identity is not valid (400).
    public static let invalidIdentifier = Code(rawValue: "invalidIdentifier")
    /// A chunk's bytes do not hash to the hash it was sent under, or are out of size (400).
    public static let badChunk = Code(rawValue: "badChunk")
    /// A commit names chunks the server does not hold for this account (400).
    public static let missingChunks = Code(rawValue: "missingChunks")
    /// A manifest does not add up (sizes, duplicate paths, a file with several members) (400).
    public static let invalidManifest = Code(rawValue: "invalidManifest")
    /// The account may see this but not change it: a write to an item shared with it read-only,
    /// or an owner's action a participant asked for (403).
    public static let forbidden = Code(rawValue: "forbidden")
    /// The item, revision, chunk or container does not exist for this account (404).
    public static let notFound = Code(rawValue: "notFound")
    /// A request or manifest is larger than the server accepts (413).
    public static let tooLarge = Code(rawValue: "tooLarge")
    /// The device commits faster than the server allows; retry after a moment (429).
    public static let rateLimited = Code(rawValue: "rateLimited")
    /// A WebDAV client holds a lock on what the write would change, and the write did not
    /// submit its token; nothing was written (423, WebDAV's routes only: a device's commit over
    /// a lock is kept as a conflict version instead).
    public static let locked = Code(rawValue: "locked")
    /// The name is taken (409).
    public static let alreadyExists = Code(rawValue: "alreadyExists")
    /// A device's own file changed while the agent read or replaced it; the agent syncs the item
    /// again once it settles (a device-side code; a server never answers it) (409).
    public static let changedWhileSyncing = Code(rawValue: "changedWhileSyncing")
    /// The folder was not in sync when a wait for it ended (`quire sync wait`; a device-side
    /// code, never a server's answer) (503).
    public static let notInSync = Code(rawValue: "notInSync")
    /// The server could not reach or write its storage; nothing was stored (503).
    public static let unavailable = Code(rawValue: "unavailable")
    /// The request names a host the server does not answer to (its `--trusted-host` names);
    /// use the server's own address (421).
    public static let foreignHost = Code(rawValue: "foreignHost")
    /// The server broke an invariant of its own (500).
    public static let internalError = Code(rawValue: "internalError")

    /// The HTTP status the server answers this code with.
    public var httpStatus: Int {
      switch self {
      case .unauthorized, .badCredentials: 401
      case .forbidden: 403
      case .notFound: 404
      case .tooLarge: 413
      case .rateLimited: 429
      case .locked: 423
      case .alreadyExists, .changedWhileSyncing: 409
      case .foreignHost: 421
      case .unavailable, .notInSync: 503
      case .internalError: 500
      default: 400
      }
    }

    /// The code's name.
    public var description: String { rawValue }
  }
}
