import Foundation
import QuireSyncProtocol

/// Chunks sent as deltas of similar chunks (``ChunkDelta``): the signatures a device needs to
/// make one, a delta's chunk rebuilt and stored, and deltas for a device that holds the base.
extension ChunkStore {
  /// The bytes of those of `hashes` that `user` holds.
  func heldBytes(user: Int64, hashes: [ContentHash]) throws(SyncError) -> [ContentHash: [UInt8]] {
    let locations = try read { db in try Self.locations(db, user: user, hashes: hashes) }
    let found = locations.sorted { $0.key < $1.key }
    let bytes = try blobs.read(found.map { ($0.key, $0.value) })
    return Dictionary(uniqueKeysWithValues: zip(found.map(\.key), bytes))
  }

  /// The block signatures of those of `hashes` that `user` holds; `tooLarge` past
  /// ``ChunkSignatures/maximumCount``.
  func signatures(user: Int64, hashes: [ContentHash]) throws(SyncError) -> ChunkSignatures {
    guard hashes.count <= ChunkSignatures.maximumCount else {
      throw SyncError(
        .tooLarge, "Ask for at most \(ChunkSignatures.maximumCount) chunks' signatures at a time.")
    }
    let held = try heldBytes(user: user, hashes: hashes)
    return ChunkSignatures(
      signatures: held.sorted { $0.key < $1.key }.map { .init(hash: $0.key, bytes: $0.value) })
  }

  /// Rebuilds each of `deltas` from its base, which `user` must hold, and stores those whose
  /// bytes hash to their chunk, as an upload of them would. Returns the chunks stored; a delta
  /// whose base is not held, or that does not make its chunk, is left out (the device sends
  /// that chunk whole). `tooLarge` past ``ChunkDeltaList/maximumCount``.
  func storeDeltas(user: Int64, deltas: [ChunkDelta], maximumChunk: Int) throws(SyncError)
    -> [ContentHash]
  {
    guard deltas.count <= ChunkDeltaList.maximumCount else {
      throw SyncError(
        .tooLarge, "Send at most \(ChunkDeltaList.maximumCount) chunk deltas at a time.")
    }
    let bases = try heldBytes(user: user, hashes: deltas.map(\.base))
    var body: [UInt8] = []
    var stored: [ContentHash] = []
    for delta in deltas {
      guard let base = bases[delta.base],
        let bytes = try? delta.applied(to: base, maximumSize: maximumChunk)
      else { continue }
      ChunkFrames.append(hash: delta.hash, bytes: bytes, to: &body)
      stored.append(delta.hash)
    }
    if !body.isEmpty { _ = try storeChunks(user: user, body: body, maximumChunk: maximumChunk) }
    return stored
  }

  /// A delta for each of `wanted` whose chunk and base `user` both holds, where it is under half
  /// the chunk. `tooLarge` past ``ChunkDeltaList/maximumCount``.
  func deltas(user: Int64, wanted: [ChunkDeltaRequest.Wanted]) throws(SyncError)
    -> ChunkDeltaList
  {
    guard wanted.count <= ChunkDeltaList.maximumCount else {
      throw SyncError(
        .tooLarge, "Ask for at most \(ChunkDeltaList.maximumCount) chunk deltas at a time.")
    }
    let held = try heldBytes(user: user, hashes: wanted.flatMap { [$0.hash, $0.base] })
    return ChunkDeltaList(
      deltas: wanted.compactMap { pair in
        guard let new = held[pair.hash], let base = held[pair.base] else { return nil }
        return ChunkDelta.between(base: base, baseHash: pair.base, new: new, hash: pair.hash)
      })
  }
}
