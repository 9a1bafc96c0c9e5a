import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A WebDAV server the `webdav` workload measures, as its clients reach it: the address of its
/// served folder and a Basic sign-in.
struct DAVTarget {
  /// The served folder, `http://127.0.0.1:PORT/dav/`.
  let url: URL
  /// The account name of the Basic sign-in.
  let user: String
  /// Its password (an app password for Quire).
  let password: String

  /// The `Authorization` header's value.
  var authorization: String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

  /// The environment that makes `q:` an rclone remote for it (no configuration file).
  func rcloneEnvironment() throws -> [String: String] {
    [
      "RCLONE_CONFIG_Q_TYPE": "webdav",
      "RCLONE_CONFIG_Q_URL": url.absoluteString,
      "RCLONE_CONFIG_Q_VENDOR": "other",
      "RCLONE_CONFIG_Q_USER": user,
      "RCLONE_CONFIG_Q_PASS": try SpawnedProcess.run(Rclone.path, ["obscure", password])
        .trimmingCharacters(in: .whitespacesAndNewlines),
    ]
  }
}

/// The two clients of the `webdav` workload: one PROPFIND over a raw socket, and rclone.
enum DAVClients {
  /// The answer to one PROPFIND: how long it took and what it listed.
  struct Listing {
    /// From connecting to the last byte of the body.
    let milliseconds: Double
    /// The body's bytes (after any chunked framing is removed).
    let bytes: Int
    /// The `response` elements in the multistatus (one per `href`).
    let responses: Int
  }

  /// PROPFIND (`Depth: 1`, allprop) of `path` under `target`, over a new HTTP/1.1 connection
  /// (`Connection: close`), the whole body read; throws unless the answer is a 207.
  static func propfind(_ target: DAVTarget, path: String) throws -> Listing {
    let body =
      #"<?xml version="1.0" encoding="utf-8"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#
    let base = target.url.path.hasSuffix("/") ? target.url.path : target.url.path + "/"
    let request =
      "PROPFIND \(base)\(path) HTTP/1.1\r\nHost: 127.0.0.1:\(target.url.port!)\r\n"
      + "Authorization: \(target.authorization)\r\nDepth: 1\r\nConnection: close\r\n"
      + "Content-Type: application/xml; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
      + "\r\n" + body
    var received: [UInt8] = []
    let milliseconds = try Measurement.milliseconds {
      received = try exchange(Array(request.utf8), port: target.url.port!)
    }
    guard let split = find([13, 10, 13, 10], in: received, from: 0) else {
      throw RawFiles.Failure(description: "PROPFIND \(path): no response head")
    }
    let head = String(decoding: received[..<split], as: UTF8.self)
    guard head.hasPrefix("HTTP/1.1 207") else {
      throw RawFiles.Failure(
        description: "PROPFIND \(path): \(head.prefix { $0 != "\r" })")
    }
    var content = Array(received[(split + 4)...])
    if head.lowercased().contains("transfer-encoding: chunked") { content = try dechunk(content) }
    let hrefs = occurrences(Array("href>".utf8), in: content)  // each opened and closed
    return Listing(milliseconds: milliseconds, bytes: content.count, responses: hrefs / 2)
  }

  /// Milliseconds for `rclone copy source destination` with `transfers` parallel transfers,
  /// `q:` being `target`; throws with rclone's last error lines if it fails.
  static func rcloneCopy(
    _ source: String, _ destination: String, target: DAVTarget, transfers: Int
  ) throws -> Double {
    let environment = try target.rcloneEnvironment()
    return try Measurement.milliseconds {
      try SpawnedProcess.run(
        Rclone.path,
        [
          "copy", source, destination, "--config", "/dev/null", "--transfers", "\(transfers)",
          "--retries", "1", "--low-level-retries", "1",
        ], environment: environment)
    }
  }

  /// Sends `request` to `127.0.0.1:port` on a new connection and reads until the server closes.
  private static func exchange(_ request: [UInt8], port: Int) throws -> [UInt8] {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    try RawFiles.check(fd, "socket")
    defer { close(fd) }
    var on: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    try RawFiles.check(connected, "connect to port \(port)")
    var sent = 0
    while sent < request.count {
      let count = request[sent...].withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      try RawFiles.check(Int32(truncatingIfNeeded: count), "send")
      sent += count
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      try RawFiles.check(Int32(truncatingIfNeeded: count), "recv")
      if count == 0 { return received }
      received.append(contentsOf: buffer[..<count])
    }
  }

  /// A chunked body's content.
  private static func dechunk(_ body: [UInt8]) throws -> [UInt8] {
    var content: [UInt8] = []
    var position = 0
    while let end = find([13, 10], in: body, from: position) {
      let line = String(decoding: body[position..<end], as: UTF8.self)
      guard let size = Int(line.prefix { $0 != ";" }, radix: 16) else {
        throw RawFiles.Failure(description: "a bad chunk size: \(line)")
      }
      if size == 0 { return content }
      guard end + 2 + size <= body.count else { break }
      content.append(contentsOf: body[(end + 2)..<(end + 2 + size)])
      position = end + 2 + size + 2
    }
    throw RawFiles.Failure(description: "a chunked body ended early")
  }

  /// The first index at or after `start` where `needle` occurs in `haystack`.
  private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
    guard haystack.count >= needle.count, start <= haystack.count - needle.count else {
      return nil
    }
    for index in start...(haystack.count - needle.count)
    where haystack[index..<(index + needle.count)].elementsEqual(needle) {
      return index
    }
    return nil
  }

  /// How many times `needle` occurs in `haystack`.
  private static func occurrences(_ needle: [UInt8], in haystack: [UInt8]) -> Int {
    var count = 0
    var position = 0
    while let found = find(needle, in: haystack, from: position) {
      count += 1
      position = found + needle.count
    }
    return count
  }
}

/// Where rclone is (scripts/bench installs Debian's).
enum Rclone {
  /// The executable.
  static let path = "/usr/bin/rclone"

  /// Whether rclone is installed.
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }
}
