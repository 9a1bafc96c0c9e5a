import Foundation
import QuireSyncProtocol

/// Chunks an edit touched, sent and fetched as deltas of the chunks they replaced
/// (``ChunkDelta``): 100 bytes changed in a 200 KiB chunk cost a few KiB each way. Each step
/// is an optimisation only: whatever it does not carry goes whole, as before.
extension SyncAgent {
  /// Sends those of `missing` that replaced a chunk of `base` at the same place as deltas of
  /// it, against the block signatures the server gives; returns the chunks the server stored.
  func sendDeltas(
    _ missing: [ContentHash], from sources: [ContentHash: (snapshot: MemberSnapshot, index: Int)],
    base: SyncedItem
  ) async -> Set<ContentHash> {
    let wanted = Set(missing)
    var pairs: [ContentHash: ContentHash] = [:]
    var snapshots: [String: MemberSnapshot] = [:]
    for hash in missing {
      if let source = sources[hash] { snapshots[source.snapshot.path] = source.snapshot }
    }
    for snapshot in snapshots.values {
      guard let old = base.members[snapshot.path]?.chunks else { continue }
      for pair in ChunkDelta.pairs(new: snapshot.chunks, base: old)
      where wanted.contains(pair.chunk)
        && (sources[pair.chunk].map { $0.snapshot.chunks[$0.index].size } ?? 0)
          >= Self.smallestDelta
      {
        pairs[pair.chunk] = pair.base
      }
    }
    guard !pairs.isEmpty,
      let signatures = try? await client.chunkSignatures(Array(Set(pairs.values)))
    else { return [] }
    var deltas: [ChunkDelta] = []
    for (hash, baseHash) in pairs.sorted(by: { $0.key < $1.key }) {
      guard let signature = signatures[baseHash], let source = sources[hash],
        let bytes = try? source.snapshot.bytes(ofChunk: source.index),
        let delta = ChunkDelta.between(signature: signature, new: bytes, hash: hash)
      else { continue }
      deltas.append(delta)
    }
    guard !deltas.isEmpty, let stored = try? await client.uploadDeltas(deltas) else { return [] }
    state.count(
      deltas.filter { stored.contains($0.hash) }.reduce(0) { $0 + $1.bytes.count },
      in: "uploadedBytes")
    return stored
  }

  /// Puts into `spool` those of `wanted` (chunks of `manifest`'s changed members) that the
  /// server sends as deltas of the chunks at the same place in `base`, which `onDisk` holds.
  func fetchDeltas(
    _ wanted: [ContentHash: Int], of manifest: RevisionManifest, base: SyncedItem,
    onDisk: LocalChunks, into spool: ChunkSpool
  ) async {
    var asked: [ChunkDeltaRequest.Wanted] = []
    var seen = Set<ContentHash>()
    for member in manifest.change.upserted {
      guard let old = base.members[member.path]?.chunks else { continue }
      for pair in ChunkDelta.pairs(new: member.chunks, base: old)
      where (wanted[pair.chunk] ?? 0) >= Self.smallestDelta && !spool.holds(pair.chunk)
        && onDisk.contains(pair.base) && seen.insert(pair.chunk).inserted
      {
        asked.append(.init(hash: pair.chunk, base: pair.base))
      }
    }
    guard !asked.isEmpty, let deltas = try? await client.fetchDeltas(asked) else { return }
    var fetched = 0
    for delta in deltas where wanted[delta.hash] != nil {
      guard let old = try? onDisk.bytes(of: delta.base),
        let bytes = try? delta.applied(to: old, maximumSize: ContentChunker.standard.maximumSize),
        (try? spool.put(delta.hash, bytes)) != nil
      else { continue }
      fetched += delta.bytes.count
    }
    spool.written()
    state.count(fetched, in: "downloadedBytes")
  }

  /// Chunks smaller than this go whole: a delta and its signatures would cost about as much.
  static var smallestDelta: Int { 8 << 10 }
}
