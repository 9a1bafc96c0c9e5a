import QuireSyncProtocol

/// The chunks each account has stored, where their bytes are, and the collection of those no
/// revision needs any more. Its table is `chunks`; the bytes are in the backend's blob store.
public struct ChunkStore: StoreAggregate {
  let backend: StoreBackend
}

extension ChunkStore {
  /// Stores the chunks framed in `body` for `user`, after checking each one's bytes hash to the
  /// hash it came with; nothing is stored if any lies. With `share`, they are noted as uploaded
  /// through it, so its participant may commit them.
  func storeChunks(user: Int64, body: [UInt8], maximumChunk: Int, share: String? = nil)
    throws(SyncError) -> Int
  {
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
    var unique: [(hash: ContentHash, range: Range<Int>)] = []
    var seen = Set<ContentHash>()
    for frame in frames where seen.insert(frame.hash).inserted { unique.append(frame) }
    let written = try blobs.writePack(unique.map { body[$0.range] })
    try blobs.sync()
    let rows = zip(unique, written.offsets).map { frame, offset in
      ChunkRow(hash: frame.hash, size: frame.range.count, offset: offset)
    }
    if share == nil && rows.count <= Self.chunkRowsPerStatement {
      // The common upload: one statement, which with PostgreSQL is one round trip.
      try writeStatement { db in
        try Self.insertChunks(db, user: user, rows, pack: written.pack)
      }
      return frames.count
    }
    try writeOutsideJournal { db in
      for start in stride(from: 0, to: rows.count, by: Self.chunkRowsPerStatement) {
        let batch = rows[start..<min(start + Self.chunkRowsPerStatement, rows.count)]
        try Self.insertChunks(db, user: user, batch, pack: written.pack)
        if let share {
          for row in batch {
            try db.execute(
              "INSERT INTO shareUploads(share, hash) VALUES (?, ?) ON CONFLICT DO NOTHING",
              [share, row.hash.hex])
          }
        }
      }
    }
    return frames.count
  }

  /// A chunk of an upload: its hash, its size and where it is in the upload's pack.
  struct ChunkRow {
    var hash: ContentHash
    var size: Int
    var offset: Int
  }

  /// How many chunk rows one INSERT carries (five arguments each, far below either engine's
  /// limit).
  static let chunkRowsPerStatement = 200

  /// Records `user`'s chunks `rows`, in `pack`, with one statement (those known are kept as
  /// they were).
  static func insertChunks(
    _ db: any SQLSession, user: Int64, _ rows: some Collection<ChunkRow>, pack: String
  ) throws {
    guard !rows.isEmpty else { return }
    let values = Array(repeating: "(?, ?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
    var arguments: [any SQLArgument] = []
    arguments.reserveCapacity(rows.count * 5)
    for row in rows {
      arguments += [user, row.hash.hex, row.size, pack, row.offset] as [any SQLArgument]
    }
    try db.execute(
      """
      INSERT INTO chunks(account, hash, size, pack, packOffset) VALUES \(values)
      ON CONFLICT(account, hash) DO NOTHING
      """, arguments)
  }

  /// Those of `hashes` that `user` has not uploaded.
  func missingChunks(user: Int64, hashes: [ContentHash]) throws(SyncError) -> [ContentHash] {
    try read { db in try Self.missing(db, user: user, hashes: Set(hashes)) }.sorted()
  }

  /// Records that `user`'s chunk `hash` is in `pack` at `offset` (kept as it was if known).
  static func insertChunk(
    _ db: any SQLSession, user: Int64, hash: ContentHash, size: Int, pack: String, offset: Int
  ) throws {
    try db.execute(
      """
      INSERT INTO chunks(account, hash, size, pack, packOffset) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT(account, hash) DO NOTHING
      """, [user, hash.hex, size, pack, offset])
  }

  static func missing(_ db: any SQLSession, user: Int64, hashes: Set<ContentHash>) throws
    -> Set<ContentHash>
  {
    var missing = Set<ContentHash>()
    let all = Array(hashes)
    for start in stride(from: 0, to: all.count, by: 500) {
      let batch = all[start..<min(start + 500, all.count)]
      let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
      let known = Set(
        try db.values(
          String.self, "SELECT hash FROM chunks WHERE account = ? AND hash IN (\(marks))",
          [user] + batch.map { $0.hex }
        ).compactMap(ContentHash.init(hex:)))
      for hash in batch where !known.contains(hash) { missing.insert(hash) }
    }
    return missing
  }

  /// The chunks of `references` that `user` does not hold. A reference whose size differs from
  /// the stored chunk's, or from another reference to the same chunk, is refused
  /// (`invalidManifest`): a member that claims small chunks while naming big ones would make
  /// every later download of it far larger than its size says.
  static func missing(_ db: any SQLSession, user: Int64, references: [ChunkReference]) throws
    -> Set<ContentHash>
  {
    var claimed: [ContentHash: Int] = [:]
    for reference in references {
      if let other = claimed.updateValue(reference.size, forKey: reference.hash),
        other != reference.size
      {
        throw SyncError(
          .invalidManifest,
          "The chunk \(reference.hash) is named with two sizes, \(other) and \(reference.size) bytes."
        )
      }
    }
    var missing = Set<ContentHash>()
    let found = try locations(db, user: user, hashes: Array(claimed.keys))
    for (hash, size) in claimed {
      guard let stored = found[hash] else {
        missing.insert(hash)
        continue
      }
      guard stored.size == size else {
        throw SyncError(
          .invalidManifest,
          "The chunk \(hash) is \(stored.size) bytes, but the commit says \(size). Chunk sizes must be the stored chunks' own."
        )
      }
    }
    return missing
  }

  /// The chunks `hashes`, located to be read as they are sent; `notFound` if `user` holds one
  /// of them not.
  /// Each chunk is sent once, however often it is asked for: a list of one hash repeated must
  /// not multiply the answer.
  func fetchChunks(user: Int64, hashes: [ContentHash]) throws(SyncError) -> ChunkDownload {
    let locations = try read { db in try Self.locations(db, user: user, hashes: hashes) }
    var wanted: [(hash: ContentHash, location: BlobLocation)] = []
    var seen = Set<ContentHash>()
    for hash in hashes where seen.insert(hash).inserted {
      guard let location = locations[hash] else {
        throw SyncError(.notFound, "The chunk \(hash) is not stored for this account.")
      }
      wanted.append((hash, location))
    }
    return ChunkDownload(pieces: wanted, blobs: try blobs)
  }

  /// Where `user`'s chunks `hashes` are stored (those it holds).
  static func locations(_ db: any SQLSession, user: Int64, hashes: [ContentHash]) throws
    -> [ContentHash: BlobLocation]
  {
    var found: [ContentHash: BlobLocation] = [:]
    let all = Array(Set(hashes))
    for start in stride(from: 0, to: all.count, by: 500) {
      let batch = all[start..<min(start + 500, all.count)]
      let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
      try db.forEach(
        "SELECT hash, size, pack, packOffset FROM chunks WHERE account = ? AND hash IN (\(marks))",
        [user] + batch.map { $0.hex }
      ) { row in
        guard let hash = ContentHash(hex: try row["hash"]) else { return }
        found[hash] = try BlobLocation(
          pack: row["pack"], offset: row["packOffset"] ?? 0, size: row["size"])
      }
    }
    return found
  }
}
