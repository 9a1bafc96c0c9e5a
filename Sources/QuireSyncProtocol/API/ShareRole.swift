/// What a participant of a share may do with the shared item.
public enum ShareRole: String, Codable, Sendable, CaseIterable {
  /// Read only: the participant downloads the item and its changes; the server refuses every
  /// write with `forbidden` (403).
  case read
  /// Read and write: the participant's edits are commits to the owner's item.
  case write
}
