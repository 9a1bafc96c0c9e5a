import Foundation

/// Reads the entry count an archive's end-of-central-directory record declares, so an archive
/// whose table of contents is cut short is caught instead of imported partly.
enum ArchiveDirectory {
  /// The declared number of entries, or nil if the record cannot be found.
  static func declaredEntryCount(_ path: String) -> Int? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let size = try? handle.seekToEnd(), size >= 22 else { return nil }
    let window = min(size, 65_557)
    try? handle.seek(toOffset: size - window)
    guard let tail = try? handle.read(upToCount: Int(window)) else { return nil }
    let bytes = [UInt8](tail)
    var index = bytes.count - 22
    while index >= 0 {
      if bytes[index] == 0x50 && bytes[index + 1] == 0x4B && bytes[index + 2] == 0x05
        && bytes[index + 3] == 0x06
      {
        let count = Int(bytes[index + 10]) | Int(bytes[index + 11]) << 8
        if count != 0xFFFF { return count }
        return zip64Count(bytes, eocd: index, handle: handle)
      }
      index -= 1
    }
    return nil
  }

  private static func zip64Count(_ bytes: [UInt8], eocd: Int, handle: FileHandle) -> Int? {
    let locator = eocd - 20
    guard locator >= 0, bytes[locator..<locator + 4] == [0x50, 0x4B, 0x06, 0x07] else { return nil }
    let offset = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[locator + 8 + $1]) << (8 * $1) }
    try? handle.seek(toOffset: offset)
    guard let record = try? handle.read(upToCount: 56), record.count == 56 else { return nil }
    let values = [UInt8](record)
    guard values[0..<4] == [0x50, 0x4B, 0x06, 0x06] else { return nil }
    return Int(clamping: (0..<8).reduce(UInt64(0)) { $0 | UInt64(values[32 + $1]) << (8 * $1) })
  }
}
