/// Chunks a device wants as deltas of chunks it holds (`POST /v1/chunks/fetch-deltas`, at most
/// ``ChunkDeltaList/maximumCount``): the server answers with a ``ChunkDelta`` for each pair it
/// holds both of and whose delta is under half the chunk; the device fetches the rest whole.
public struct ChunkDeltaRequest: Codable, Sendable {
  /// A chunk wanted, and the chunk the device holds that it is likely to resemble.
  public struct Wanted: Codable, Sendable {
    /// The chunk wanted.
    public var hash: ContentHash
    /// The chunk held.
    public var base: ContentHash

    /// `hash`, made from `base`.
    public init(hash: ContentHash, base: ContentHash) {
      self.hash = hash
      self.base = base
    }
  }

  /// The pairs.
  public var wanted: [Wanted]

  /// A request for `wanted`.
  public init(wanted: [Wanted]) { self.wanted = wanted }
}
