/// Text made safe for XML and HTML: inside elements and inside quoted attributes (the desktop
/// MIME database, SVG thumbnails, the server's public pages).
public enum MarkupText {
  /// `text` with `&`, `<`, `>`, `"` and `'` replaced by their entities.
  public static func escape(_ text: String) -> String {
    // Most text has none of them (a WebDAV listing escapes 10 000 names): returned as it is.
    guard
      text.utf8.contains(where: {
        $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "&")
          || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'")
      })
    else { return text }
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": escaped += "&amp;"
      case "<": escaped += "&lt;"
      case ">": escaped += "&gt;"
      case "\"": escaped += "&quot;"
      case "'": escaped += "&#39;"
      default: escaped.append(character)
      }
    }
    return escaped
  }
}
