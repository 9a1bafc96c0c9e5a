/// Paths are compared and cut as UTF-8 bytes, never as characters: a name that starts with a
/// combining mark (U+0301) or a character that joins what follows it (U+0600) would otherwise
/// fuse with the "/" beside it, and a prefix test or a cut would miss or split it.
extension String {
  /// Whether its bytes start with `prefix`'s.
  func startsWithBytes(_ prefix: String) -> Bool { utf8.starts(with: prefix.utf8) }

  /// What follows its first `count` bytes (cut at a "/" or at the end of a known prefix).
  func droppingBytes(_ count: Int) -> String {
    String(decoding: utf8.dropFirst(count), as: UTF8.self)
  }

  /// Its text from byte `offset` up to the next "/", and whether there is one: "a/b/c" after
  /// 2 is ("b", true). One string made, not two, for each of a listing's rows.
  func component(after offset: Int) -> (name: String, more: Bool) {
    let rest = utf8.dropFirst(offset)
    guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else {
      return (String(decoding: rest, as: UTF8.self), false)
    }
    return (String(decoding: rest[..<slash], as: UTF8.self), true)
  }

  /// Its text up to its first "/" and whether there is one: "a/b/c" is ("a", true).
  var firstComponent: (name: String, more: Bool) {
    guard let slash = utf8.firstIndex(of: UInt8(ascii: "/")) else { return (self, false) }
    return (String(decoding: utf8[..<slash], as: UTF8.self), true)
  }
}
