import QuireSyncProtocol

/// Where the server keeps chunk bytes: a folder on its disk (``FolderBlobStore``, the default)
/// or a bucket of S3-compatible object storage (``S3BlobStore``). Each upload's chunks are
/// written as one pack, under a new name, never changed after; the database records where each
/// chunk is, and names a pack only once it is durable.
protocol BlobStore: Sendable {
  /// Writes `pieces` (verified by the caller) one after another into a new pack; returns its
  /// name and each piece's offset in it. Durable once ``sync()`` returns.
  func writePack(_ pieces: [ArraySlice<UInt8>]) throws(SyncError) -> (
    pack: String, offsets: [Int]
  )

  /// Makes every pack written so far durable.
  func sync() throws(SyncError)

  /// The bytes of the chunks at `locations`, in order.
  func read(_ locations: [(hash: ContentHash, location: BlobLocation)]) throws(SyncError)
    -> [[UInt8]]

  /// Every pack stored, by name.
  func packs() throws(SyncError) -> [String: StoredBlob]

  /// The chunk `hash` stored loose, one file per chunk, by servers from before packs.
  func looseChunk(_ hash: String) -> StoredBlob?

  /// Deletes the pack `name`; false if it could not.
  func removePack(_ name: String) -> Bool

  /// Deletes the loose chunk `hash`; returns the bytes freed (nil if it was gone).
  func removeLooseChunk(_ hash: String) -> Int64?
}
