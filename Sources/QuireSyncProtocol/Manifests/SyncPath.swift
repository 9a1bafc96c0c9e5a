/// The rules every path Quire Sync stores obeys — an item's path in its container and a member's
/// path in its package — so that no device can be made to write outside its folder, and every
/// name can be stored on Linux.
///
/// A path is relative, its components are separated by `/`, none is empty, `.` or `..`, none is
/// longer than 255 bytes, and the whole is at most 4 095 bytes of UTF-8. No path holds a control
/// character (NUL, CR, LF, U+0000–U+001F, U+007F–U+009F) or a bidirectional override, embedding
/// or isolate (U+202A–U+202E, U+2066–U+2069), which would let a name pose as another
/// (“gpj.exe” shown as “exe.jpg”) or break every line-based tool. Paths are compared as bytes
/// of their UTF-8, as given: “é” precomposed (NFC) and decomposed (NFD) are two names, and so are
/// names that differ only in case.
public enum SyncPath {
  /// The longest path accepted, in bytes (Linux's `PATH_MAX` less its NUL).
  public static let maximumLength = 4095

  /// Throws ``SyncError/Code/invalidPath`` naming `path` and the rule it breaks; `what` says
  /// what the path is ("member path", "item path").
  public static func check(_ path: String, what: String = "path") throws(SyncError) {
    func refuse(_ reason: String) -> SyncError {
      let shown = path.utf8.count > 200 ? String(path.prefix(200)) + "…" : path
      return SyncError(
        .invalidPath, "The \(what) “\(shown)” \(reason). Use a relative path of plain names.")
    }
    let bytes = path.utf8
    if bytes.isEmpty { throw refuse("is empty") }
    if bytes.count > maximumLength { throw refuse("is longer than \(maximumLength) bytes") }
    if bytes.first == UInt8(ascii: "/") { throw refuse("is absolute") }
    if bytes.contains(0) { throw refuse("contains a NUL byte") }
    if let odd = path.unicodeScalars.first(where: isRefused) {
      throw refuse(
        "contains the character U+\(String(odd.value, radix: 16, uppercase: true)), a control or bidirectional-override character"
      )
    }
    for component in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
      if component.isEmpty { throw refuse("has an empty component (“//” or a trailing “/”)") }
      if component.elementsEqual(".".utf8) || component.elementsEqual("..".utf8) {
        throw refuse("has a “.” or “..” component")
      }
      if component.count > 255 { throw refuse("has a name longer than 255 bytes") }
    }
  }

  /// Whether `scalar` may not appear in a path: a control character or a bidirectional
  /// override, embedding or isolate.
  static func isRefused(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
