import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// "Shared with me": what other accounts share with this one, at `/dav/Shared with me/NAME`,
/// read and (in the write role) written in the owner's container, as the participant's devices
/// sync it. A read-only share refuses every write with 403.
extension DAVRoutes {
  /// Where `path` (parsed in the account's own drive) leads: a share's path when it is under
  /// "Shared with me", else the account's own drive. Only a request under "Shared with me"
  /// reads the account's shares.
  func place(_ path: DAVPath, account: Int64) throws(DAVError) -> DAVPlace {
    let rest = path.rest
    let folder = DAVStore.sharedFolder
    guard path.view == .drive, rest.startsWithBytes(folder),
      rest.utf8.count == folder.utf8.count
        || rest.utf8.dropFirst(folder.utf8.count).first == UInt8(ascii: "/")
    else { return .mounted(.own(account), path) }
    guard rest.utf8.count > folder.utf8.count + 1 else { return .sharedWithMe(path) }
    let (name, deeper) = rest.droppingBytes(folder.utf8.count + 1).firstComponent
    guard let mount = try sharedMounts(account: account).first(where: { $0.name == name })?.mount
    else {
      guard !deeper else { throw DAVError.notFound(path) }
      return .sharedWithMe(path)
    }
    // A shared folder emptied, or a shared document the owner no longer has: nothing is there,
    // and nothing may be made in its place outside the share.
    guard
      try store.dav.wrap({ () throws(SyncError) in
        try store.dav.resource(at: mount.root, drive: mount.drive)
      }) != nil
    else { throw DAVError.notFound(mount.root) }
    let inside = rest.droppingBytes(folder.utf8.count + 1 + name.utf8.count + 1)
    return .mounted(mount, try DAVPath.mounted(inside, in: mount.root.path, view: mount.root.view))
  }

  /// What other accounts share with `account`, by their names in "Shared with me".
  func sharedMounts(account: Int64) throws(DAVError) -> [(name: String, mount: DAVMount)] {
    try store.dav.wrap { () throws(SyncError) in try store.dav.sharedMounts(account: account) }
  }

  /// A request for "Shared with me" itself: PROPFIND lists the shares (each in its owner's
  /// container, with its properties there); nothing can be written in it. At a name there
  /// that no share has (`path`), a read is 404 and a write 403.
  func sharedWithMe(_ request: Request, path: DAVPath, account: Int64) async throws -> Response {
    let here = DAVResource(path: DAVPath.drive.appending(DAVStore.sharedFolder), kind: .folder)
    if path != here.path {
      switch request.method.rawValue {
      case "PUT", "MKCOL", "LOCK", "PROPPATCH":
        throw DAVError(
          .forbidden, .forbidden,
          "“\(here.path)” holds what other accounts share with you, and nothing else; keep your own files elsewhere in the drive."
        )
      default: throw DAVError.notFound(path)
      }
    }
    switch request.method.rawValue {
    case "PROPFIND" where request.headers[HTTPField.Name("Depth")!] != "0":
      return try await heavy.run("dav:\(account)") {
        try await listShares(request, here: here, account: account)
      }
    case "PROPFIND":
      return try await listShares(request, here: here, account: account)
    case "GET" where Self.wantsListing(request):
      return try await heavy.run("dav:\(account)") { try sharedListing(account: account) }
    case "GET", "HEAD":
      throw DAVError(
        .methodNotAllowed, .forbidden,
        "“\(here.path)” is a folder; list it with PROPFIND.")
    case "UNLOCK":
      throw DAVError(
        .conflict, .notFound, "No lock covers “\(here.path)”.",
        precondition: "lock-token-matches-request-uri")
    default:
      throw DAVError(
        .forbidden, .forbidden,
        "“\(here.path)” holds what other accounts share with you, and nothing else; keep your own files elsewhere in the drive."
      )
    }
  }

  /// PROPFIND of "Shared with me": itself, and at depth 1 each share's item or folder, read
  /// in its owner's container with its properties there.
  private func listShares(_ request: Request, here: DAVResource, account: Int64) async throws
    -> Response
  {
    let depth = try Self.depth(request, of: here)
    let query = try await Self.propertyQuery(request)
    var output = ByteBuffer(string: DAVXML.multistatusStart)
    try properties(
      of: [here], root: here, deep: false, in: .own(account), seenBy: account, query,
      to: &output)
    if depth == "1" {
      for (_, mount) in try sharedMounts(account: account) {
        guard
          let shared = try store.dav.wrap({ () throws(SyncError) in
            try store.dav.resource(at: mount.root, drive: mount.drive)
          })
        else { continue }
        try properties(
          of: [shared], root: shared, deep: false, in: mount.drive, seenBy: account, query,
          to: &output)
      }
    }
    output.writeString(DAVXML.multistatusEnd)
    return Self.multistatus(output)
  }
}
