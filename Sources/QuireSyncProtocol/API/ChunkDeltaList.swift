/// Chunks sent as deltas (``ChunkDelta``), up (`POST /v1/chunks/deltas`, at most
/// ``maximumCount``) or down (the answer of `POST /v1/chunks/fetch-deltas`).
public struct ChunkDeltaList: Codable, Sendable {
  /// The most deltas one request may carry or ask for.
  public static let maximumCount = 64

  /// The deltas.
  public var deltas: [ChunkDelta]

  /// A list of `deltas`.
  public init(deltas: [ChunkDelta]) { self.deltas = deltas }
}
