import QuireSyncProtocol

/// What ``SyncAgent`` fetched ahead for a page of the journal: whole manifests of items new to
/// this device, by item, and their chunks, by hash.
struct Prefetched {
  var manifests: [String: RevisionManifest] = [:]
  var chunks: [ContentHash: [UInt8]] = [:]
}
