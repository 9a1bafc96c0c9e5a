import Foundation
import QuireSyncProtocol

/// What is at a path of the drive, with what PROPFIND reports of it.
struct DAVResource: Sendable {
  /// What kind of thing it is.
  enum Kind: Sendable, Equatable {
    /// The drive, or a folder (made by MKCOL, or holding items).
    case folder
    /// A flat document: its one member's bytes.
    case file(item: String, revision: Int64)
    /// A package, shown as a collection of its members.
    case package(item: String, revision: Int64)
    /// A folder inside package `item` (`member` is its path in the package).
    case memberFolder(item: String, revision: Int64, member: String)
    /// A member of package `item`.
    case member(item: String, revision: Int64, member: String)
  }

  /// Where it is.
  var path: DAVPath
  /// What it is.
  var kind: Kind
  /// Its size in bytes (a file's or a member's).
  var size: Int?
  /// When it last changed, in seconds since 1970.
  var modified: Double?
  /// Its strong entity tag, without quotes: a content hash, or a package's revision.
  var etag: String?

  /// The entity tag of contents whose hash is `hex` (nil: empty): its first 128 bits, which
  /// tell contents apart as surely, and keep an `If` header with two of them short enough for
  /// clients with fixed header buffers (litmus cuts a header at about 170 bytes).
  static func etag(hex: String?) -> String {
    // By bytes: a String's `prefix` walks characters, a tenth of a 10 000-item listing.
    String(decoding: (hex ?? ContentHash(of: []).hex).utf8.prefix(32), as: UTF8.self)
  }

  /// Whether WebDAV shows it as a collection.
  var isCollection: Bool {
    switch kind {
    case .folder, .package, .memberFolder: true
    case .file, .member: false
    }
  }

  /// The item it is, or is inside, with the member path within it (empty for a flat file).
  var item: (item: String, revision: Int64, member: String)? {
    switch kind {
    case .folder: nil
    case .file(let item, let revision): (item, revision, "")
    case .package(let item, let revision): (item, revision, "")
    case .memberFolder(let item, let revision, let member): (item, revision, member)
    case .member(let item, let revision, let member): (item, revision, member)
    }
  }
}
