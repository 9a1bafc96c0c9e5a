/// Where one synced item is in its sync: what NSMetadataItem's ubiquitous attributes say
/// (`NSMetadataUbiquitousItemIsUploadedKey` and its siblings).
public struct UbiquityStatus: Sendable, Hashable {
  /// Its current contents are on the server.
  public var isUploaded: Bool
  /// Its contents are being sent now.
  public var isUploading: Bool
  /// A newer revision is being written here now.
  public var isDownloading: Bool
  /// Whether this device has its latest revision.
  public var downloadingStatus: DocumentQuery.DownloadingStatus
  /// How much of a download in progress has arrived, 0 to 100 (nil: none in progress, or not
  /// known).
  public var percentDownloaded: Double?
  /// Why its last upload failed, until one succeeds.
  public var uploadingError: UbiquityError?
  /// Why its last download failed, until one succeeds.
  public var downloadingError: UbiquityError?
  /// Whether conflicting versions of it wait to be resolved.
  public var hasUnresolvedConflicts: Bool
  /// How it is shared with other accounts; nil if it is not.
  public var sharing: UbiquitySharing?
  /// Whether it is shared with other accounts (as owner or participant).
  public var isShared: Bool { sharing != nil }

  /// A status; by default, in sync.
  public init(
    isUploaded: Bool = true, isUploading: Bool = false, isDownloading: Bool = false,
    downloadingStatus: DocumentQuery.DownloadingStatus = .current,
    uploadingError: UbiquityError? = nil, downloadingError: UbiquityError? = nil,
    hasUnresolvedConflicts: Bool = false
  ) {
    self.isUploaded = isUploaded
    self.isUploading = isUploading
    self.isDownloading = isDownloading
    self.downloadingStatus = downloadingStatus
    self.uploadingError = uploadingError
    self.downloadingError = downloadingError
    self.hasUnresolvedConflicts = hasUnresolvedConflicts
  }

  /// In sync: uploaded, and the latest revision is here.
  public static let current = UbiquityStatus()
  /// Not on the server yet, and not being sent (an item the agent has not taken up yet).
  public static let waitingToUpload = UbiquityStatus(isUploaded: false)
}
