import Foundation
import QuireCore
import QuireSyncProtocol

extension CommitStore {
  /// The types the server knows, to tell text members (`public.plain-text`) from the rest.
  static let types = TypeRegistry()
  /// Text larger than this is not merged line by line (a conflict instead): it bounds the memory
  /// and time one commit can take.
  static let maximumMergedText = 8 << 20

  /// The three-way line merge of a text member both sides changed, stored as a new member; nil
  /// when it is not text, too large, or the merge conflicts.
  static func mergeText(
    path: String, itemPath: String, kind: ItemKind, base: ManifestMember?, mine: ManifestMember,
    theirs: ManifestMember, user: Int64, blobs: any BlobStore, _ db: any SQLSession
  ) throws -> ManifestMember? {
    let name = kind == .file ? itemPath : path
    guard [base?.size ?? 0, mine.size, theirs.size].allSatisfy({ $0 <= maximumMergedText }),
      TextMerge.declaredText(name: name, types: types) != false
    else { return nil }
    let mineBytes = try bytes(of: mine, user: user, blobs: blobs, db)
    guard TextMerge.isText(name: name, bytes: mineBytes, types: types) else { return nil }
    let result = TextMerge(
      base: try bytes(of: base, user: user, blobs: blobs, db), mine: mineBytes,
      theirs: try bytes(of: theirs, user: user, blobs: blobs, db))
    guard result.isClean else { return nil }
    let chunks = try store(result.text, user: user, blobs: blobs, db)
    return ManifestMember(
      path: path, size: result.text.count, mode: mine.mode,
      modified: max(mine.modified, theirs.modified), hash: ContentHash(of: result.text),
      chunks: chunks)
  }

  /// A member's whole contents, read from its chunks.
  private static func bytes(
    of member: ManifestMember?, user: Int64, blobs: any BlobStore, _ db: any SQLSession
  ) throws -> [UInt8] {
    guard let member, member.size > 0 else { return [] }
    let hashes = member.chunks.map(\.hash)
    let found = try ChunkStore.locations(db, user: user, hashes: hashes)
    var wanted: [(hash: ContentHash, location: BlobLocation)] = []
    for hash in hashes {
      guard let location = found[hash] else {
        throw SyncError(.internalError, "The chunk \(hash) of “\(member.path)” is not stored.")
      }
      wanted.append((hash, location))
    }
    return try blobs.read(wanted).flatMap { $0 }
  }

  /// Cuts `bytes` into chunks, stores those `user` lacks in a new pack (durable before the
  /// transaction names them), and returns the chunk list.
  private static func store(
    _ bytes: [UInt8], user: Int64, blobs: any BlobStore, _ db: any SQLSession
  )
    throws -> [ChunkReference]
  {
    let ranges = ContentChunker.standard.chunkRanges(of: bytes)
    let references = bytes.withUnsafeBytes { buffer in
      ranges.map {
        ChunkReference(
          hash: ContentHash(of: UnsafeRawBufferPointer(rebasing: buffer[$0])), size: $0.count)
      }
    }
    let missing = try ChunkStore.missing(db, user: user, hashes: Set(references.map(\.hash)))
    var pieces: [(hash: ContentHash, range: Range<Int>)] = []
    var seen = Set<ContentHash>()
    for (reference, range) in zip(references, ranges)
    where missing.contains(reference.hash) && seen.insert(reference.hash).inserted {
      pieces.append((reference.hash, range))
    }
    guard !pieces.isEmpty else { return references }
    let written = try blobs.writePack(pieces.map { bytes[$0.range] })
    try blobs.sync()
    for (piece, offset) in zip(pieces, written.offsets) {
      try ChunkStore.insertChunk(
        db, user: user, hash: piece.hash, size: piece.range.count, pack: written.pack,
        offset: offset)
    }
    return references
  }
}
