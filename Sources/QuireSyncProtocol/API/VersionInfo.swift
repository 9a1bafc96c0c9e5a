/// One version of an item on the server: a revision a device saved, a merge, or a conflict
/// revision kept aside — what ``VersionList`` lists and `FileVersion` presents.
public struct VersionInfo: Codable, Sendable, Equatable {
  /// The revision.
  public var revision: Int64
  /// The device that saved it.
  public var device: String
  /// That device's name, as it signed in (`NSFileVersion`'s `localizedNameOfSavingComputer`).
  public var deviceName: String
  /// When the server committed it, in seconds since 1970.
  public var committed: Double
  /// When its contents were last modified: the newest modification time of its members, in
  /// seconds since 1970 (nil for a deletion). For a merge this is earlier than ``committed``.
  public var modified: Double?
  /// The item's path in the container at this revision.
  public var path: String
  /// Whether it is a conflict revision: a concurrent edit that lost to the current one.
  public var conflict: Bool
  /// Whether someone marked the conflict resolved.
  public var resolved: Bool
  /// For a device's edit kept aside because a WebDAV client had locked the item: the lock's
  /// owner, whom the device's open document names ("locked by NAME"). Nil otherwise, and from
  /// servers before it was recorded.
  public var lockedBy: String?

  /// A version.
  public init(
    revision: Int64, device: String, deviceName: String, committed: Double,
    modified: Double? = nil, path: String, conflict: Bool, resolved: Bool,
    lockedBy: String? = nil
  ) {
    self.revision = revision
    self.device = device
    self.deviceName = deviceName
    self.committed = committed
    self.modified = modified
    self.path = path
    self.conflict = conflict
    self.resolved = resolved
    self.lockedBy = lockedBy
  }
}
