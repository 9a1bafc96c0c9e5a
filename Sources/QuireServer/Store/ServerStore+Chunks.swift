import GRDB
import QuireSyncProtocol

extension ServerStore {
  /// Stores the chunks framed in `body` for `user`, after checking each one's bytes hash to the
  /// hash it came with; nothing is stored if any lies.
  func storeChunks(user: Int64, body: [UInt8], maximumChunk: Int) throws(SyncError) -> Int {
    let frames = try ChunkFrames.parse(body, maximumChunk: maximumChunk)
    for frame in frames {
      let actual = body.withUnsafeBytes {
        ContentHash(of: UnsafeRawBufferPointer(rebasing: $0[frame.range]))
      }
      guard actual == frame.hash else {
        throw SyncError(
          .badChunk,
          "The chunk sent as \(frame.hash) hashes to \(actual); nothing was stored. Send the bytes again."
        )
      }
    }
    for frame in frames { try blobs.write(frame.hash, body[frame.range]) }
    try blobs.sync()
    try write { db in
      let insert = try db.cachedStatement(
        sql: "INSERT OR IGNORE INTO chunks(user, hash, size) VALUES (?, ?, ?)")
      for frame in frames {
        try insert.execute(arguments: [user, frame.hash.hex, frame.range.count])
      }
    }
    return frames.count
  }

  /// Those of `hashes` that `user` has not uploaded.
  func missingChunks(user: Int64, hashes: [ContentHash]) throws(SyncError) -> [ContentHash] {
    try read { db in try Self.missing(db, user: user, hashes: Set(hashes)) }.sorted()
  }

  static func missing(_ db: Database, user: Int64, hashes: Set<ContentHash>) throws -> Set<
    ContentHash
  > {
    var missing = Set<ContentHash>()
    let all = Array(hashes)
    for start in stride(from: 0, to: all.count, by: 500) {
      let batch = all[start..<min(start + 500, all.count)]
      let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
      let known = try String.fetchSet(
        try db.cachedStatement(
          sql: "SELECT hash FROM chunks WHERE user = ? AND hash IN (\(marks))"),
        arguments: StatementArguments([user] + batch.map { $0.hex }))
      for hash in batch where !known.contains(hash.hex) { missing.insert(hash) }
    }
    return missing
  }

  /// The chunks `hashes`, framed; `notFound` if `user` holds one of them not.
  func fetchChunks(user: Int64, hashes: [ContentHash]) throws(SyncError) -> [UInt8] {
    let missing = try read { db in try Self.missing(db, user: user, hashes: Set(hashes)) }
    if let hash = missing.first {
      throw SyncError(.notFound, "The chunk \(hash) is not stored for this account.")
    }
    var body: [UInt8] = []
    for hash in hashes { ChunkFrames.append(hash: hash, bytes: try blobs.read(hash), to: &body) }
    return body
  }
}
