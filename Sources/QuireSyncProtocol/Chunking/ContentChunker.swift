import Foundation

/// Cuts bytes into content-defined chunks, FastCDC style: where a chunk ends depends only on the
/// bytes around the cut, so an edit inside a large member changes the chunks it touches and
/// leaves the others — and their hashes, which the server already has — as they were. This is
/// what lets a sync of one edited paragraph of a 256 MiB member send a few chunks.
///
/// Cost: one table look-up, a shift and an add per byte past each chunk's minimum size (the first
/// `minimumSize` bytes of a chunk are skipped, as FastCDC does).
///
/// Every device must cut the same bytes the same way, so the sizes and the gear table are part of
/// the protocol: ``standard`` is the one Quire Sync uses (16 KiB minimum, about 64 KiB on
/// average, 256 KiB at most), and the table is generated from a fixed seed, never at random.
///
/// ```swift
/// let chunker = ContentChunker.standard
/// for range in chunker.chunkRanges(of: bytes) { upload(bytes[range]) }
/// ```
public struct ContentChunker: Sendable, Hashable {
  /// No chunk but the last is shorter than this.
  public let minimumSize: Int
  /// The size chunks tend to (a power of two).
  public let averageSize: Int
  /// No chunk is longer than this.
  public let maximumSize: Int
  /// Before `averageSize` a cut needs these bits clear (harder), after it these (easier): the
  /// normalized chunking that keeps sizes close to the average.
  private let hardMask: UInt64
  private let easyMask: UInt64

  /// Quire Sync's chunking: 16 KiB minimum, 64 KiB average, 256 KiB maximum.
  public static let standard = ContentChunker(
    minimumSize: 16 << 10, averageSize: 64 << 10, maximumSize: 256 << 10)

  /// A chunker with the given sizes; `averageSize` is rounded down to a power of two, and the
  /// sizes are ordered `0 < minimumSize ≤ averageSize ≤ maximumSize`.
  public init(minimumSize: Int, averageSize: Int, maximumSize: Int) {
    precondition(
      0 < minimumSize && minimumSize <= averageSize && averageSize <= maximumSize,
      "chunk sizes must satisfy 0 < minimum ≤ average ≤ maximum")
    let bits = Int.bitWidth - 1 - averageSize.leadingZeroBitCount
    self.minimumSize = minimumSize
    self.averageSize = 1 << bits
    self.maximumSize = maximumSize
    // The gear hash shifts left, so its high bits hold the most recent 64 bytes: test those.
    hardMask = Self.highBits(bits + 2)
    easyMask = Self.highBits(max(1, bits - 2))
  }

  private static func highBits(_ count: Int) -> UInt64 {
    count >= 64 ? .max : ((1 << UInt64(count)) - 1) << UInt64(64 - count)
  }

  /// The length of the chunk that starts at the beginning of `bytes`, which must hold every
  /// byte left (`isEnd`) or at least `maximumSize` bytes.
  public func cutLength(_ bytes: UnsafeRawBufferPointer) -> Int {
    let count = bytes.count
    if count <= minimumSize { return count }
    let end = min(count, maximumSize)
    let normal = min(averageSize, end)
    let gear = GearTable.values
    var hash: UInt64 = 0
    var index = minimumSize
    while index < normal {
      hash = (hash << 1) &+ gear[Int(bytes[index])]
      index += 1
      if hash & hardMask == 0 { return index }
    }
    while index < end {
      hash = (hash << 1) &+ gear[Int(bytes[index])]
      index += 1
      if hash & easyMask == 0 { return index }
    }
    return end
  }

  /// The chunks of `bytes`, in order, as ranges of offsets that together cover all of it.
  public func chunkRanges(of bytes: some ContiguousBytes) -> [Range<Int>] {
    bytes.withUnsafeBytes { buffer in
      var ranges: [Range<Int>] = []
      var start = 0
      while start < buffer.count {
        let length = cutLength(UnsafeRawBufferPointer(rebasing: buffer[start...]))
        ranges.append(start..<start + length)
        start += length
      }
      return ranges
    }
  }
}
