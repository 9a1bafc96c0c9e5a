import QuireSyncProtocol

/// What a participant reaches through a share: one item of the owner's container.
struct SharedItem: Sendable {
  /// The share's identity.
  var share: String
  /// The owner's account, which holds the item's chunks.
  var owner: Int64
  /// The owner's container (its row, and its identifier, which names its journal signal).
  var container: Int64
  var identifier: String
  /// The shared item.
  var item: String
  /// What the participant may do.
  var role: ShareRole

  /// `path` as the participant sees it: the item's name under `Documents/`, so the owner's
  /// folders stay the owner's.
  static func participantPath(_ path: String) -> String {
    "Documents/" + (path.split(separator: "/").last.map(String.init) ?? path)
  }

  /// The journal signal the owner's commits wake.
  var signalKey: String { "\(owner)/\(identifier)" }
}
