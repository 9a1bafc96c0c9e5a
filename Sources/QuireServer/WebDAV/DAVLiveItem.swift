import QuireSyncProtocol

/// A live item of the drive, as a folder's DELETE, MOVE or COPY takes it.
struct DAVLiveItem: Sendable {
  /// Its identity.
  var item: String
  /// A flat file or a package.
  var kind: ItemKind
  /// Where it is.
  var path: DAVPath
  /// Its current revision: the base of the commit that changes it.
  var revision: Int64
}
