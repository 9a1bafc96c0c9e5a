/// One member of a revision: a file inside a package (or the one file of a flat document), with
/// what a device needs to write it back exactly.
public struct ManifestMember: Hashable, Codable, Sendable {
  /// The path inside the package (``SyncPath`` rules); empty for a flat document's one member.
  public var path: String
  /// The length in bytes.
  public var size: Int
  /// The permission bits (`0o644`, `0o755`, …).
  public var mode: Int
  /// The modification time, in seconds since 1970.
  public var modified: Double
  /// The SHA-256 of the whole member.
  public var hash: ContentHash
  /// The member's chunks, in order.
  public var chunks: [ChunkReference]

  /// A member at `path`.
  public init(
    path: String, size: Int, mode: Int, modified: Double, hash: ContentHash,
    chunks: [ChunkReference]
  ) {
    self.path = path
    self.size = size
    self.mode = mode
    self.modified = modified
    self.hash = hash
    self.chunks = chunks
  }

  /// The modification times a server accepts, in seconds since 1970: those whose nanoseconds
  /// fit an `Int64` (from 1677 to 2262), as every device keeps file times. A time outside them
  /// (`1e300`, an infinity, year 9999) would trap the conversions a device makes.
  public static let modificationTimes: ClosedRange<Double> = -9_223_372_035...9_223_372_035

  /// The permission bits a server accepts: read, write and execute for owner, group and others.
  /// Set-uid, set-gid and sticky bits are refused, so no peer can plant a set-uid file on
  /// another account's device.
  public static let modes: ClosedRange<Int> = 0...0o777

  /// The permission bits to write on disk: ``mode`` cut to `0o777`, whatever a peer sent.
  public var permissions: UInt16 { UInt16(mode & 0o777) }

  /// ``modified`` brought into ``modificationTimes`` (NaN as 0), safe to convert to any
  /// integer time of a file system or archive.
  public var safeModified: Double {
    guard !modified.isNaN else { return 0 }
    return min(max(modified, Self.modificationTimes.lowerBound), Self.modificationTimes.upperBound)
  }

  /// Whether the member's contents and attributes equal `other`'s (its path aside).
  public func sameContents(as other: ManifestMember) -> Bool {
    hash == other.hash && size == other.size && mode == other.mode
  }
}
