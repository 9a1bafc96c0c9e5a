import Foundation
import QuireSyncProtocol

/// A folder's or a package's children as the web drive shows them: the JSON answer to a GET of
/// a WebDAV collection that asks for `application/json` (WebDAV leaves a collection's GET to the
/// server; Apache answers an HTML index). A package is a document here, not a folder.
struct WebListing: Encodable, Sendable {
  /// One child.
  struct Entry: Encodable, Sendable, Equatable {
    /// Its name in the folder.
    var name: String
    /// `folder`, `package` (a document made of members), `file`, or `member` (a file inside a
    /// package).
    var kind: String
    /// Its size in bytes (files and members).
    var size: Int?
    /// When it last changed, in seconds since 1970.
    var modified: Double?
    /// Its strong entity tag, as WebDAV gives it.
    var etag: String?
    /// Its item's identity in the drive's container (documents), for versions and links.
    var item: String?
    /// A package's thumbnail, the path of its member that holds it, if it has one.
    var thumbnail: String? = nil
  }

  /// The journal that tells of changes in a place shared with the account: the share's
  /// events (`/v1/shares/{share}/events?since=`), which the page follows while it shows the
  /// place. The account's own drive is followed at `/web/events`.
  struct Follow: Encodable, Sendable, Equatable {
    /// The share's identity.
    var share: String
    /// Its journal's position when the place was listed.
    var since: Int64
  }

  /// What it lists: whether the signed-in account may change it (`owner`, `writer` or
  /// `reader`).
  var access: String
  /// The children, folders first, then by name.
  var entries: [Entry]
  /// In a share, its journal to follow; nil in the account's own drive.
  var follow: Follow? = nil

  /// The listing of `children` in a place where the account has `access`.
  init(_ children: [DAVResource], access: DAVMount.Access) {
    self.access =
      switch access {
      case .owner: "owner"
      case .writer: "writer"
      case .reader: "reader"
      }
    entries = children.map(Self.entry).sorted {
      ($0.kind == "folder" ? 0 : 1, $0.name.lowercased())
        < ($1.kind == "folder" ? 0 : 1, $1.name.lowercased())
    }
  }

  /// The entry of `resource`.
  static func entry(_ resource: DAVResource) -> Entry {
    let kind =
      switch resource.kind {
      case .folder, .memberFolder: "folder"
      case .package: "package"
      case .file: "file"
      case .member: "member"
      }
    let item: String? =
      switch resource.kind {
      case .file(let item, _), .package(let item, _): item
      default: nil
      }
    return Entry(
      name: resource.path.name, kind: kind, size: resource.isCollection ? nil : resource.size ?? 0,
      modified: resource.modified, etag: resource.etag, item: item)
  }
}
