/// Where an item stands in sync, as the agent records it and everything that shows it reads it
/// (``SyncStatusSource``, ``SyncReport``, `quire sync status`, the app's library): one
/// vocabulary, stored and sent by its raw value. The agent records only the states of items not
/// in sync; ``current`` and ``notDownloaded`` are what the others show for the rest.
public enum SyncItemState: String, Codable, Sendable, CaseIterable {
  /// Its change is being uploaded.
  case uploading
  /// Its change waits to be uploaded (another program still writes it, or it changed while
  /// syncing).
  case waiting
  /// Its upload failed; the error says why, and the agent retries.
  case error
  /// A newer revision is being downloaded.
  case downloading
  /// Its download failed; the error says why, and the agent retries.
  case downloadError
  /// Only in the cloud: known by name, its contents not on this device.
  case notDownloaded
  /// In sync.
  case current
}
