import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// GET of a collection, which RFC 4918 §9.4 leaves to the server: the web drive's listing as
/// JSON (``WebListing``, when the request accepts `application/json`), and a package as its
/// zip archive (`?archive`). Anything else is refused as before: a file manager lists with
/// PROPFIND.
extension DAVRoutes {
  /// The answer to a GET of `path` if it is a collection the request asks one of these of;
  /// nil for everything else (a file's or a member's GET).
  func collection(_ request: Request, path: DAVPath, mount: DAVMount) throws -> Response? {
    guard Self.wantsListing(request) || request.uri.queryParameters["archive"] != nil,
      let resource = try store.dav.wrap({ () throws(SyncError) in
        try store.dav.resource(at: path, drive: mount.drive)
      }), resource.isCollection
    else { return nil }
    if request.uri.queryParameters["archive"] != nil {
      guard case .package(let item, let revision) = resource.kind else {
        throw DAVError(
          .methodNotAllowed, .forbidden,
          "“\(path)” is a folder; only a package downloads as one archive.")
      }
      let members = try store.dav.wrap { () throws(SyncError) in
        try store.dav.members(item: item, revision: revision, drive: mount.drive)
      }
      return try PublicPage.archiveResponse(
        LinkedDocument(
          account: mount.drive.owner, path: path.name, kind: .package, members: members),
        store: store)
    }
    // Inside a share, the page follows the share's journal from here: read before the
    // listing, so no change falls between.
    let follow = try mount.share.map { share in
      WebListing.Follow(
        share: share,
        since: try store.dav.wrap { () throws(SyncError) in
          try store.commits.journalHead(
            container: mount.drive.container, user: mount.drive.owner)
        })
    }
    var children = try store.dav.wrap { () throws(SyncError) in
      try store.dav.children(of: resource, drive: mount.drive)
    }
    if path.isDrive, mount.access == .owner,
      !children.contains(where: { $0.path.name == DAVStore.sharedFolder }),
      try !sharedMounts(account: mount.drive.owner).isEmpty
    {
      children.append(DAVResource(path: path.appending(DAVStore.sharedFolder), kind: .folder))
    }
    var listing = WebListing(children, access: mount.access)
    listing.follow = follow
    let packages = listing.entries.filter { $0.kind == "package" }.compactMap(\.item)
    let thumbnails = try store.dav.wrap { () throws(SyncError) in
      try store.dav.thumbnails(of: packages, drive: mount.drive)
    }
    for index in listing.entries.indices {
      listing.entries[index].thumbnail = listing.entries[index].item.flatMap { thumbnails[$0] }
    }
    return Self.listing(listing)
  }

  /// The listing of "Shared with me": each share's item or folder, read in its owner's
  /// container; nothing may be made in it.
  func sharedListing(account: Int64) throws -> Response {
    var children: [DAVResource] = []
    for (name, mount) in try sharedMounts(account: account) {
      guard
        var shared = try store.dav.wrap({ () throws(SyncError) in
          try store.dav.resource(at: mount.root, drive: mount.drive)
        })
      else { continue }
      shared.path = DAVPath.drive.appending(DAVStore.sharedFolder).appending(name)
      children.append(shared)
    }
    return Self.listing(WebListing(children, access: .reader))
  }

  /// Whether `request` asks for JSON rather than a collection's bytes.
  static func wantsListing(_ request: Request) -> Bool {
    request.headers[.accept]?.contains("application/json") ?? false
  }

  private static func listing(_ listing: WebListing) -> Response {
    var response = ServerResponse.json(listing)
    response.headers[.cacheControl] = "no-store"
    return response
  }
}
