/// Limits an archive must stay within to be imported, so that an archive bomb is refused with a
/// clear error before it fills the disk.
public struct ArchiveLimits: Hashable, Sendable {
  /// The most bytes all entries may expand to.
  public var maximumTotalSize: Int64
  /// The most entries (files, folders and links) an archive may hold.
  public var maximumEntryCount: Int
  /// The most an entry of at least ``ratioCheckThreshold`` bytes may expand relative to its
  /// compressed size.
  public var maximumCompressionRatio: Double
  /// Entries smaller than this are not checked for their compression ratio (small files of
  /// repeated bytes compress very well and are harmless).
  public var ratioCheckThreshold: Int64

  /// Limits with the given values.
  public init(
    maximumTotalSize: Int64 = 16 << 30, maximumEntryCount: Int = 1_000_000,
    maximumCompressionRatio: Double = 1000, ratioCheckThreshold: Int64 = 1 << 20
  ) {
    self.maximumTotalSize = maximumTotalSize
    self.maximumEntryCount = maximumEntryCount
    self.maximumCompressionRatio = maximumCompressionRatio
    self.ratioCheckThreshold = ratioCheckThreshold
  }

  /// 16 GiB in all, a million entries, and at most 1000× expansion for entries of 1 MiB or more.
  public static let `default` = ArchiveLimits()
}
