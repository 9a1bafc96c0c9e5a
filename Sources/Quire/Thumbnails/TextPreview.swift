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
      rows.append(
        "<text x=\"\(Int(lineHeight))\" y=\"\(Int(y))\">\(MarkupText.escape(shown))</text>")
    }
    let fontSize = Int(lineHeight * 0.75)
    return .svg(
      """
      <svg xmlns="http://www.w3.org/2000/svg" width="\(size)" height="\(size)" viewBox="0 0 \(size) \(size)">\
      <rect width="\(size)" height="\(size)" fill="#fff" stroke="#ccc"/>\
      <g font-family="sans-serif" font-size="\(fontSize)" fill="#222">\(rows.joined())</g></svg>
      """)
  }

}

extension TextPreview {
  /// A PNG of a page with one grey bar per line, as long as the line: the shape of the text, for
  /// places that need a raster image.
  public static func png(_ text: String, size: Int = 256, lines: Int = 16) throws(QuireError)
    -> Thumbnail
  {
    var pixels = [UInt8](repeating: 255, count: size * size * 4)
    let margin = size / 10
    let lineHeight = (size - 2 * margin) / lines
    let width = size - 2 * margin
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(lines)
      .enumerated()
    {
      let length = min(width, line.count * width / 40)
      let top = margin + index * lineHeight
      for y in top..<(top + max(1, lineHeight / 2)) {
        for x in margin..<(margin + length) {
          let offset = (y * size + x) * 4
          pixels[offset] = 90
          pixels[offset + 1] = 90
          pixels[offset + 2] = 90
        }
      }
    }
    return .png(try RasterImage(width: size, height: size, pixels: pixels).pngData())
  }
}
