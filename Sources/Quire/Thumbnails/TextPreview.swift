/// Renders the first lines of a text as an SVG thumbnail, the way a text document previews.
public enum TextPreview {
  /// An SVG of `size`×`size` points showing up to `lines` lines of `text` on a page.
  public static func svg(_ text: String, size: Int = 256, lines: Int = 12) -> Thumbnail {
    let lineHeight = Double(size) / Double(lines + 2)
    var rows: [String] = []
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines)
      .enumerated()
    {
      let shown = String(line.prefix(40))
      let y = lineHeight * Double(index + 2)
      rows.append("<text x=\"\(Int(lineHeight))\" y=\"\(Int(y))\">\(escape(shown))</text>")
    }
    let fontSize = Int(lineHeight * 0.75)
    return .svg(
      """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 \(size) \(size)">\
      <rect width="\(size)" height="\(size)" fill="#fff" stroke="#ccc"/>\
      <g font-family="sans-serif" font-size="\(fontSize)" fill="#222">\(rows.joined())</g></svg>
      """)
  }

  static func escape(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      default: result.append(character)
      }
    }
    return result
  }
}
