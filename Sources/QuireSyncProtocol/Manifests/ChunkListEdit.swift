/// A member's chunk list sent as an edit of the list its base revision held at the same path:
/// runs of the base's chunks and the new chunks between them. 100 bytes changed in a 256 MiB
/// member are two runs of the base and one or two new chunks, not 4 000 references both ways.
///
/// Only a wire form: the receiver rebuilds the whole list (``applied(to:)``) against its own copy
/// of the base, checks it against ``digest``, and works with whole lists from there on.
public struct ChunkListEdit: Hashable, Codable, Sendable {
  /// The member's path (as in ``ManifestMember/path``).
  public var path: String
  /// The runs that make the new list, in order.
  public var runs: [Run]
  /// ``digest(of:)`` of the new list: a receiver whose copy of the base differs from the
  /// sender's finds out, and asks for (or is sent) the whole list instead.
  public var digest: ContentHash

  /// A run of the new list: chunks taken from the base list, or new ones.
  public enum Run: Hashable, Codable, Sendable {
    /// `count` chunks of the base list, from index `start`.
    case base(start: Int, count: Int)
    /// Chunks not taken from the base.
    case new([ChunkReference])

    private enum CodingKeys: String, CodingKey {
      case base = "b"
      case new = "c"
    }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      if let range = try container.decodeIfPresent([Int].self, forKey: .base) {
        guard range.count == 2 else {
          throw DecodingError.dataCorruptedError(
            forKey: .base, in: container, debugDescription: "A base run is [start, count].")
        }
        self = .base(start: range[0], count: range[1])
      } else {
        self = .new(try container.decode([ChunkReference].self, forKey: .new))
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      switch self {
      case .base(let start, let count): try container.encode([start, count], forKey: .base)
      case .new(let chunks): try container.encode(chunks, forKey: .new)
      }
    }
  }

  /// An edit of `path`'s list made of `runs`, whose result has `digest`.
  public init(path: String, runs: [Run], digest: ContentHash) {
    self.path = path
    self.runs = runs
    self.digest = digest
  }

  /// The edit that turns `base` into `new`, or nil when it would not be smaller than `new`
  /// sent whole (a short list, or one that shares little with its base). Each chunk of `new`
  /// found in `base` starts a run there, as long as the two lists go on agreeing: an insertion,
  /// a deletion or a replacement anywhere costs one run on each side of it.
  public static func between(base: [ChunkReference], new: [ChunkReference], path: String)
    -> ChunkListEdit?
  {
    guard new.count >= 8, !base.isEmpty else { return nil }
    var first: [ChunkReference: Int] = [:]
    for (index, chunk) in base.enumerated() where first[chunk] == nil { first[chunk] = index }
    var runs: [Run] = []
    var added: [ChunkReference] = []
    var index = 0
    while index < new.count {
      guard let start = first[new[index]] else {
        added.append(new[index])
        index += 1
        continue
      }
      if !added.isEmpty {
        runs.append(.new(added))
        added = []
      }
      var count = 1
      while index + count < new.count, start + count < base.count,
        new[index + count] == base[start + count]
      {
        count += 1
      }
      runs.append(.base(start: start, count: count))
      index += count
    }
    if !added.isEmpty { runs.append(.new(added)) }
    // A reference on the wire is about 80 bytes, a run of the base about 15.
    let sent = runs.reduce(0) {
      if case .new(let chunks) = $1 { return $0 + chunks.count * 5 + 1 }
      return $0 + 1
    }
    guard sent < new.count * 5 / 2 else { return nil }
    return ChunkListEdit(path: path, runs: runs, digest: digest(of: new))
  }

  /// The most chunks the edits of one request may make together: about what whole lists in
  /// the largest JSON body a server reads (32 MiB) can name. A few bytes of runs, each
  /// repeating a whole base, must not make lists of billions.
  public static let maximumCount = 1 << 19

  /// The list this edit makes of `base`. Throws `invalidManifest` for a run outside `base`, an
  /// empty run, a result longer than `limit`, or one whose ``digest(of:)`` is not ``digest``
  /// (the receiver's base is not the sender's).
  public func applied(to base: [ChunkReference], limit: Int = maximumCount) throws(SyncError)
    -> [ChunkReference]
  {
    var chunks: [ChunkReference] = []
    for run in runs {
      let count: Int
      switch run {
      case .base(_, let taken): count = taken
      case .new(let added): count = added.count
      }
      guard count <= limit - chunks.count else {
        throw SyncError(
          .invalidManifest,
          "The edits of member “\(path)”'s chunks make more than \(Self.maximumCount) chunks in one request."
        )
      }
      switch run {
      case .base(let start, let count):
        guard start >= 0, count > 0, start < base.count, count <= base.count - start else {
          throw SyncError(
            .invalidManifest,
            "The edit of member “\(path)”'s chunks takes \(count) chunks from \(start), outside its base's \(base.count). Send the whole list."
          )
        }
        chunks += base[start..<start + count]
      case .new(let added):
        guard !added.isEmpty else {
          throw SyncError(
            .invalidManifest, "The edit of member “\(path)”'s chunks has an empty run.")
        }
        chunks += added
      }
    }
    guard Self.digest(of: chunks) == digest else {
      throw SyncError(
        .invalidManifest,
        "The edit of member “\(path)”'s chunks does not apply to the base held here. Send the whole list."
      )
    }
    return chunks
  }

  /// The SHA-256 of a list: each chunk's 32-byte hash and its size as 4 bytes, big-endian.
  public static func digest(of chunks: [ChunkReference]) -> ContentHash {
    var hasher = ContentHasher()
    for chunk in chunks {
      let size = UInt32(truncatingIfNeeded: chunk.size)
      let record =
        chunk.hash.bytes + [
          UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF),
        ]
      record.withUnsafeBytes { hasher.update($0) }
    }
    return hasher.finalize()
  }
}
