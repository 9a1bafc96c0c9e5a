import Foundation
import NIOCore
import QuireSyncProtocol

/// A path in the drive as WebDAV names it: `/dav/Notes/Trip%20plan.txt` is
/// `Documents/Notes/Trip plan.txt` in the container (the drive devices show is its `Documents`
/// folder), and `/dav/` is `Documents` itself. Made only from a checked request path, so it is
/// always a valid ``SyncPath``.
///
/// Its ``view`` says how it reads in URLs and messages: a path in a share is its owner's path,
/// shown under `/dav/Shared with me/`. Two paths are equal when their stored paths are.
struct DAVPath: Hashable, Sendable, CustomStringConvertible {
  /// The path in the container, without a leading or trailing `/`.
  let path: String
  /// How it reads in a URL.
  let view: DAVView

  /// Where the drive's URLs start.
  static let root = "/dav"
  /// The container's folder that is the drive.
  static let scope = "Documents"

  private init(checked path: String, view: DAVView = .drive) {
    self.path = path
    self.view = view
  }

  /// An item's path as the store holds it (checked when it was committed), read in `view`.
  init(stored path: String, view: DAVView = .drive) {
    self.path = path
    self.view = view
  }

  static func == (lhs: DAVPath, rhs: DAVPath) -> Bool { lhs.path == rhs.path }

  func hash(into hasher: inout Hasher) { hasher.combine(path) }

  /// `rest` (a checked relative path, "" for the root) inside `root`, read in `view`: a path
  /// in a share. `invalidPath` if the whole is too long for the sync API.
  static func mounted(_ rest: String, in root: String, view: DAVView) throws(DAVError) -> DAVPath {
    let path = rest.isEmpty ? root : root + "/" + rest
    do {
      try SyncPath.check(path)
    } catch {
      // The store's message quotes the owner's path: name the share's instead.
      throw DAVError(
        .badRequest, error.code,
        "“\(view.shown)/\(rest.prefix(100))…” is too long a path inside this share, or not one the drive takes; shorten it."
      )
    }
    return DAVPath(checked: path, view: view)
  }

  /// The same path read in `view`.
  func viewed(in view: DAVView) -> DAVPath { DAVPath(checked: path, view: view) }

  /// Its path after the drive's root, as the request named it ("" for the drive): where a
  /// request in the account's own drive resolves to a share.
  var rest: String { path.droppingBytes(min(path.utf8.count, Self.scope.utf8.count + 1)) }

  /// The drive itself.
  static let drive = DAVPath(checked: scope)

  /// The path `uriPath` (as sent, percent-encoded) names; `nil` if it is outside `/dav`. A path
  /// the sync API would refuse (`..`, control characters, names over 255 bytes) is `invalidPath`.
  static func parse(_ uriPath: String) throws(DAVError) -> DAVPath? {
    guard uriPath == root || uriPath.startsWithBytes(root + "/") else { return nil }
    let rest = uriPath.droppingBytes(root.utf8.count)
    var names: [String] = []
    for piece in rest.split(separator: "/", omittingEmptySubsequences: true) {
      guard let name = String(piece).removingPercentEncoding else {
        throw DAVError(
          .badRequest, .invalidPath,
          "The path “\(uriPath.prefix(200))” is not percent-encoded UTF-8.")
      }
      names.append(name)
    }
    let path = ([scope] + names).joined(separator: "/")
    do {
      try SyncPath.check(path)
    } catch {
      throw DAVError(.badRequest, error.code, error.message)
    }
    return DAVPath(checked: path)
  }

  /// The path of a `Destination` header (an absolute URL or an absolute path).
  static func destination(_ header: String) throws(DAVError) -> DAVPath {
    var path = header
    if let url = URL(string: header), url.scheme != nil {
      path = url.path(percentEncoded: true)
    }
    guard let parsed = try parse(path) else {
      throw DAVError(
        .badGateway, .forbidden, "The destination “\(header.prefix(200))” is not in this drive.")
    }
    return parsed
  }

  /// Whether this is the drive itself.
  var isDrive: Bool { path == Self.scope }

  /// Its last name.
  var name: String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
    return String(path[path.utf8.index(after: slash)...])
  }

  /// The path of the package that holds `member` here.
  func package(holding member: String) -> String {
    String(decoding: path.utf8.dropLast(member.utf8.count + 1), as: UTF8.self)
  }

  /// The folder that holds it (the drive for a top-level name, and for the drive).
  var parent: DAVPath {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return .drive }
    return DAVPath(checked: String(decoding: path.utf8[..<slash], as: UTF8.self), view: view)
  }

  /// `name` (or a relative path) inside this folder.
  func appending(_ name: String) -> DAVPath {
    DAVPath(checked: path + "/" + name, view: view)
  }

  /// What a path inside this one starts with: "Documents/Notes/".
  var prefix: String { path + "/" }

  /// Whether `other` is this path or inside it.
  func contains(_ other: DAVPath) -> Bool {
    other.path == path || other.path.startsWithBytes(prefix)
  }

  /// `other` (inside this one) moved to the same place inside `target`.
  func rebase(_ other: DAVPath, onto target: DAVPath) -> DAVPath {
    if other.path == path { return target }
    let rest = other.path.droppingBytes(prefix.utf8.count)
    return target.appending(rest)
  }

  /// Its URL path, percent-encoded, with a trailing `/` for a collection.
  func href(collection: Bool) -> String {
    var href = ByteBuffer()
    writeHref(collection: collection, escaped: false, to: &href)
    return String(buffer: href)
  }

  /// Writes ``href(collection:)`` to `output`, as XML text if `escaped` (of the characters XML
  /// escapes, a path segment keeps only "'"). Byte by byte into the answer: Foundation's
  /// percent-encoding was an eighth of a 10 000-item PROPFIND, and a string per href then
  /// escaped was a tenth of what remained.
  func writeHref(collection: Bool, escaped: Bool, to output: inout ByteBuffer) {
    output.writeString(Self.root)
    for part in [view.shown.utf8[...], shownRest] {
      var written = part.startIndex
      // Runs of bytes that need nothing are written whole.
      for index in part.indices {
        let byte = part[index]
        if byte == UInt8(ascii: "/") || Self.allowed[Int(byte)],
          !(escaped && byte == UInt8(ascii: "'"))
        {
          continue
        }
        output.writeBytes(part[written..<index])
        if byte == UInt8(ascii: "'") {
          output.writeStaticString("&#39;")
        } else {
          output.writeInteger(UInt8(ascii: "%"))
          output.writeInteger(Self.hex[Int(byte >> 4)])
          output.writeInteger(Self.hex[Int(byte & 0xF)])
        }
        written = part.index(after: index)
      }
      output.writeBytes(part[written...])
    }
    if collection { output.writeInteger(UInt8(ascii: "/")) }
  }

  private static let hex = Array("0123456789ABCDEF".utf8)

  /// Its bytes after its view's root ("/Notes/x" or ""); nothing for a path outside it (which
  /// no request of the view names).
  private var shownRest: Substring.UTF8View {
    guard path.startsWithBytes(view.root),
      path.utf8.count == view.root.utf8.count
        || path.utf8.dropFirst(view.root.utf8.count).first == UInt8(ascii: "/")
    else { return path.utf8[path.utf8.endIndex...] }
    return path.utf8.dropFirst(view.root.utf8.count)
  }

  /// Which bytes need no encoding in a path segment: RFC 3986's unreserved characters and the
  /// sub-delimiters, ":" and "@".
  private static let allowed: [Bool] = (0..<256).map { byte in
    guard byte < 128 else { return false }
    let character = Character(Unicode.Scalar(UInt8(byte)))
    return character.isASCII && (character.isLetter || character.isNumber)
      || "-._~!$'()*,;=:@".contains(character)
  }

  var description: String {
    let shown = view.shown + String(decoding: shownRest, as: UTF8.self)
    return shown.isEmpty ? "/" : shown
  }
}
