import Foundation

/// A chunk sent as the change of a similar chunk the receiver already holds: the bytes kept
/// from the start and the end of that base chunk, and the bytes between them. 100 bytes changed
/// inside a 200 KiB chunk cross the wire as a few KiB, not the chunk (`POST /v1/chunks/deltas`
/// up, `POST /v1/chunks/fetch-deltas` down).
///
/// The receiver rebuilds the chunk (``applied(to:maximumSize:)``), which must hash to ``hash``:
/// a delta never stands for a chunk it is not.
public struct ChunkDelta: Hashable, Codable, Sendable {
  /// The chunk it makes.
  public var hash: ContentHash
  /// The chunk it is made from.
  public var base: ContentHash
  /// Bytes kept from the start of the base.
  public var prefix: Int
  /// Bytes kept from the end of the base.
  public var suffix: Int
  /// The bytes between them (base64 in JSON).
  public var bytes: Data

  /// A delta making `hash` from `base`.
  public init(hash: ContentHash, base: ContentHash, prefix: Int, suffix: Int, bytes: Data) {
    self.hash = hash
    self.base = base
    self.prefix = prefix
    self.suffix = suffix
    self.bytes = bytes
  }

  /// The delta making `new` (hashing to `hash`) from `base` (hashing to `baseHash`), both held:
  /// their common start and end, byte for byte. Nil unless it is under half of `new`.
  public static func between(
    base: [UInt8], baseHash: ContentHash, new: [UInt8], hash: ContentHash
  ) -> ChunkDelta? {
    let most = min(base.count, new.count)
    var prefix = 0
    while prefix < most, base[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < most - prefix, base[base.count - 1 - suffix] == new[new.count - 1 - suffix] {
      suffix += 1
    }
    let middle = new[prefix..<new.count - suffix]
    guard middle.count < new.count / 2 else { return nil }
    return ChunkDelta(
      hash: hash, base: baseHash, prefix: prefix, suffix: suffix, bytes: Data(middle))
  }

  /// The delta making `new` (hashing to `hash`) from the base chunk whose block ``signature``
  /// is all the sender knows of it: the whole blocks that agree from its start and from its
  /// end. Nil unless it is under half of `new`.
  public static func between(
    signature: ChunkSignatures.Signature, new: [UInt8], hash: ContentHash
  ) -> ChunkDelta? {
    let size = ChunkSignatures.blockSize
    let newHead = ChunkSignatures.blocks(of: new, fromEnd: false)
    let newTail = ChunkSignatures.blocks(of: new, fromEnd: true)
    let most = min(new.count, signature.size)
    var prefix = 0
    var index = 0
    // Only whole blocks: a last, short block of either is compared by its bytes, not known here.
    while prefix + size <= most, index < signature.head.count, index < newHead.count,
      signature.head[index] == newHead[index]
    {
      prefix += size
      index += 1
    }
    var suffix = 0
    index = 0
    while prefix + suffix + size <= most, index < signature.tail.count, index < newTail.count,
      signature.tail[index] == newTail[index]
    {
      suffix += size
      index += 1
    }
    let middle = new[prefix..<new.count - suffix]
    guard middle.count < new.count / 2 else { return nil }
    return ChunkDelta(
      hash: hash, base: signature.hash, prefix: prefix, suffix: suffix, bytes: Data(middle))
  }

  /// The chunk this delta makes of `base`. Throws `badChunk` if the kept bytes are not within
  /// `base`, the result is longer than `maximumSize`, or it does not hash to ``hash``.
  public func applied(to base: [UInt8], maximumSize: Int) throws(SyncError) -> [UInt8] {
    guard prefix >= 0, suffix >= 0, prefix <= base.count, suffix <= base.count - prefix,
      bytes.count <= maximumSize, prefix + suffix <= maximumSize - bytes.count
    else {
      throw SyncError(
        .badChunk,
        "The delta for chunk \(hash) keeps \(prefix) and \(suffix) bytes of a \(base.count)-byte base, or makes more than \(maximumSize)."
      )
    }
    var made = [UInt8]()
    made.reserveCapacity(prefix + bytes.count + suffix)
    made += base[0..<prefix]
    made += bytes
    made += base[(base.count - suffix)...]
    guard ContentHash(of: made) == hash else {
      throw SyncError(.badChunk, "The delta for chunk \(hash) makes bytes that do not hash to it.")
    }
    return made
  }

  /// For each chunk of `new` that `base` (the same member's chunks at the base revision) does
  /// not hold, the chunk of `base` at the same place: starting at the same byte, or else
  /// covering it. An edit in place, or one that moves the bytes after it, leaves the chunk it
  /// touched beside its old self.
  public static func pairs(new: [ChunkReference], base: [ChunkReference]) -> [(
    chunk: ContentHash, base: ContentHash
  )] {
    guard !base.isEmpty else { return [] }
    let held = Set(base.map(\.hash))
    var starts: [Int] = []
    var offset = 0
    for chunk in base {
      starts.append(offset)
      offset += chunk.size
    }
    var result: [(chunk: ContentHash, base: ContentHash)] = []
    var seen = Set<ContentHash>()
    offset = 0
    for chunk in new {
      defer { offset += chunk.size }
      guard !held.contains(chunk.hash), seen.insert(chunk.hash).inserted else { continue }
      // The last base chunk starting at or before this offset.
      var low = 0
      var high = starts.count - 1
      while low < high {
        let middle = (low + high + 1) / 2
        if starts[middle] <= offset { low = middle } else { high = middle - 1 }
      }
      result.append((chunk.hash, base[low].hash))
    }
    return result
  }
}
