import Quire
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

  /// Whether the member `path` of `size` bytes of a package opened on demand stays in the
  /// cloud until read: under an on-demand policy, members of at least 256 KiB (an album's
  /// images), except the package's QuickLook folder (its thumbnail and preview are shown
  /// first) and names too long for a placeholder. Smaller members come with the package.
  func keepsMemberInCloud(_ path: String, size: Int) -> Bool {
    guard case .onDemand = self, size >= 256 << 10, !path.hasPrefix("QuickLook/") else {
      return false
    }
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return CloudPlaceholder.canPlaceMember(named: name)
  }
}
