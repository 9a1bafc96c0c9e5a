import QuireSyncProtocol

/// A deleted document that can be brought back: the server's trash, as the web drive lists
/// it. Nothing is thrown away by a deletion: the versions before it stay until their owner
/// removes them.
struct TrashedItem: Encodable, Sendable, Equatable {
  /// The item's identity in its container.
  var item: String
  /// Where it was, in the drive ("Notes/Plan.txt").
  var path: String
  /// A file or a package.
  var kind: ItemKind
  /// When it was deleted, in seconds since 1970.
  var deleted: Double
  /// The last revision before the deletion: the one a restore brings back.
  var revision: Int64
}
