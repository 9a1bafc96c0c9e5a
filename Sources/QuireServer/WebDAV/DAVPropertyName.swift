import NIOCore

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

  /// Writes the element to `output`, declaring its namespace unless it is `DAV:` (bound to
  /// `D`), with `value` as its contents (XML), or empty.
  func write(_ value: String?, to output: inout ByteBuffer) {
    guard namespace == "DAV:" else {
      output.writeString(otherElement(value))
      return
    }
    output.writeStaticString("<D:")
    output.writeString(name)
    guard let value, !value.isEmpty else {
      output.writeStaticString("/>")
      return
    }
    output.writeStaticString(">")
    output.writeString(value)
    output.writeStaticString("</D:")
    output.writeString(name)
    output.writeStaticString(">")
  }

  private func otherElement(_ value: String?) -> String {
    let tag: String
    let declaration: String
    if namespace.isEmpty {
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
