import Foundation

/// Reads an archive's own table of contents, for what ZIPFoundation does not tell: the entry
/// count the end record declares (so an archive whose table of contents is cut short is caught
/// instead of imported partly), and each entry's modification time as its writer meant it.
enum ArchiveDirectory {
  /// Where the central directory is and how many entries it declares.
  struct Location {
    var count: Int
    var offset: UInt64
    var size: UInt64
  }

  /// The declared number of entries, or nil if the record cannot be found.
  static func declaredEntryCount(_ path: String) -> Int? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    return locate(handle)?.count
  }

  /// Each entry's modification time by name: Info-ZIP's extended timestamp (UTC) when the entry
  /// has one, else its MS-DOS time read as local time, which is how `zip` writes it. Empty when
  /// the directory cannot be read (the import then fails on its own checks).
  static func modificationTimes(_ path: String) -> [String: Date] {
    guard let handle = FileHandle(forReadingAtPath: path) else { return [:] }
    defer { try? handle.close() }
    guard let location = locate(handle), location.size < 1 << 31,
      (try? handle.seek(toOffset: location.offset)) != nil,
      let directory = try? handle.read(upToCount: Int(location.size))
    else { return [:] }
    let bytes = [UInt8](directory)
    var times: [String: Date] = [:]
    times.reserveCapacity(location.count)
    var index = 0
    while index + 46 <= bytes.count, ZipBytes.read(UInt32.self, bytes, at: index) == 0x0201_4b50 {
      let nameLength = Int(ZipBytes.read(UInt16.self, bytes, at: index + 28))
      let extraLength = Int(ZipBytes.read(UInt16.self, bytes, at: index + 30))
      let commentLength = Int(ZipBytes.read(UInt16.self, bytes, at: index + 32))
      let nameStart = index + 46
      let extraStart = nameStart + nameLength
      guard extraStart + extraLength <= bytes.count else { break }
      if let name = String(validating: bytes[nameStart..<extraStart], as: UTF8.self) {
        let key = name.hasSuffix("/") && name.count > 1 ? String(name.dropLast()) : name
        times[key] =
          extendedTimestamp(bytes, from: extraStart, length: extraLength)
          ?? localDate(
            time: ZipBytes.read(UInt16.self, bytes, at: index + 12),
            date: ZipBytes.read(UInt16.self, bytes, at: index + 14))
      }
      index = extraStart + extraLength + commentLength
    }
    return times
  }

  /// The modification time of an extended-timestamp field (0x5455) among the extra fields.
  private static func extendedTimestamp(_ bytes: [UInt8], from start: Int, length: Int) -> Date? {
    var field = start
    while field + 4 <= start + length {
      let id = ZipBytes.read(UInt16.self, bytes, at: field)
      let size = Int(ZipBytes.read(UInt16.self, bytes, at: field + 2))
      if id == 0x5455, size >= 5, bytes[field + 4] & 1 != 0, field + 9 <= start + length {
        let seconds = Int32(bitPattern: ZipBytes.read(UInt32.self, bytes, at: field + 5))
        return Date(timeIntervalSince1970: TimeInterval(seconds))
      }
      field += 4 + size
    }
    return nil
  }

  /// An MS-DOS date and time, taken as local time.
  private static func localDate(time: UInt16, date: UInt16) -> Date {
    var parts = tm()
    parts.tm_sec = Int32(time & 0x1F) * 2
    parts.tm_min = Int32(time >> 5 & 0x3F)
    parts.tm_hour = Int32(time >> 11)
    parts.tm_mday = Int32(date & 0x1F)
    parts.tm_mon = Int32(date >> 5 & 0x0F) - 1
    parts.tm_year = Int32(date >> 9) + 80
    parts.tm_isdst = -1
    return Date(timeIntervalSince1970: TimeInterval(mktime(&parts)))
  }

  /// Finds the end record (and the ZIP64 one it points to, when counts or offsets overflow).
  static func locate(_ handle: FileHandle) -> Location? {
    guard let size = try? handle.seekToEnd(), size >= 22 else { return nil }
    let window = min(size, 65_557)
    try? handle.seek(toOffset: size - window)
    guard let tail = try? handle.read(upToCount: Int(window)) else { return nil }
    let bytes = [UInt8](tail)
    var index = bytes.count - 22
    while index >= 0 {
      if ZipBytes.read(UInt32.self, bytes, at: index) == 0x0605_4b50 {
        let count = ZipBytes.read(UInt16.self, bytes, at: index + 10)
        let directorySize = ZipBytes.read(UInt32.self, bytes, at: index + 12)
        let offset = ZipBytes.read(UInt32.self, bytes, at: index + 16)
        if count != 0xFFFF && directorySize != .max && offset != .max {
          return Location(count: Int(count), offset: UInt64(offset), size: UInt64(directorySize))
        }
        return zip64(bytes, eocd: index, handle: handle)
      }
      index -= 1
    }
    return nil
  }

  private static func zip64(_ bytes: [UInt8], eocd: Int, handle: FileHandle) -> Location? {
    let locator = eocd - 20
    guard locator >= 0, ZipBytes.read(UInt32.self, bytes, at: locator) == 0x0706_4b50 else {
      return nil
    }
    try? handle.seek(toOffset: ZipBytes.read(UInt64.self, bytes, at: locator + 8))
    guard let record = try? handle.read(upToCount: 56), record.count == 56 else { return nil }
    let values = [UInt8](record)
    guard ZipBytes.read(UInt32.self, values, at: 0) == 0x0606_4b50 else { return nil }
    return Location(
      count: Int(clamping: ZipBytes.read(UInt64.self, values, at: 32)),
      offset: ZipBytes.read(UInt64.self, values, at: 48),
      size: ZipBytes.read(UInt64.self, values, at: 40))
  }
}
