import QuireSyncProtocol

/// What a device downloads of the documents other devices add, per synced folder: everything
/// (as a Mac does), or only their metadata until an app asks (as an iPhone does).
public enum DownloadPolicy: Sendable, Equatable, CustomStringConvertible {
  /// Every document is downloaded as soon as it is on the server.
  case all
  /// A new document smaller than `downloadingUnder` bytes is downloaded; a larger one stays a
  /// ``Quire/CloudPlaceholder`` until a coordinated read, `quire sync download` or the app asks.
  case onDemand(downloadingUnder: Int)

  /// Reads `all`, `on-demand`, or `on-demand:BYTES`.
  ///
  /// - Throws: ``SyncError`` `malformed` for anything else.
  public init(parsing text: String) throws(SyncError) {
    if text == "all" {
      self = .all
    } else if text == "on-demand" {
      self = .onDemand(downloadingUnder: 0)
    } else if text.hasPrefix("on-demand:"), let bytes = Int(text.dropFirst("on-demand:".count)),
      bytes >= 0
    {
      self = .onDemand(downloadingUnder: bytes)
    } else {
      throw SyncError(
        .malformed, "“\(text)” is not a download policy: use all, on-demand or on-demand:BYTES.")
    }
  }

  /// `all`, `on-demand` or `on-demand:BYTES` (what ``init(parsing:)`` reads).
  public var description: String {
    switch self {
    case .all: "all"
    case .onDemand(let under): under == 0 ? "on-demand" : "on-demand:\(under)"
    }
  }

  /// Whether a new document of `size` bytes stays in the cloud.
  func keepsInCloud(size: Int) -> Bool {
    switch self {
    case .all: false
    case .onDemand(let under): size >= under
    }
  }
}
