import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// Class 2: LOCK, UNLOCK, and the checks every write makes: its `If` header must hold, and it
/// must submit the token of every lock that applies to what it changes (else 423).
extension DAVRoutes {
  /// The longest lock given, and the one given when the client asks for none or "Infinite".
  static let maximumLockSeconds = 86_400
  static let defaultLockSeconds = 3_600

  /// Checks `request`'s `If` header against `path` (412 if it fails), then that it submits a
  /// token of the locks on `paths`, inside `trees` and (with `membership`) on their parents.
  /// Returns the tokens it submitted of locks its account holds (another account's token opens
  /// nothing), for the commit to check the locks again in its own transaction: a lock taken
  /// while a PUT's body arrives must hold too.
  @discardableResult
  func checkWrite(
    _ request: Request, path: DAVPath, paths: [DAVPath], trees: [DAVPath] = [],
    membership: Bool, mount: DAVMount
  ) throws(DAVError) -> CommitLocks {
    var submitted: Set<String> = []
    if let header = request.headers[HTTPField.Name("If")!] {
      let condition = try DAVIfHeader.parse(header)
      submitted = condition.tokens
      var states: [DAVPath: (etag: String?, locks: Set<String>)] = [:]
      var failure: DAVError?
      let holds = condition.holds { tag in
        do throws(DAVError) {
          var drive = mount.drive
          var target = path
          if let tag {
            // A tagged list names its resource by URL: in the drive, or in a share.
            guard
              case .mounted(let tagged, let named) = try place(
                try DAVPath.destination(tag), account: mount.account)
            else { return (nil, []) }
            (drive, target) = (tagged.drive, named)
          }
          if let known = states[target], drive == mount.drive { return known }
          let resource = try store.dav.wrap { () throws(SyncError) in
            try store.dav.resource(at: target, drive: drive)
          }
          let locks = try store.dav.locks(on: [target], membership: false, drive: drive)
          let state = (resource?.etag, Set(locks.map(\.token)))
          if drive == mount.drive { states[target] = state }
          return state
        } catch {
          failure = error
          return (nil, [])
        }
      }
      if let failure { throw failure }
      guard holds else {
        throw DAVError.precondition(
          "The If header's conditions do not hold for “\(path)”: a lock token or ETag it names is not current."
        )
      }
    }
    submitted = try store.dav.held(submitted, by: mount.account, drive: mount.drive)
    let locks = try store.dav.locks(
      on: paths, trees: trees, membership: membership, drive: mount.drive)
    if DAVLock.blocking(locks, submitted: submitted) != nil {
      throw DAVError(DAVLock.lockedError(path))
    }
    return CommitLocks.holding(submitted)
  }

  /// LOCK: a new lock (`lockinfo` body), made on an unmapped URL as an empty file (201), or,
  /// with no body, a refresh of the lock the `If` header names.
  func lock(
    _ request: Request, path: DAVPath, mount: DAVMount, device: AuthenticatedDevice
  ) async throws -> Response {
    try mount.checkWrite(changing: [path])
    let body = try DAVElement.parse(try await Self.body(request, limit: Self.maximumXMLBytes))
    let timeout = Self.timeout(request.headers[HTTPField.Name("Timeout")!])
    guard let body else {
      var renewed: DAVLock?
      if let header = request.headers[HTTPField.Name("If")!] {
        for token in try DAVIfHeader.parse(header).tokens.sorted() where renewed == nil {
          renewed = try store.dav.refresh(
            token, at: path, timeout: timeout, drive: mount.drive, account: mount.account)
        }
      }
      guard let lock = renewed else {
        throw DAVError(
          .preconditionFailed, .notFound,
          "A LOCK without a body refreshes a lock: name one of “\(path)”'s in the If header.",
          precondition: "lock-token-matches-request-uri")
      }
      return Self.lockAnswer(lock, status: .ok, newToken: false)
    }
    guard body.namespace == "DAV:", body.name == "lockinfo",
      let scope = body.child("lockscope")?.children.first,
      body.child("locktype")?.child("write") != nil
    else {
      throw DAVError(
        .badRequest, .malformed,
        "A LOCK body is a DAV:lockinfo with a lockscope and a write locktype.")
    }
    let depth = request.headers[HTTPField.Name("Depth")!] ?? "infinity"
    guard depth == "0" || depth == "infinity" else {
      throw DAVError(.badRequest, .malformed, "LOCK takes Depth 0 or infinity.")
    }
    var created = false
    if try store.dav.wrap({ () throws(SyncError) in
      try store.dav.resource(at: path, drive: mount.drive)
    }) == nil {
      let locks = try checkWrite(
        request, path: path, paths: [path], membership: true, mount: mount)
      let (target, parent, _) = try store.dav.putTarget(at: path, drive: mount.drive) {
        _ throws(DAVError) in
      }
      var empty = DAVUpload { _ throws(DAVError) in }
      let (_, commit) = store.dav.put(
        try empty.finish(), at: path, target: target, parent: parent)
      try self.commit(commit, mount: mount, device: device, locks: locks)
      created = true
    }
    let lock = DAVLock(
      token: "urn:uuid:\(UUID().uuidString.lowercased())", path: path, deep: depth != "0",
      exclusive: scope.name == "exclusive", owner: body.child("owner")?.innerXML ?? "",
      timeout: timeout, expires: Date().timeIntervalSince1970 + Double(timeout),
      holder: mount.account)
    if try store.dav.take(lock, drive: mount.drive) != nil {
      throw DAVError(
        .init(code: 423, reasonPhrase: "Locked"), .alreadyExists,
        "“\(path)” (or something in it) is locked already; wait for that lock to end.",
        precondition: "no-conflicting-lock")
    }
    return Self.lockAnswer(lock, status: created ? .created : .ok, newToken: true)
  }

  /// UNLOCK of the lock `Lock-Token` names, if it covers the request's resource and the
  /// signed-in account took it.
  func unlock(_ request: Request, path: DAVPath, mount: DAVMount) throws -> Response {
    guard var token = request.headers[HTTPField.Name("Lock-Token")!] else {
      throw DAVError(.badRequest, .malformed, "UNLOCK needs a Lock-Token header.")
    }
    token = token.trimmingCharacters(in: CharacterSet(charactersIn: "<> "))
    guard try store.dav.unlock(token, at: path, drive: mount.drive, account: mount.account) else {
      throw DAVError(
        .conflict, .notFound, "No lock of yours with that token covers “\(path)”.",
        precondition: "lock-token-matches-request-uri")
    }
    return Response(status: .noContent)
  }

  /// The seconds a `Timeout` header asks for ("Second-N" or "Infinite", the first that can
  /// be read), within ``maximumLockSeconds``.
  static func timeout(_ header: String?) -> Int {
    for choice in (header ?? "").split(separator: ",") {
      let choice = choice.trimmingCharacters(in: .whitespaces)
      if choice == "Infinite" { return maximumLockSeconds }
      if choice.hasPrefix("Second-"), let seconds = Int(choice.dropFirst(7)), seconds > 0 {
        return min(seconds, maximumLockSeconds)
      }
    }
    return defaultLockSeconds
  }

  /// A LOCK's answer: the lock's `lockdiscovery`, and its token in `Lock-Token` when new.
  static func lockAnswer(_ lock: DAVLock, status: HTTPResponse.Status, newToken: Bool) -> Response {
    var headers: HTTPFields = [.contentType: "application/xml; charset=utf-8"]
    if newToken { headers[HTTPField.Name("Lock-Token")!] = "<\(lock.token)>" }
    let xml =
      "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:prop xmlns:D=\"DAV:\"><D:lockdiscovery>\(lock.activeLock)</D:lockdiscovery></D:prop>\n"
    return Response(
      status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: xml)))
  }
}
