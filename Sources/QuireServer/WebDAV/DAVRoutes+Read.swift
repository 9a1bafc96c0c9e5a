import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// PROPFIND, GET and HEAD.
extension DAVRoutes {
  /// PROPFIND with `Depth: 0` or `1` (``depth(_:of:)``). The drive's listing shows "Shared
  /// with me" when another account shares something with this one.
  ///
  /// A folder's rows are read on this thread while another writes the XML of those already
  /// read (``DAVStore/children(of:drive:batch:settled:)``): for 10 000 files, each half is
  /// as long as the other.
  func propfind(_ request: Request, path: DAVPath, mount: DAVMount) async throws -> Response {
    let resource = try existing(path, drive: mount.drive)
    let depth = try Self.depth(request, of: resource)
    let query = try await Self.propertyQuery(request)
    let deep = depth == "1" && resource.isCollection
    let writer = try propertyWriter(
      root: resource, deep: deep, in: mount.drive, seenBy: mount.account, query)
    var output = ByteBuffer()
    output.writeString(DAVXML.multistatusStart)
    writer.write([resource], to: &output)
    if deep {
      let background = DAVPropertyWriter.Background(writer)
      var named = false  // whether the drive holds an item called "Shared with me"
      var rest = try store.dav.wrap { () throws(SyncError) in
        try store.dav.children(of: resource, drive: mount.drive) { batch in
          if path.isDrive {
            named = named || batch.contains { $0.path.name == DAVStore.sharedFolder }
          }
          background.write(batch)
        }
      }
      background.finish(into: &output)
      if path.isDrive, mount.access == .owner, !named,
        !rest.contains(where: { $0.path.name == DAVStore.sharedFolder }),
        try !sharedMounts(account: mount.drive.owner).isEmpty
      {
        rest.append(DAVResource(path: path.appending(DAVStore.sharedFolder), kind: .folder))
      }
      writer.write(rest, to: &output)
    }
    output.writeString(DAVXML.multistatusEnd)
    return Self.multistatus(output)
  }

  /// The depth a PROPFIND of `resource` asks for, "0" or "1" (`infinity` is refused with
  /// `propfind-finite-depth`, as RFC 4918 §9.1 allows: a whole drive in one answer is a denial
  /// of service).
  static func depth(_ request: Request, of resource: DAVResource) throws(DAVError) -> String {
    let depth = request.headers[HTTPField.Name("Depth")!] ?? "infinity"
    if !resource.isCollection { return "0" }  // a file is all there is, at any depth
    guard depth == "0" || depth == "1" else {
      throw DAVError(
        .forbidden, .forbidden, "PROPFIND takes Depth 0 or 1 here, not \(depth.prefix(20)).",
        precondition: "propfind-finite-depth")
    }
    return depth
  }

  /// What a PROPFIND's body asks for (all properties when it has none).
  static func propertyQuery(_ request: Request) async throws -> DAVPropertyQuery {
    try DAVPropertyQuery(
      try DAVElement.parse(try await Self.body(request, limit: Self.maximumXMLBytes)))
  }

  /// Appends the `response` of each of `resources`, all in `drive`, with the properties
  /// `query` asks for, to `output`: `root`'s and (`deep`) its children's. The locks show their
  /// tokens only to the account that took them (`viewer`).
  func properties(
    of resources: [DAVResource], root: DAVResource, deep: Bool, in drive: DAVDrive,
    seenBy viewer: Int64, _ query: DAVPropertyQuery, to output: inout ByteBuffer
  ) throws(DAVError) {
    try propertyWriter(
      root: root, deep: deep, in: drive, seenBy: viewer, query, listed: resources
    ).write(resources, to: &output)
  }

  /// What writes the responses of `root` and (`deep`) its children, in `drive`, with the
  /// properties `query` asks for: the dead properties of `listed` and of `root`'s children,
  /// and the locks on `root` (and within it, `deep`) as `viewer` sees them.
  func propertyWriter(
    root: DAVResource, deep: Bool, in drive: DAVDrive, seenBy viewer: Int64,
    _ query: DAVPropertyQuery, listed: [DAVResource] = []
  ) throws(DAVError) -> DAVPropertyWriter {
    let dead = try store.dav.deadProperties(
      of: [root.path] + listed.map(\.path), childrenOf: deep ? root.path : nil, drive: drive)
    let locks = try store.dav.locks(
      on: [root.path], trees: deep ? [root.path] : [], membership: false, drive: drive
    ).map { $0.seen(by: viewer, in: drive) }
    // What a named query asks for, sorted out once for all the resources.
    let asked: [(DAVPropertyName, DAVLiveProperty?)] =
      if case .properties(let names) = query { names.map { ($0, DAVLiveProperty($0)) } } else {
        []
      }
    return DAVPropertyWriter(query: query, asked: asked, dead: dead, locks: locks)
  }

  /// A 207 with `xml`.
  static func multistatus(_ xml: String) -> Response { multistatus(ByteBuffer(string: xml)) }

  /// A 207 with the XML in `bytes`.
  static func multistatus(_ bytes: ByteBuffer) -> Response {
    Response(
      status: .init(code: 207, reasonPhrase: "Multi-Status"),
      headers: [.contentType: "application/xml; charset=utf-8"],
      body: .init(byteBuffer: bytes))
  }

  /// GET (with `body`) or HEAD of a file or a package member: its bytes, with a strong ETag,
  /// `Last-Modified`, `If-None-Match` and one byte range.
  func get(_ request: Request, path: DAVPath, drive: DAVDrive, body: Bool) throws -> Response {
    let resource = try existing(path, drive: drive)
    guard let (item, revision, member) = resource.item, !resource.isCollection else {
      throw DAVError(
        .methodNotAllowed, .forbidden,
        "“\(path)” is a folder; list it with PROPFIND, or download a package with the app.")
    }
    let members = try store.dav.members(item: item, revision: revision, drive: drive)
    guard let stored = members.first(where: { $0.path == member }) else {
      throw DAVError.notFound(path)
    }
    var headers: HTTPFields = [
      .contentType: PublicPage.contentType(path.name),
      .eTag: "\"\(DAVResource.etag(hex: stored.hash.hex))\"",
      .lastModified: DAVXML.httpDate(resource.modified ?? 0),
      .acceptRanges: "bytes",
      // What a browser shows of a user's file runs nothing and guesses no type.
      .contentSecurityPolicy: "default-src 'none'; sandbox",
      HTTPField.Name("X-Content-Type-Options")!: "nosniff",
    ]
    if let match = request.headers[.ifNoneMatch],
      match == "*" || match.contains("\"\(DAVResource.etag(hex: stored.hash.hex))\"")
    {
      return Response(status: .notModified, headers: headers)
    }
    var download = try store.shares.download(of: stored, account: drive.owner)
    if let range = request.headers[.range], let (start, end) = Self.range(range, size: stored.size)
    {
      download = download.range(from: start, through: end)
      headers[.contentRange] = "bytes \(start)-\(end)/\(stored.size)"
      guard body else {
        headers[.contentLength] = String(end - start + 1)
        return Response(status: .partialContent, headers: headers)
      }
      var response = ServerResponse.chunks(download, headers: headers)
      response.status = .partialContent
      return response
    }
    guard body else {
      headers[.contentLength] = String(stored.size)
      return Response(status: .ok, headers: headers)
    }
    return ServerResponse.chunks(download, headers: headers)
  }

  /// The one range `header` asks for within `size` bytes (`bytes=A-B`, `A-` or `-N`), or nil
  /// to send it all (several ranges, or one that cannot be read). A range of any length is
  /// streamed as the whole file is (``ChunkDownload/range(from:through:)``).
  static func range(_ header: String, size: Int) -> (Int, Int)? {
    guard header.hasPrefix("bytes="), !header.contains(","), size > 0 else { return nil }
    let spec = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
    guard spec.count == 2 else { return nil }
    let start: Int
    let end: Int
    if spec[0].isEmpty {
      guard let suffix = Int(spec[1]), suffix > 0 else { return nil }
      start = max(0, size - suffix)
      end = size - 1
    } else {
      guard let first = Int(spec[0]), first < size else { return nil }
      start = first
      end = spec[1].isEmpty ? size - 1 : min(size - 1, Int(spec[1]) ?? -1)
    }
    guard start <= end else { return nil }
    return (start, end)
  }
}
