/// What a PROPFIND asks for (RFC 4918 §9.1): every property, their names, or some.
enum DAVPropertyQuery: Sendable {
  /// `allprop` (or an empty body).
  case all
  /// `propname`.
  case names
  /// `prop`: these.
  case properties([DAVPropertyName])

  /// The query `body` (a `propfind` element, or nil) makes.
  init(_ body: DAVElement?) throws(DAVError) {
    guard let body else {
      self = .all
      return
    }
    guard body.namespace == "DAV:", body.name == "propfind" else {
      throw DAVError(.badRequest, .malformed, "A PROPFIND body is a DAV:propfind element.")
    }
    if let prop = body.child("prop") {
      self = .properties(
        prop.children.map { DAVPropertyName(namespace: $0.namespace, name: $0.name) })
    } else if body.child("propname") != nil {
      self = .names
    } else if body.child("allprop") != nil {
      self = .all
    } else {
      throw DAVError(
        .badRequest, .malformed, "A DAV:propfind holds DAV:prop, DAV:propname or DAV:allprop.")
    }
  }
}
