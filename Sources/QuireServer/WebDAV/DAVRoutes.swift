import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// WebDAV (RFC 4918, classes 1 and 2) at `/dav/`: the signed-in account's drive for file managers,
/// `rclone`, `cadaver` and backup tools. Sign-in is HTTP Basic with an app password
/// (`quire server app-password`), or a device token as a bearer token. Every write is a commit,
/// as a device's is, so devices get it through the journal as any other change.
struct DAVRoutes: Sendable {
  let store: ServerStore
  let configuration: ServerConfiguration
  /// Tells the account's devices (and share participants) that a write committed.
  let signal: JournalSignal
  /// Bounds an account's WebDAV requests that hold much memory, disk or database time at once
  /// (a GET's bytes, a PUT's, a folder's listing), apart from its devices' own.
  let heavy: HeavyRequests

  /// The largest PUT body taken (held in memory while it is chunked).
  static let maximumPutBytes = 256 << 20
  /// The largest XML body taken.
  static let maximumXMLBytes = 1 << 20

  /// The header the web drive's page sends with each request (``WebDrive``).
  static let webPage = HTTPField.Name("X-Quire-Web")!

  /// The methods served.
  static let methods = [
    "OPTIONS", "PROPFIND", "PROPPATCH", "GET", "HEAD", "PUT", "DELETE", "MKCOL", "COPY", "MOVE",
    "LOCK", "UNLOCK",
  ]

  func add(to router: Router<ServerRequestContext>) {
    for method in Self.methods {
      guard let method = HTTPRequest.Method(method) else { continue }
      for path in ["/dav", "/dav/**"] {
        router.on(RouterPath(path), method: method) { request, context in
          var response = await respond(request, peer: context.peer)
          // The web drive's page signs in with its own form: no browser password prompt, for
          // its requests nor for what its session loads (a thumbnail, a download).
          if request.headers[Self.webPage] != nil || request.cookies[WebSession.cookie] != nil {
            response.headers[.wwwAuthenticate] = nil
          }
          return response
        }
      }
    }
  }

  /// The answer to `request`: its method's, or the error it ended with.
  private func respond(_ request: Request, peer: String) async -> Response {
    do {
      guard let path = try DAVPath.parse(request.uri.path) else {
        throw DAVError(.notFound, .notFound, "There is nothing here; the drive is at /dav/.")
      }
      if request.method == .options { return options() }
      let device = try signedIn(request, peer: peer)
      switch try place(path, account: device.user) {
      case .sharedWithMe(let path):
        return try await sharedWithMe(request, path: path, account: device.user)
      case .mounted(let mount, let path):
        return try await respond(request, path: path, mount: mount, device: device)
      }
    } catch let error as DAVError {
      return Self.response(error)
    } catch {
      var sync = ServerResponse.told(ServerResponse.syncError(error))
      if sync.code == .tooLarge {
        sync = SyncError(.tooLarge, "The body is larger than WebDAV takes here.")
      }
      return Self.response(
        DAVError(.init(code: sync.code.httpStatus), sync.code, sync.message))
    }
  }

  /// The answer to `request` for `path` in `mount`, by its method. GET, PUT, a listing
  /// (PROPFIND not of depth 0) and a DELETE, COPY or MOVE of a collection count among the
  /// account's heavy requests: past
  /// ``HeavyRequests/perKey`` at once, another is 429 with `Retry-After`.
  private func respond(
    _ request: Request, path: DAVPath, mount: DAVMount, device: AuthenticatedDevice
  ) async throws -> Response {
    let heavy = "dav:\(device.user)"
    switch request.method.rawValue {
    case "PROPFIND" where request.headers[HTTPField.Name("Depth")!] != "0":
      return try await self.heavy.run(heavy) {
        try await propfind(request, path: path, mount: mount)
      }
    case "PROPFIND": return try await propfind(request, path: path, mount: mount)
    case "PROPPATCH": return try await proppatch(request, path: path, mount: mount)
    case "GET":
      return try await self.heavy.run(heavy) {
        try collection(request, path: path, mount: mount)
          ?? get(request, path: path, drive: mount.drive, body: true)
      }
    case "HEAD": return try get(request, path: path, drive: mount.drive, body: false)
    case "PUT":
      return try await self.heavy.run(heavy) {
        try await put(request, path: path, mount: mount, device: device)
      }
    case "DELETE", "COPY", "MOVE":
      // Of a collection, each is one commit over everything it holds, as long as a listing.
      let deep = try store.dav.wrap { () throws(SyncError) in
        try store.dav.resource(at: path, drive: mount.drive)?.isCollection ?? false
      }
      let answer = { () throws -> Response in
        switch request.method.rawValue {
        case "DELETE": try delete(request, path: path, mount: mount, device: device)
        default:
          try transfer(
            request, path: path, mount: mount, device: device,
            move: request.method.rawValue == "MOVE")
        }
      }
      return deep ? try await self.heavy.run(heavy) { try answer() } : try answer()
    case "MKCOL": return try await mkcol(request, path: path, mount: mount)
    case "LOCK": return try await lock(request, path: path, mount: mount, device: device)
    case "UNLOCK": return try unlock(request, path: path, mount: mount)
    default:
      throw DAVError(.methodNotAllowed, .malformed, "\(request.method) is not served here.")
    }
  }

  /// The account `request` signed in as: Basic with the account's name and one of its app
  /// passwords, Bearer with a device token, or the web drive's session cookie
  /// (``WebSession``).
  ///
  /// A password crosses the network only inside TLS: without `--tls-cert`, Basic sign-in is
  /// taken from loopback alone (this machine, or a TLS proxy such as nginx in front).
  private func signedIn(_ request: Request, peer: String) throws(DAVError) -> AuthenticatedDevice {
    let header = request.headers[.authorization] ?? ""
    if header.lowercased().hasPrefix("basic "),
      !Self.takesPasswords(tls: configuration.tlsCertificate != nil, peer: peer)
    {
      throw DAVError(
        .forbidden, .forbidden,
        "This server has no TLS, so it takes no password from another machine. Start it with --tls-cert and --tls-key, or put an HTTPS proxy in front."
      )
    }
    let device: AuthenticatedDevice?
    do {
      if header.hasPrefix("Bearer ") {
        device = try store.accounts.device(token: String(header.dropFirst(7)))
      } else if header.lowercased().hasPrefix("basic "),
        let decoded = Data(
          base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
        let pair = String(data: decoded, encoding: .utf8), let colon = pair.firstIndex(of: ":")
      {
        let user = String(pair[..<colon])
        let password = String(pair[pair.index(after: colon)...])
        device = try store.accounts.appPassword(user: user, password: password)
      } else if header.isEmpty, let token = try WebSession.token(request) {
        device = try store.accounts.device(token: token)
      } else {
        device = nil
      }
    } catch {
      throw DAVError(
        .init(code: error.code.httpStatus), error.code, ServerResponse.told(error).message)
    }
    guard let device else {
      throw DAVError(
        .unauthorized, .unauthorized,
        "Sign in with your account name and an app password (make one with quire server app-password NAME)."
      )
    }
    return device
  }

  /// Whether a password may be taken from `peer` (its IP address, "" for a Unix socket): over
  /// TLS, or from this machine.
  static func takesPasswords(tls: Bool, peer: String) -> Bool {
    tls || peer.isEmpty || ConnectionGuard.isLoopback(peer)
  }

  /// OPTIONS: what is served (no sign-in needed, as clients probe before they authenticate).
  private func options() -> Response {
    Response(
      status: .ok,
      headers: [
        HTTPField.Name("DAV")!: "1, 2",
        .allow: Self.methods.joined(separator: ", "),
        HTTPField.Name("MS-Author-Via")!: "DAV",
        .contentLength: "0",
      ])
  }

  /// An error as WebDAV clients expect it: its status, and the code and message as JSON (or
  /// the precondition's XML); a 401 asks for Basic sign-in.
  static func response(_ error: DAVError) -> Response {
    // A database's or a blob store's own text is logged, never sent.
    let told = ServerResponse.told(error.error)
    var response: Response
    if let precondition = error.precondition {
      response = Response(
        status: error.status, headers: [.contentType: "application/xml; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: DAVXML.error(precondition))))
    } else {
      response = ServerResponse.error(told)
      response.status = error.status
    }
    if error.status == .unauthorized {
      response.headers[.wwwAuthenticate] = "Basic realm=\"Quire\", charset=\"UTF-8\""
    }
    return response
  }

  /// Makes `commit`'s commits in `mount`'s container, as `device` (in a share, as a device of
  /// its owner's, as a participant's device commits), refused if a lock that `locks` does not
  /// hold now covers them (checked again in their transaction); tells the devices and the
  /// share's participants, and applies its folder rows.
  func commit(
    _ commit: DAVCommit, mount: DAVMount, device: AuthenticatedDevice, locks: CommitLocks
  ) throws(DAVError) {
    if let share = mount.share {
      // Read again once a PUT's body has arrived: a share stopped, or made read-only, since
      // the request began takes no write.
      guard
        try sharedMounts(account: mount.account).contains(where: {
          $0.mount.share == share && $0.mount.access == .writer && $0.mount.root == mount.root
        })
      else {
        throw DAVError(
          .forbidden, .forbidden,
          "“\(mount.root)” is no longer shared with you for writing; nothing was written.")
      }
    }
    if !commit.requests.isEmpty {
      let moved: [Int64]
      do {
        moved = try store.commits.commit(
          commit.requests, container: mount.drive.container, device: mount.committer(device),
          maximumMembers: configuration.maximumMembersPerCommit, locks: locks
        ).sharesMoved
      } catch  where error.code == .locked && mount.access != .owner {
        // The store names the lock's path as the owner keeps it: name the share instead.
        throw DAVError(DAVLock.lockedError(mount.root))
      } catch {
        throw DAVError(SyncError(error.code, error.message))
      }
      signal.wake(mount.drive.signalKey)  // the commit told the other replicas
      if !moved.isEmpty {
        signal.notify(ShareRoutes.sharesKey(mount.drive.owner))
        for participant in Set(moved) { signal.notify(ShareRoutes.sharesKey(participant)) }
      }
    }
    try store.dav.finish(commit, drive: mount.drive)
  }

  /// The body of `request`, up to `limit` bytes.
  static func body(_ request: Request, limit: Int) async throws -> [UInt8] {
    var request = request
    let buffer = try await request.collectBody(upTo: limit)
    return Array(buffer: buffer)
  }

  /// The resource at `path` in `drive`, or a 404.
  func existing(_ path: DAVPath, drive: DAVDrive) throws(DAVError) -> DAVResource {
    guard
      let resource = try store.dav.wrap({ () throws(SyncError) in
        try store.dav.resource(at: path, drive: drive)
      })
    else { throw DAVError.notFound(path) }
    return resource
  }
}
