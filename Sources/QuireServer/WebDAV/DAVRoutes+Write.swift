import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// PUT, DELETE, MKCOL, COPY, MOVE and PROPPATCH: each a commit (or the folder rows and
/// properties WebDAV keeps beside them).
extension DAVRoutes {
  /// PUT: a new revision of the file (based on the one `If-Match` names, when it still is the
  /// current one), a member of a package, or a new document. 201 if new, else 204. The body is
  /// checked for before it is read, then cut into chunks and stored as it arrives (DAVUpload):
  /// a PUT of 256 MiB does not hold 256 MiB.
  func put(_ request: Request, path: DAVPath, mount: DAVMount, device: AuthenticatedDevice)
    async throws -> Response
  {
    guard !path.isDrive else {
      throw DAVError(.methodNotAllowed, .forbidden, "The drive is a folder; PUT a file into it.")
    }
    try mount.checkWrite(changing: [path])
    let ifMatch = request.headers[.ifMatch]
    let ifNoneMatch = request.headers[.ifNoneMatch]
    let (target, parent, locks) = try store.dav.putTarget(at: path, drive: mount.drive) {
      (target) throws(DAVError) in
      try Self.check(ifMatch: ifMatch, ifNoneMatch: ifNoneMatch, target, path)
      return try checkWrite(
        request, path: path, paths: [path], membership: target == nil, mount: mount)
    }
    if let length = request.headers[.contentLength].flatMap(Int.init),
      length > Self.maximumPutBytes
    {
      throw Self.tooLarge
    }
    let dav = store.dav
    var upload = DAVUpload { frames throws(DAVError) in
      try dav.storeFrames(frames, drive: mount.drive)
    }
    for try await buffer in request.body {
      guard upload.size + buffer.readableBytes <= Self.maximumPutBytes else { throw Self.tooLarge }
      try upload.append(buffer.readableBytesView)
    }
    let contents = try upload.finish()
    let (created, commit) = store.dav.put(contents, at: path, target: target, parent: parent)
    try self.commit(commit, mount: mount, device: device, locks: locks)
    return Response(
      status: created ? .created : .noContent,
      headers: [.eTag: "\"\(DAVResource.etag(hex: contents.hash.hex))\"", .contentLength: "0"])
  }

  /// A PUT over ``maximumPutBytes``.
  static let tooLarge = DAVError(
    .contentTooLarge, .tooLarge,
    "A file sent over WebDAV is at most \(maximumPutBytes >> 20) MiB; sync larger files with a device."
  )

  /// `If-Match` and `If-None-Match` against `target` (RFC 9110 §13.1): 412 if they fail.
  static func check(
    ifMatch: String?, ifNoneMatch: String?, _ target: DAVResource?, _ path: DAVPath
  ) throws(DAVError) {
    let tag = target?.etag.map { "\"\($0)\"" }
    if let ifMatch {
      let matches = ifMatch == "*" ? target != nil : tag.map { ifMatch.contains($0) } ?? false
      guard matches else {
        throw DAVError.precondition(
          "“\(path)” changed since you read it (its ETag is not the one If-Match names). Read it again."
        )
      }
    }
    if let ifNoneMatch, target != nil {
      if ifNoneMatch == "*" || tag.map({ ifNoneMatch.contains($0) }) == true {
        throw DAVError.precondition("“\(path)” exists already (If-None-Match).")
      }
    }
  }

  /// DELETE: the item (every item of a folder) is deleted, as a device deletes it; versions
  /// keep it, and an edit made meanwhile on a device wins.
  func delete(
    _ request: Request, path: DAVPath, mount: DAVMount, device: AuthenticatedDevice
  ) throws -> Response {
    let resource = try existing(path, drive: mount.drive)
    try mount.checkWrite(changing: [path], removing: [path])
    try Self.check(
      ifMatch: request.headers[.ifMatch], ifNoneMatch: nil, resource, path)
    let locks = try checkWrite(
      request, path: path, paths: [path], trees: [path], membership: true, mount: mount)
    try commit(
      try store.dav.deletion(of: resource, drive: mount.drive), mount: mount, device: device,
      locks: locks)
    return Response(status: .noContent)
  }

  /// MKCOL: an empty folder (a body is refused with 415, as RFC 4918 §9.3 says).
  func mkcol(_ request: Request, path: DAVPath, mount: DAVMount) async throws -> Response {
    try mount.checkWrite(changing: [path])
    let body = try await Self.body(request, limit: Self.maximumXMLBytes)
    guard body.isEmpty else {
      throw DAVError(
        .unsupportedMediaType, .malformed, "MKCOL takes no body here; send it without one.")
    }
    try checkWrite(request, path: path, paths: [path], membership: true, mount: mount)
    try store.dav.makeFolder(at: path, drive: mount.drive)
    return Response(status: .created, headers: [.contentLength: "0"])
  }

  /// COPY and MOVE, with `Destination`, `Overwrite` (T unless F) and, for a COPY of a folder,
  /// `Depth` 0 or infinity.
  func transfer(
    _ request: Request, path: DAVPath, mount: DAVMount, device: AuthenticatedDevice, move: Bool
  ) throws -> Response {
    guard let header = request.headers[HTTPField.Name("Destination")!] else {
      throw DAVError(
        .badRequest, .malformed, "\(move ? "MOVE" : "COPY") needs a Destination header.")
    }
    guard
      case .mounted(let destination, let target) = try place(
        try DAVPath.destination(header), account: device.user), destination.isSame(as: mount)
    else {
      throw DAVError(
        .forbidden, .forbidden,
        "A \(move ? "MOVE" : "COPY") stays in your drive or in one share; to take “\(path)” elsewhere, download it and upload it there."
      )
    }
    let overwrite = request.headers[HTTPField.Name("Overwrite")!]?.uppercased() != "F"
    let depth = request.headers[HTTPField.Name("Depth")!] ?? "infinity"
    guard depth == "infinity" || (depth == "0" && !move) else {
      throw DAVError(
        .badRequest, .malformed,
        "\(move ? "MOVE takes Depth infinity" : "COPY takes Depth 0 or infinity"), not \(depth.prefix(20))."
      )
    }
    let source = try existing(path, drive: mount.drive)
    try mount.checkWrite(
      changing: move ? [target, path] : [target], removing: move ? [path, target] : [target])
    let locks = try checkWrite(
      request, path: path, paths: move ? [path, target] : [target],
      trees: move ? [path, target] : [target], membership: true, mount: mount)
    if move, depth == "infinity", case .folder = source.kind,
      try moveFolder(source.path, to: target, mount: mount, device: device)
    {
      return Response(status: .created, headers: [.contentLength: "0"])
    }
    let (created, commit) = try store.dav.transfer(
      source, to: target, move: move, overwrite: overwrite, deep: depth != "0",
      drive: mount.drive)
    try self.commit(commit, mount: mount, device: device, locks: locks)
    return Response(status: created ? .created : .noContent, headers: [.contentLength: "0"])
  }

  /// A MOVE of the folder `source` in the account's own drive to the new path `target`, as one
  /// folder move (``CommitStore/moveFolder(_:container:device:)``): one commit and one journal
  /// entry, which devices apply as one rename. False, with nothing done, where the folder move
  /// does not apply (a target that exists or has no folder, a share's mount, a folder with no
  /// item, a shared folder across the move, a lock): the items then move one by one.
  private func moveFolder(
    _ source: DAVPath, to target: DAVPath, mount: DAVMount, device: AuthenticatedDevice
  ) throws(DAVError) -> Bool {
    guard mount.access == .owner, mount.share == nil else { return false }
    let (existing, parent) = try store.dav.wrap { () throws(SyncError) in
      (
        try store.dav.resource(at: target, drive: mount.drive),
        try store.dav.resource(at: target.parent, drive: mount.drive)
      )
    }
    guard existing == nil, parent?.isCollection == true else { return false }
    let request = FolderMoveRequest(
      commit: UUID().uuidString, move: FolderMove(from: source.path, to: target.path))
    let moved: [Int64]
    do {
      moved = try store.commits.moveFolder(
        request, container: mount.drive.container, device: mount.committer(device)
      ).sharesMoved
    } catch {
      if [.notFound, .alreadyExists, .forbidden, .locked, .malformed].contains(error.code) {
        return false
      }
      throw DAVError(SyncError(error.code, error.message))
    }
    signal.wake(mount.drive.signalKey)  // the commit told the other replicas
    if !moved.isEmpty {
      signal.notify(ShareRoutes.sharesKey(mount.drive.owner))
      for participant in Set(moved) { signal.notify(ShareRoutes.sharesKey(participant)) }
    }
    // The folder that held it stays, though the move may have taken its last item away.
    var kept = DAVCommit()
    kept.keptFolders = [source.parent]
    try store.dav.finish(kept, drive: mount.drive)
    return true
  }

  /// PROPPATCH: sets and removes dead properties, all or none (RFC 4918 §9.2). Live properties
  /// are protected: asking to change one fails the whole request (403 for it, 424 for the rest).
  func proppatch(_ request: Request, path: DAVPath, mount: DAVMount) async throws -> Response {
    let body = try DAVElement.parse(try await Self.body(request, limit: Self.maximumXMLBytes))
    guard let body, body.namespace == "DAV:", body.name == "propertyupdate" else {
      throw DAVError(.badRequest, .malformed, "A PROPPATCH body is a DAV:propertyupdate element.")
    }
    let resource = try existing(path, drive: mount.drive)
    try mount.checkWrite(changing: [path])
    var operations: [(DAVPropertyName, String?)] = []
    for update in body.children where update.namespace == "DAV:" {
      guard update.name == "set" || update.name == "remove", let prop = update.child("prop") else {
        continue
      }
      for property in prop.children {
        let name = DAVPropertyName(namespace: property.namespace, name: property.name)
        operations.append((name, update.name == "set" ? property.innerXML : nil))
      }
    }
    try checkWrite(request, path: path, paths: [path], membership: false, mount: mount)
    let protected = Set(DAVStore.liveNames)
    let refused = operations.filter { protected.contains($0.0) }
    let href = resource.path.href(collection: resource.isCollection)
    if !refused.isEmpty {
      let others = operations.filter { !protected.contains($0.0) }
      return Self.multistatus(
        DAVXML.multistatusStart
          + DAVXML.response(
            href: href,
            [(403, refused.map { ($0.0, nil) }), (424, others.map { ($0.0, nil) })])
          + DAVXML.multistatusEnd)
    }
    try store.dav.patchProperties(operations, of: resource.path, drive: mount.drive)
    return Self.multistatus(
      DAVXML.multistatusStart
        + DAVXML.response(href: href, [(200, operations.map { ($0.0, nil) })])
        + DAVXML.multistatusEnd)
  }
}
