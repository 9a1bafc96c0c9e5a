/// A WebDAV property's name: a namespace URI and a local name.
struct DAVPropertyName: Hashable, Sendable {
  /// The namespace URI ("DAV:" for the live properties).
  var namespace: String
  /// The local name.
  var name: String

  /// `name` in `DAV:`.
  static func dav(_ name: String) -> DAVPropertyName {
    DAVPropertyName(namespace: "DAV:", name: name)
  }

  /// The element, declaring its namespace unless it is `DAV:` (bound to `D`), with `value` as
  /// its contents (XML), or empty.
  func element(_ value: String?) -> String {
    var output = ""
    write(value, to: &output)
    return output
  }

  /// The same, appended to `output`.
  func write(_ value: String?, to output: inout String) {
    if namespace == "DAV:" {  // the common case, without building the tag first
      output += "<D:"
      output += name
      guard let value, !value.isEmpty else {
        output += "/>"
        return
      }
      output += ">"
      output += value
      output += "</D:"
      output += name
      output += ">"
      return
    }
    output += otherElement(value)
  }

  private func otherElement(_ value: String?) -> String {
    let tag: String
    let declaration: String
    if namespace == "DAV:" {
      tag = "D:" + name
      declaration = ""
    } else if namespace.isEmpty {
      tag = name
      declaration = " xmlns=\"\""
    } else {
      tag = "p:" + name
      declaration = " xmlns:p=\"\(DAVXML.escape(namespace))\""
    }
    guard let value, !value.isEmpty else { return "<\(tag)\(declaration)/>" }
    return "<\(tag)\(declaration)>\(value)</\(tag)>"
  }
}
