import Foundation

/// What a ``VersionStore`` knows of one version of an item; ``FileVersion`` presents it.
public struct VersionRecord: Sendable, Hashable, Codable {
  /// The store's identifier for the version (a server revision number, for a synced item).
  public var identifier: String
  /// When the version was saved.
  public var modificationDate: Date?
  /// The name of the device that saved it.
  public var deviceName: String?
  /// Whether it is the item's current version (the one on disk).
  public var isCurrent: Bool
  /// Whether it is a conflict version: a concurrent edit that lost to the current one.
  public var isConflict: Bool
  /// Whether its conflict was marked resolved.
  public var isResolved: Bool
  /// Whether its contents are on this device without a download.
  public var hasLocalContents: Bool
  /// Whether a thumbnail of it can be had.
  public var hasThumbnail: Bool
  /// For a conflict version kept aside because another program held a lock on the item (a
  /// WebDAV client, on a synced item): who held it. Nil for any other version.
  public var lockOwner: String?

  /// A record.
  public init(
    identifier: String, modificationDate: Date?, deviceName: String?, isCurrent: Bool,
    isConflict: Bool = false, isResolved: Bool = false, hasLocalContents: Bool,
    hasThumbnail: Bool = false, lockOwner: String? = nil
  ) {
    self.identifier = identifier
    self.modificationDate = modificationDate
    self.deviceName = deviceName
    self.isCurrent = isCurrent
    self.isConflict = isConflict
    self.isResolved = isResolved
    self.hasLocalContents = hasLocalContents
    self.hasThumbnail = hasThumbnail
    self.lockOwner = lockOwner
  }
}
