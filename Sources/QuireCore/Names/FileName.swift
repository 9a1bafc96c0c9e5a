/// Rules for the names of members and documents, and the names Quire makes for copies (“Name 2”,
/// “Name (conflicted copy)”, “Name (my changes)”), which always stay within the limits.
package enum FileName {
  /// The longest name Linux file systems accept, in bytes.
  package static let maximumLength = 255

  /// Throws unless `name` is a single, valid Linux file name: not empty, not `.` or `..`,
  /// without `/` or NUL, and at most 255 bytes of UTF-8.
  package static func validate(_ name: String, in path: String? = nil) throws(QuireError) {
    let problem: String? =
      if name.isEmpty { "is empty" } else if name == "." || name == ".." {
        "is “.” or “..”"
      } else if name.utf8.contains(0x2F) { "contains “/”" } else if name.utf8.contains(0) {
        "contains a NUL character"
      } else if name.utf8.count > maximumLength { "is longer than \(maximumLength) bytes" } else {
        nil
      }
    if let problem {
      let place = path.map { " in “\($0)”" } ?? ""
      throw QuireError(
        .invalidName, "The name “\(name)”\(place) \(problem); choose a plain file name.", path: path
      )
    }
  }

  /// The first free name (by `isTaken`) made from `name` by inserting `marker(n)`, for n = 1,
  /// 2, …, before its extension: by default `name` itself, then `name 2`, `name 3`, … with the
  /// extension kept at the end (`image 2.png`, `Document 2.mydoc`). Every candidate fits in
  /// `limit` bytes (``fitted(_:marker:limit:)``), so a long name never yields one no file
  /// system can hold.
  package static func unique<Failure: Error>(
    _ name: String, limit: Int = maximumLength,
    marker: (Int) -> String = { $0 == 1 ? "" : " \($0)" },
    isTaken: (String) throws(Failure) -> Bool
  ) throws(Failure) -> String {
    var number = 1
    while true {
      let candidate = fitted(name, marker: marker(number), limit: limit)
      if try !isTaken(candidate) { return candidate }
      number += 1
    }
  }

  /// `name` with `marker` before its extension, shortened to at most `limit` bytes of UTF-8:
  /// the stem loses whole characters from its end, and an extension too long to keep beside
  /// the marker goes (the marker, which tells the copies apart, always stays).
  package static func fitted(_ name: String, marker: String, limit: Int = maximumLength)
    -> String
  {
    let (stem, suffix) = split(name)
    let tail = marker.utf8.count + suffix.utf8.count > limit ? marker : marker + suffix
    var shortened = Substring(stem)
    var bytes = shortened.utf8.count
    while !shortened.isEmpty, bytes + tail.utf8.count > limit {
      bytes -= shortened.removeLast().utf8.count
    }
    return shortened + tail
  }

  /// Splits `image.png` into `image` and `.png`; a leading dot does not start an extension.
  package static func split(_ name: String) -> (stem: String, suffix: String) {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
    return (String(name[..<dot]), String(name[dot...]))
  }
}
