import QuireSyncProtocol

/// A WebDAV write lock (RFC 4918 §6, §9.10): held by the account that took it, which alone
/// may submit its token, refresh it or remove it (another account, such as a share's
/// participant, sees the lock but not its token).
struct DAVLock: Sendable, Equatable {
  /// Its token, `urn:uuid:…`.
  var token: String
  /// The resource locked.
  var path: DAVPath
  /// Whether it covers everything inside a collection too (`Depth: infinity`).
  var deep: Bool
  /// Exclusive, or shared with other shared locks.
  var exclusive: Bool
  /// The `owner` XML the client sent, returned as it was.
  var owner: String
  /// Its timeout in seconds.
  var timeout: Int
  /// When it ends unless refreshed, in seconds since 1970.
  var expires: Double
  /// The account that took it; 0 for the container's owner (a lock taken before the holder
  /// was recorded).
  var holder: Int64 = 0

  /// Whether `account` holds it, in `drive`.
  func isHeld(by account: Int64, in drive: DAVDrive) -> Bool {
    holder == account || (holder == 0 && account == drive.owner)
  }

  /// The lock as `account` may see it: without its token unless `account` holds it.
  func seen(by account: Int64, in drive: DAVDrive) -> DAVLock {
    var seen = self
    if !isHeld(by: account, in: drive) { seen.token = "" }
    return seen
  }

  /// Whether it covers `other`: the resource itself, or one inside it if deep.
  func covers(_ other: DAVPath) -> Bool {
    path == other || (deep && path.contains(other))
  }

  /// The lock among `locks` (those that cover a write) that the write may not pass, having
  /// submitted the tokens `submitted`: an exclusive lock it does not hold, or, when only shared
  /// locks cover it, any of them unless it holds one (RFC 4918 §6.1, §7).
  static func blocking(_ locks: [DAVLock], submitted: Set<String>) -> DAVLock? {
    if let exclusive = locks.first(where: { $0.exclusive && !submitted.contains($0.token) }) {
      return exclusive
    }
    let shared = locks.filter { !$0.exclusive }
    return shared.contains(where: { submitted.contains($0.token) }) ? nil : shared.first
  }

  /// The error a write gets from `lock`, which it does not hold.
  static func lockedError(_ path: DAVPath) -> SyncError {
    SyncError(
      .locked,
      "“\(path)” is locked; send the lock's token in an If header, or wait for it to end.")
  }

  /// Its `activelock` XML, as `lockdiscovery` and a LOCK's answer carry it.
  var activeLock: String {
    let scope = exclusive ? "<D:exclusive/>" : "<D:shared/>"
    let ownerXML = owner.isEmpty ? "" : "<D:owner>\(owner)</D:owner>"
    let tokenXML =
      token.isEmpty ? "" : "<D:locktoken><D:href>\(DAVXML.escape(token))</D:href></D:locktoken>"
    return
      "<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope>\(scope)</D:lockscope><D:depth>\(deep ? "infinity" : "0")</D:depth>\(ownerXML)<D:timeout>Second-\(timeout)</D:timeout>\(tokenXML)<D:lockroot><D:href>\(DAVXML.escape(path.href(collection: false)))</D:href></D:lockroot></D:activelock>"
  }

  /// Its owner as people read it: the text of the `owner` XML without its markup (an address
  /// without `mailto:`), or "a WebDAV client" when the client named none. The XML is read with
  /// the parser that read the request, so every entity and character reference is decoded.
  var ownerName: String {
    let parsed = try? DAVElement.parse(Array("<owner>\(owner)</owner>".utf8))
    var name = (parsed.map(Self.texts) ?? []).joined(separator: " ")
      .split(whereSeparator: \.isWhitespace).joined(separator: " ")
    if name.lowercased().hasPrefix("mailto:") { name.removeFirst("mailto:".count) }
    return name.isEmpty ? "a WebDAV client" : String(name.prefix(200))
  }

  private static func texts(_ element: DAVElement) -> [String] {
    [element.text] + element.children.flatMap(texts)
  }
}
