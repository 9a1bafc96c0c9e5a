import Foundation
import QuireSyncProtocol

/// Chunks an edit touched, sent and fetched as deltas of the chunks they replaced
/// (``ChunkDelta``): 100 bytes changed in a 200 KiB chunk cost a few KiB each way. Each step
/// is an optimisation only: whatever it does not carry goes whole, as before.
extension SyncAgent {
  /// Sends those of `missing` that replaced a chunk of their item's base (`items`) at the same
  /// place as deltas of it, against the block signatures the server gives; returns the chunks
  /// the server stored. A batch of ``ChunkDeltaList/maximumCount`` at a time: signed, built and
  /// sent before the next is read, so at most one batch's deltas are in memory.
  func sendDeltas(
    _ missing: [ContentHash], items: [(base: SyncedItem, sources: PreparedUpload.Sources)]
  ) async -> Set<ContentHash> {
    let wanted = Set(missing)
    var pairs: [(chunk: ContentHash, base: ContentHash, source: (MemberSnapshot, Int))] = []
    var seen = Set<ContentHash>()
    for (base, sources) in items {
      var snapshots: [String: MemberSnapshot] = [:]
      for (hash, source) in sources where wanted.contains(hash) {
        snapshots[source.snapshot.path] = source.snapshot
      }
      for snapshot in snapshots.values.sorted(by: { $0.path < $1.path }) {
        guard let old = base.members[snapshot.path]?.chunks else { continue }
        for pair in ChunkDelta.pairs(new: snapshot.chunks, base: old)
        where wanted.contains(pair.chunk) && seen.insert(pair.chunk).inserted {
          guard let source = sources[pair.chunk],
            source.snapshot.chunks[source.index].size >= Self.smallestDelta
          else { continue }
          pairs.append((pair.chunk, pair.base, (source.snapshot, source.index)))
        }
      }
    }
    var stored = Set<ContentHash>()
    for start in stride(from: 0, to: pairs.count, by: ChunkDeltaList.maximumCount) {
      let batch = pairs[start..<min(start + ChunkDeltaList.maximumCount, pairs.count)]
      guard
        let signatures = try? await client.chunkSignatures(Array(Set(batch.map(\.base))))
      else { break }
      var deltas: [ChunkDelta] = []
      for pair in batch {
        guard let signature = signatures[pair.base],
          let bytes = try? pair.source.0.bytes(ofChunk: pair.source.1),
          let delta = ChunkDelta.between(signature: signature, new: bytes, hash: pair.chunk)
        else { continue }
        deltas.append(delta)
      }
      guard !deltas.isEmpty else { continue }
      guard let sent = try? await client.uploadDeltas(deltas) else { break }
      stored.formUnion(sent)
      state.count(
        deltas.filter { sent.contains($0.hash) }.reduce(0) { $0 + $1.bytes.count },
        in: "uploadedBytes")
    }
    return stored
  }

  /// Puts into `spool` those of `wanted` (chunks of `manifest`'s changed members) that the
  /// server sends as deltas of the chunks at the same place in `base`, which `onDisk` holds. A
  /// batch at a time, each answer taken only for the pairs asked, each once.
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
    for start in stride(from: 0, to: asked.count, by: ChunkDeltaList.maximumCount) {
      let batch = asked[start..<min(start + ChunkDeltaList.maximumCount, asked.count)]
      guard let deltas = try? await client.fetchDeltas(Array(batch)) else { return }
      var open = Dictionary(batch.map { ($0.hash, $0.base) }) { first, _ in first }
      var fetched = 0
      for delta in deltas where open.removeValue(forKey: delta.hash) == delta.base {
        guard let old = try? onDisk.bytes(of: delta.base),
          let bytes = try? delta.applied(
            to: old, maximumSize: ContentChunker.standard.maximumSize),
          (try? spool.put(delta.hash, bytes)) != nil
        else { continue }
        fetched += delta.bytes.count
      }
      spool.written()
      state.count(fetched, in: "downloadedBytes")
    }
  }

  /// Chunks smaller than this go whole: a delta and its signatures would cost about as much.
  static var smallestDelta: Int { 8 << 10 }
}
