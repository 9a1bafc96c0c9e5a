import NIOCore

/// A live property: computed from what the drive holds, never stored, and refused by
/// PROPPATCH. A listing of 10 000 items writes 80 000 of them, so each writes its element
/// straight into the answer's bytes, with no string of its own.
enum DAVLiveProperty: String, CaseIterable, Sendable {
  case resourcetype, getcontentlength, getlastmodified, getetag, getcontenttype, creationdate
  case supportedlock, lockdiscovery

  /// Its name, in `DAV:`.
  var name: DAVPropertyName { .dav(rawValue) }

  /// The live property named `name`, if it is one.
  init?(_ name: DAVPropertyName) {
    guard name.namespace == "DAV:" else { return nil }
    self.init(rawValue: name.name)
  }

  /// Writes its element for `resource` (which `locks` cover) to `output`; false, with nothing
  /// written, when `resource` has no such property (a collection's length or type, or a
  /// date it does not know).
  func write(of resource: DAVResource, locks: [DAVLock], to output: inout ByteBuffer) -> Bool {
    switch self {
    case .resourcetype:
      output.writeStaticString(
        resource.isCollection
          ? "<D:resourcetype><D:collection/></D:resourcetype>" : "<D:resourcetype/>")
    case .getcontentlength:
      guard !resource.isCollection else { return false }
      output.writeStaticString("<D:getcontentlength>")
      output.writeString(String(resource.size ?? 0))
      output.writeStaticString("</D:getcontentlength>")
    case .getlastmodified:
      guard let modified = resource.modified else { return false }
      output.writeStaticString("<D:getlastmodified>")
      DAVXML.writeHTTPDate(modified, to: &output)
      output.writeStaticString("</D:getlastmodified>")
    case .getetag:
      guard let etag = resource.etag else { return false }
      output.writeStaticString("<D:getetag>\"")
      output.writeString(etag)
      output.writeStaticString("\"</D:getetag>")
    case .getcontenttype:
      guard !resource.isCollection else { return false }
      // One of a handful of fixed types, none with a character XML escapes.
      output.writeStaticString("<D:getcontenttype>")
      output.writeString(PublicPage.contentType(resource.path.name))
      output.writeStaticString("</D:getcontenttype>")
    case .creationdate:
      guard let modified = resource.modified else { return false }
      output.writeStaticString("<D:creationdate>")
      DAVXML.writeISODate(modified, to: &output)
      output.writeStaticString("</D:creationdate>")
    case .supportedlock:
      output.writeStaticString(
        "<D:supportedlock><D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry><D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry></D:supportedlock>"
      )
    case .lockdiscovery:
      guard !locks.isEmpty else {
        output.writeStaticString("<D:lockdiscovery/>")
        return true
      }
      output.writeStaticString("<D:lockdiscovery>")
      for lock in locks { output.writeString(lock.activeLock) }
      output.writeStaticString("</D:lockdiscovery>")
    }
    return true
  }
}
