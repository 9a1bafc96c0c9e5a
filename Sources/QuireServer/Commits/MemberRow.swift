import Foundation
import QuireSyncProtocol

/// A member as the `members` table holds it: chunks packed as 36-byte records (hash, size).
enum MemberRow {
  static func encode(_ chunks: [ChunkReference]) -> Data {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(chunks.count * 36)
    for chunk in chunks {
      bytes.append(contentsOf: chunk.hash.bytes)
      let size = UInt32(chunk.size)
      bytes.append(contentsOf: [
        UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF),
      ])
    }
    return Data(bytes)
  }

  static func decode(_ bytes: [UInt8]) -> [ChunkReference] {
    stride(from: 0, to: bytes.count - 35, by: 36).compactMap { start in
      guard let hash = ContentHash(bytes: bytes[start..<start + 32]) else { return nil }
      let size = bytes[start + 32..<start + 36].reduce(0) { $0 << 8 | Int($1) }
      return ChunkReference(hash: hash, size: size)
    }
  }

  static func member(_ row: SQLRow) throws -> ManifestMember {
    let hex: String = try row["hash"]
    guard let hash = ContentHash(hex: hex) else {
      throw SyncError(.internalError, "The server's database holds a bad member hash “\(hex)”.")
    }
    return try ManifestMember(
      path: row["path"], size: row["size"], mode: row["mode"], modified: row["modified"],
      hash: hash, chunks: decode([UInt8]((row["chunks"] as Data?) ?? Data())))
  }
}
