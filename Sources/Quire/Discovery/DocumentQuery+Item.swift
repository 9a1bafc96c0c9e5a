import Foundation

extension DocumentQuery {
  /// Whether a document's contents are on this device (for synced containers; local documents
  /// are always ``current``).
  public enum DownloadingStatus: String, Sendable, Hashable, Codable {
    /// Only known by name: the contents are elsewhere.
    case notDownloaded
    /// Downloaded, but a newer version exists elsewhere.
    case downloaded
    /// The latest version is here.
    case current
  }

  /// One document or folder found by a query: the attributes of NSMetadataItem that a browser
  /// shows, sorts and filters by.
  public struct Item: Sendable, Hashable, Identifiable {
    /// Where it is, as a path.
    public private(set) var path: String
    /// Where it is.
    public var url: URL { URL(fileURLWithPath: path) }
    /// Its file name (kept with the item: sorting by name reads it often).
    public private(set) var name: String
    /// Its content type identifier (`public.folder` for a folder).
    public var contentType: String
    /// Whether it is a folder to navigate into (packages are documents, not folders).
    public var isFolder: Bool
    /// Its size in bytes (for a package, the size of the folder entry; ``DocumentQuery`` does not
    /// walk packages).
    public var size: Int64
    /// When it was created (its status change time where the file system has no birth time).
    public var creationDate: Date
    /// When it was last modified (for a package, the newest of the folder and its members'
    /// entries that the query saw change).
    public var modificationDate: Date
    /// Its tags (`user.xdg.tags`).
    public var tags: [String]
    /// Its stable identity (the `user.quire.id` attribute that survives renames, moves and
    /// safe-saves), if it has one.
    public var identity: String?
    /// Whether its contents are here (always ``DownloadingStatus/current`` for local folders).
    public var downloadingStatus: DownloadingStatus = .current
    /// How much of it is downloaded, 0 to 100.
    public var percentDownloaded: Double = 100
    /// Whether conflicting versions of it wait to be resolved.
    public var hasUnresolvedConflicts = false
    /// Where it is in its sync, for an item of a synced folder (the query's
    /// ``DocumentQuery/ubiquity`` source); nil for a local item.
    public var ubiquity: UbiquityStatus?
    /// Whether it is only a ``CloudPlaceholder`` here: then it stays
    /// ``DownloadingStatus/notDownloaded`` whatever the sync source says.
    public var isPlaceholder = false

    /// Whether it is in a synced folder.
    public var isUbiquitous: Bool { ubiquity != nil }
    /// Whether its current contents are on the server (false for a local item).
    public var isUploaded: Bool { ubiquity?.isUploaded ?? false }
    /// Whether its contents are being sent now.
    public var isUploading: Bool { ubiquity?.isUploading ?? false }
    /// Whether a newer revision is being written here now.
    public var isDownloading: Bool { ubiquity?.isDownloading ?? false }
    /// Why its last upload failed, until one succeeds.
    public var uploadingError: UbiquityError? { ubiquity?.uploadingError }
    /// Why its last download failed, until one succeeds.
    public var downloadingError: UbiquityError? { ubiquity?.downloadingError }
    /// Whether it is shared with other accounts.
    public var isShared: Bool { ubiquity?.isShared ?? false }
    /// How it is shared: this account's role and permissions; nil if it is not shared.
    public var sharing: UbiquitySharing? { ubiquity?.sharing }

    /// The item's path, which identifies it within one set of results.
    public var id: String { path }

    /// Makes an item.
    public init(
      path: String, contentType: String, isFolder: Bool, size: Int64, creationDate: Date,
      modificationDate: Date, tags: [String]
    ) {
      self.path = path
      let utf8 = path.utf8
      name =
        utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[utf8.index(after: $0)...]) } ?? path
      self.contentType = contentType
      self.isFolder = isFolder
      self.size = size
      self.creationDate = creationDate
      self.modificationDate = modificationDate
      self.tags = tags
    }

    /// Takes on `status` (nil: a local item).
    mutating func apply(_ status: UbiquityStatus?) {
      ubiquity = status
      if isPlaceholder { ubiquity?.downloadingStatus = .notDownloaded }
      downloadingStatus = isPlaceholder ? .notDownloaded : status?.downloadingStatus ?? .current
      hasUnresolvedConflicts = status?.hasUnresolvedConflicts ?? false
      percentDownloaded =
        status?.percentDownloaded ?? (downloadingStatus == .notDownloaded ? 0 : 100)
    }
  }
}
