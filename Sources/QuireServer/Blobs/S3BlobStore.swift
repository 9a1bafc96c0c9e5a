import Foundation
import QuireSyncProtocol

/// Chunk bytes in S3-compatible object storage: each upload's chunks one object
/// (`PREFIX/packs/UUID`), written with `If-None-Match: *` so nothing is ever replaced, and read
/// back by byte ranges.
///
/// A put that succeeded is durable, so ``sync()`` has nothing to do; a put that failed stored
/// nothing the database names, and the upload fails with a retryable `unavailable` error.
struct S3BlobStore: BlobStore {
  let bucket: S3Bucket
  /// Keys start with this (empty, or ending in `/`).
  let prefix: String

  /// Ranges of one pack closer than this are read in one request, the bytes between dropped.
  static let joinGap = 64 << 10

  func writePack(_ pieces: [ArraySlice<UInt8>]) throws(SyncError) -> (
    pack: String, offsets: [Int]
  ) {
    let name = UUID().uuidString
    var body: [UInt8] = []
    body.reserveCapacity(pieces.reduce(0) { $0 + $1.count })
    var offsets: [Int] = []
    for piece in pieces {
      offsets.append(body.count)
      body += piece
    }
    try bucket.put(prefix + "packs/" + name, body)
    return (name, offsets)
  }

  func sync() throws(SyncError) {}

  /// One ranged read per run of nearby chunks of one pack.
  func read(_ locations: [(hash: ContentHash, location: BlobLocation)]) throws(SyncError)
    -> [[UInt8]]
  {
    var result = [[UInt8]](repeating: [], count: locations.count)
    var byPack: [String: [Int]] = [:]
    for (index, entry) in locations.enumerated() {
      guard let pack = entry.location.pack else {
        throw SyncError(
          .unavailable,
          "The chunk \(entry.hash) is recorded as a loose file, which object storage never holds; the server's data is damaged."
        )
      }
      byPack[pack, default: []].append(index)
    }
    for (pack, indices) in byPack {
      let sorted = indices.sorted { locations[$0].location.offset < locations[$1].location.offset }
      var run: [Int] = []
      var end = 0
      for index in sorted + [-1] {
        let location = index >= 0 ? locations[index].location : nil
        if let location, !run.isEmpty, location.offset <= end + Self.joinGap {
          run.append(index)
          end = max(end, location.offset + location.size)
          continue
        }
        if !run.isEmpty {
          let start = locations[run[0]].location.offset
          let bytes = try bucket.get(prefix + "packs/" + pack, range: start..<end)
          for member in run {
            let piece = locations[member].location
            result[member] = Array(
              bytes[(piece.offset - start)..<(piece.offset - start + piece.size)])
          }
        }
        guard let location else { break }
        run = [index]
        end = location.offset + location.size
      }
    }
    return result
  }

  func packs() throws(SyncError) -> [String: StoredBlob] {
    var found: [String: StoredBlob] = [:]
    for object in try bucket.list(prefix: prefix + "packs/") {
      let name = String(object.key.dropFirst(prefix.count + "packs/".count))
      found[name] = StoredBlob(size: Int64(object.size), modified: object.modified)
    }
    return found
  }

  func looseChunk(_ hash: String) -> StoredBlob? { nil }

  func removePack(_ name: String) -> Bool { (try? bucket.delete(prefix + "packs/" + name)) != nil }

  func removeLooseChunk(_ hash: String) -> Int64? { nil }
}
