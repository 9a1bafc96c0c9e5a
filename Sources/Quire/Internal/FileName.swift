/// Rules for the names of members and documents.
enum FileName {
  /// The longest name Linux file systems accept, in bytes.
  static let maximumLength = 255

  /// Throws unless `name` is a single, valid Linux file name: not empty, not `.` or `..`,
  /// without `/` or NUL, and at most 255 bytes of UTF-8.
  static func validate(_ name: String, in path: String? = nil) throws(QuireError) {
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

  /// `name` if `isTaken` says it is free, else the first free of `name 2`, `name 3`, … with the
  /// extension kept at the end (`image 2.png`, `Document 2.mydoc`).
  static func unique(_ name: String, isTaken: (String) -> Bool) -> String {
    guard isTaken(name) else { return name }
    let (stem, suffix) = split(name)
    var number = 2
    while true {
      let candidate = "\(stem) \(number)\(suffix)"
      if !isTaken(candidate) { return candidate }
      number += 1
    }
  }

  /// Splits `image.png` into `image` and `.png`; a leading dot does not start an extension.
  static func split(_ name: String) -> (stem: String, suffix: String) {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
    return (String(name[..<dot]), String(name[dot...]))
  }
}
