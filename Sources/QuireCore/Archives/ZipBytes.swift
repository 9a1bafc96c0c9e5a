import Foundation

/// Little-endian fields of a ZIP record.
package struct ZipBytes {
  package var data = Data()
  package mutating func u8(_ value: UInt8) { data.append(value) }
  package mutating func u16(_ value: UInt16) { append(value) }
  package mutating func u32(_ value: UInt32) { append(value) }
  package mutating func u64(_ value: UInt64) { append(value) }

  private mutating func append(_ value: some FixedWidthInteger) {
    withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
  }

  /// The little-endian integer of `type` at `offset` of `bytes`.
  package static func read<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], at offset: Int)
    -> T
  {
    (0..<MemoryLayout<T>.size).reduce(T(0)) { $0 | T(bytes[offset + $1]) << (8 * $1) }
  }
}
