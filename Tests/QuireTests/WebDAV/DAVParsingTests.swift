import Foundation
import NIOCore
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// What WebDAV reads from a request before it touches the drive: paths, `Destination`, `If`
/// headers, byte ranges and XML bodies. Each is a function of the request's text, tested here on
/// fixed cases and on generated ones; hostile bodies get a 400, not a hang or a crash.
@Suite("WebDAV request parsing")
struct DAVParsingTests {
  @Test("a request path is the drive's Documents folder, decoded and checked")
  func paths() throws {
    #expect(try DAVPath.parse("/dav")?.path == "Documents")
    #expect(try DAVPath.parse("/dav/")?.isDrive == true)
    #expect(
      try DAVPath.parse("/dav/Trip%20plan/notes.txt")?.path == "Documents/Trip plan/notes.txt")
    #expect(try DAVPath.parse("/dav/res-%e2%82%ac")?.name == "res-€")
    #expect(try DAVPath.parse("/davx/a") == nil)
    #expect(try DAVPath.parse("/v1/health") == nil)
    for hostile in ["/dav/../etc", "/dav/a/%2e%2e/b", "/dav/%00", "/dav/a%ZZ", "/dav/%e2%80%ae"] {
      #expect(throws: DAVError.self, "\(hostile)") { try DAVPath.parse(hostile) }
    }
    let path = try #require(try DAVPath.parse("/dav/A/B/c.txt"))
    #expect(path.parent.path == "Documents/A/B")
    #expect(path.parent.parent.parent.isDrive && path.parent.parent.parent.parent.isDrive)
    #expect(DAVPath.drive.contains(path) && !path.contains(DAVPath.drive))
    let moved = try #require(try DAVPath.parse("/dav/Z"))
    #expect(path.parent.parent.rebase(path, onto: moved).path == "Documents/Z/B/c.txt")
  }

  @Test("any name a device can have survives href and back", arguments: 0..<8)
  func hrefRoundTrip(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed))
    let alphabet = Array("aZ09 -_.~!$&'()*+,;=:@%#?[]<>\"{}|\\^`ÄéøñΩ€中😀")
    for _ in 0..<200 {
      let names = (0..<Int.random(in: 1...4, using: &random)).map { _ in
        var name = String(
          (0..<Int.random(in: 1...12, using: &random)).map { _ in
            alphabet.randomElement(using: &random)!
          })
        if name == "." || name == ".." { name += "x" }
        return name
      }
      let original = DAVPath(stored: (["Documents"] + names).joined(separator: "/"))
      for collection in [false, true] {
        let href = original.href(collection: collection)
        #expect(try DAVPath.parse(href) == original, "\(href)")
        #expect(try DAVPath.destination("http://example.org:8620" + href) == original)
        // As a multistatus writes it: the same href, XML-escaped.
        var written = ByteBuffer()
        original.writeHref(collection: collection, escaped: true, to: &written)
        #expect(String(buffer: written) == DAVXML.escape(href), "\(href)")
      }
    }
  }

  @Test("a Destination outside the drive is refused with 502")
  func destinations() throws {
    #expect(try DAVPath.destination("http://h/dav/a%20b").path == "Documents/a b")
    #expect(try DAVPath.destination("/dav/x").path == "Documents/x")
    let error = try #require(throws: DAVError.self) { try DAVPath.destination("http://h/v1/x") }
    #expect(error.status.code == 502)
  }

  @Test("If headers: tagged and untagged lists, Not, tokens and ETags")
  func ifHeaders() throws {
    let header = try DAVIfHeader.parse(
      "<http://h/dav/a> (<urn:uuid:1> [\"e1\"]) (Not <DAV:no-lock> [\"e2\"])")
    #expect(header.lists.count == 2)
    #expect(
      header.lists[0].resource == "http://h/dav/a" && header.lists[1].resource == "http://h/dav/a")
    #expect(header.lists[1].conditions[0] == .init(negated: true, token: "DAV:no-lock"))
    #expect(header.tokens == ["urn:uuid:1", "DAV:no-lock"])
    // The first list holds with the lock and the ETag; the second with the ETag alone.
    #expect(header.holds { _ in ("e1", ["urn:uuid:1"]) })
    #expect(header.holds { _ in ("e2", []) })
    #expect(!header.holds { _ in ("e1", []) })
    #expect(try DAVIfHeader.parse("(<DAV:no-lock>)").holds { _ in ("x", []) } == false)
    #expect(try DAVIfHeader.parse("(Not <DAV:no-lock>)").holds { _ in (nil, []) })
    for malformed in ["", "()", "(<a>", "(<a> [e", "x", "(Not)", "<a>", "(<a>) junk"] {
      #expect(throws: DAVError.self, "\(malformed)") { try DAVIfHeader.parse(malformed) }
    }
  }

  @Test("generated If headers parse back to their lists", arguments: 0..<4)
  func generatedIfHeaders(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed) + 100)
    for _ in 0..<300 {
      let lists = (0..<Int.random(in: 1...3, using: &random)).map { _ in
        DAVIfHeader.List(
          resource: Bool.random(using: &random)
            ? "http://h/dav/\(Int.random(in: 0...9, using: &random))" : nil,
          conditions: (0..<Int.random(in: 1...3, using: &random)).map { _ in
            Bool.random(using: &random)
              ? .init(negated: Bool.random(using: &random), token: "urn:uuid:\(UUID())")
              : .init(
                negated: Bool.random(using: &random),
                etag: "\"\(Int.random(in: 0...99, using: &random))\"")
          })
      }
      var text = ""
      var tag: String?
      for list in lists {
        if list.resource != tag || (list.resource != nil && text.isEmpty) {
          if let resource = list.resource { text += "<\(resource)> " }
        }
        tag = list.resource
        text +=
          "("
          + list.conditions.map { condition in
            (condition.negated ? "Not " : "")
              + (condition.token.map { "<\($0)>" } ?? "[\(condition.etag!)]")
          }.joined(separator: " ") + ") "
      }
      let parsed = try DAVIfHeader.parse(text)
      #expect(parsed.lists.map(\.conditions) == lists.map(\.conditions), "\(text)")
    }
  }

  @Test("byte ranges: one range within the size, or the whole file", arguments: 0..<4)
  func ranges(seed: Int) {
    #expect(DAVRoutes.range("bytes=0-9", size: 100)! == (0, 9))
    #expect(DAVRoutes.range("bytes=-5", size: 10)! == (5, 9))
    #expect(DAVRoutes.range("bytes=5-", size: 10)! == (5, 9))
    #expect(DAVRoutes.range("bytes=5-500", size: 10)! == (5, 9))
    #expect(DAVRoutes.range("bytes=0-1,4-5", size: 10) == nil)
    #expect(DAVRoutes.range("bytes=10-", size: 10) == nil)
    #expect(DAVRoutes.range("bytes=9-3", size: 10) == nil)
    #expect(DAVRoutes.range("bytes=-0", size: 10) == nil)
    #expect(DAVRoutes.range("bytes=0-99999999999999999999", size: 10) == nil)
    #expect(DAVRoutes.range("items=0-1", size: 10) == nil)
    var random = SeededGenerator(seed: UInt64(seed) + 200)
    for _ in 0..<2000 {
      let size = Int.random(in: 0...1 << 30, using: &random)
      let a = Int.random(in: -10...size + 10, using: &random)
      let b = Int.random(in: -10...size + 10, using: &random)
      let header = ["bytes=\(a)-\(b)", "bytes=\(a)-", "bytes=-\(b)"].randomElement(using: &random)!
      if let (start, end) = DAVRoutes.range(header, size: size) {
        #expect(0 <= start && start <= end && end < size, "\(header)")
      }
    }
  }

  @Test("hostile XML bodies are refused or bounded, never expanded or followed")
  func hostileXML() throws {
    var nested = ""
    for _ in 0..<100 { nested += "<a>" }
    for _ in 0..<100 { nested += "</a>" }
    #expect(throws: DAVError.self) { try DAVElement.parse(Array(nested.utf8)) }
    var laughs = "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY l0 \"lollollollollol\">"
    for level in 1...12 {
      laughs += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">"
    }
    laughs += "]><D:propfind xmlns:D=\"DAV:\"><D:prop><x>&l12;</x></D:prop></D:propfind>"
    if let element = try? DAVElement.parse(Array(laughs.utf8)) {
      #expect(element.innerXML.utf8.count < 1 << 20)
    }
    let external =
      "<?xml version=\"1.0\"?><!DOCTYPE p [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><D:propfind xmlns:D=\"DAV:\"><D:prop><y>&x;</y></D:prop></D:propfind>"
    if let element = try? DAVElement.parse(Array(external.utf8)) {
      #expect(!element.innerXML.contains("root:"))
    }
    #expect(throws: DAVError.self) {
      try DAVElement.parse(Array("<a xmlns:b=\"\"><b:c/></a>".utf8))
    }
    #expect(throws: DAVError.self) { try DAVElement.parse(Array("<a><b></a>".utf8)) }
    #expect(try DAVElement.parse(Array(" \n".utf8)) == nil)
  }

  @Test("a dead property's value comes back with its namespaces")
  func deadPropertyValues() throws {
    let body =
      "<D:propertyupdate xmlns:D=\"DAV:\"><D:set><D:prop><p:x xmlns:p=\"urn:a\"><q:y xmlns:q=\"urn:b\">1 &lt; 2</q:y><z>t</z></p:x></D:prop></D:set></D:propertyupdate>"
    let root = try #require(try DAVElement.parse(Array(body.utf8)))
    let property = try #require(root.child("set")?.child("prop")?.children.first)
    #expect(property.namespace == "urn:a" && property.name == "x")
    let again = try #require(
      try DAVElement.parse(Array("<w xmlns=\"urn:w\">\(property.innerXML)</w>".utf8)))
    #expect(again.children.map(\.namespace) == ["urn:b", "urn:w"])
    #expect(again.children.map(\.name) == ["y", "z"])
    #expect(again.children[0].text == "1 < 2")
  }

  @Test("a password is taken over TLS, or from this machine, never in clear from another")
  func passwordsOnlyOverTLS() {
    for local in ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1", ""] {
      #expect(DAVRoutes.takesPasswords(tls: false, peer: local), "\(local)")
    }
    for remote in ["192.0.2.2", "10.0.0.1", "fd00::2", "::ffff:192.0.2.2", "128.0.0.1"] {
      #expect(!DAVRoutes.takesPasswords(tls: false, peer: remote), "\(remote)")
      #expect(DAVRoutes.takesPasswords(tls: true, peer: remote), "\(remote)")
    }
  }

  @Test("a file's type follows its last extension, whatever its case")
  func contentTypes() {
    let cases: [(String, String)] = [
      ("Photo.PNG", "image/png"), ("notes.txt", "text/plain; charset=utf-8"),
      ("archive.tar.JPEG", "image/jpeg"), ("trailing.txt.", "text/plain; charset=utf-8"),
      ("png", "image/png"), ("...", "application/octet-stream"), ("", "application/octet-stream"),
      ("Résumé.pdf", "application/pdf"), ("Ünïcode.ÄBC", "application/octet-stream"),
    ]
    for (name, type) in cases { #expect(PublicPage.contentType(name) == type, "\(name)") }
  }

  @Test("dates are written as Foundation writes them, for any time", arguments: 0..<4)
  func dates(seed: Int) {
    #expect(DAVXML.httpDate(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(DAVXML.isoDate(0) == "1970-01-01T00:00:00Z")
    #expect(DAVXML.httpDate(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
    #expect(DAVXML.httpDate(.nan) == DAVXML.httpDate(0))
    #expect(DAVXML.httpDate(1e300).hasSuffix("9999 23:59:59 GMT"))
    let http = Date.VerbatimFormatStyle(
      format:
        "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
      locale: Locale(identifier: "en_US_POSIX"), timeZone: .gmt,
      calendar: Calendar(identifier: .gregorian))
    var random = SeededGenerator(seed: UInt64(seed) + 300)
    for _ in 0..<2000 {
      let seconds = Double(Int64.random(in: -2_000_000_000...8_000_000_000, using: &random))
      let date = Date(timeIntervalSince1970: seconds)
      #expect(DAVXML.httpDate(seconds) == date.formatted(http), "\(seconds)")
      #expect(DAVXML.isoDate(seconds) == date.formatted(.iso8601), "\(seconds)")
    }
  }

  @Test("a lock covers its resource, and what is inside it only if deep")
  func lockCoverage() throws {
    let folder = try #require(try DAVPath.parse("/dav/F"))
    let inside = try #require(try DAVPath.parse("/dav/F/g/h"))
    let beside = try #require(try DAVPath.parse("/dav/Fg"))
    var lock = DAVLock(
      token: "t", path: folder, deep: true, exclusive: true, owner: "", timeout: 1, expires: 0)
    #expect(lock.covers(folder) && lock.covers(inside) && !lock.covers(beside))
    lock.deep = false
    #expect(lock.covers(folder) && !lock.covers(inside))
  }

  @Test("a device's commit writes its item's paths, and a package's changed members or all of it")
  func writtenPaths() {
    func request(_ kind: ItemKind, _ path: String, deleted: Bool = false, removed: [String] = [])
      -> CommitRequest
    {
      let member = ManifestMember(
        path: "a/b.txt", size: 0, mode: 0o644, modified: 0, hash: ContentHash(of: Data()),
        chunks: [])
      return CommitRequest(
        commit: "c", item: "i", kind: kind, path: path, base: 1, deleted: deleted,
        change: ManifestChange(upserted: [member], removed: removed))
    }
    let file = DAVStore.written(by: request(.file, "Documents/y.txt"), stored: "Documents/x.txt")
    #expect(file.paths == ["Documents/x.txt", "Documents/y.txt"] && file.trees.isEmpty)
    let edited = DAVStore.written(
      by: request(.package, "Documents/P.mydoc", removed: ["c"]), stored: "Documents/P.mydoc")
    #expect(
      edited.paths == [
        "Documents/P.mydoc", "Documents/P.mydoc", "Documents/P.mydoc/a/b.txt",
        "Documents/P.mydoc/c",
      ] && edited.trees.isEmpty)
    let moved = DAVStore.written(
      by: request(.package, "Documents/Q.mydoc"), stored: "Documents/P.mydoc")
    #expect(moved.trees == ["Documents/P.mydoc"])
    let deleted = DAVStore.written(
      by: request(.package, "Documents/P.mydoc", deleted: true), stored: "Documents/P.mydoc")
    #expect(deleted.trees == ["Documents/P.mydoc"])
    let created = DAVStore.written(by: request(.package, "Documents/N.mydoc"), stored: nil)
    #expect(created.paths == ["Documents/N.mydoc", "Documents/N.mydoc/a/b.txt"])
  }

  @Test("a lock's owner reads as its text: markup, entities and mailto: taken away")
  func ownerNames() {
    func name(_ owner: String) -> String {
      DAVLock(
        token: "t", path: .drive, deep: false, exclusive: true, owner: owner, timeout: 1,
        expires: 0
      ).ownerName
    }
    // As the LOCK's `owner` is stored: its children written back, each with its namespace.
    #expect(name("<x:href xmlns:x=\"DAV:\">mailto:ana@example.org</x:href>") == "ana@example.org")
    #expect(name("Word on Ana&#39;s laptop") == "Word on Ana's laptop")
    #expect(name("Word on\n  Ana&apos;s &amp; Bo&lt;b&gt;") == "Word on Ana's & Bo<b>")
    #expect(name("&amp;lt;") == "&lt;")
    #expect(
      name("") == "a WebDAV client" && name("<x:href xmlns:x=\"DAV:\"/> ") == "a WebDAV client")
    #expect(name(String(repeating: "x", count: 1000)).count == 200)
  }

  @Test("an app password never begins with a dash, which a command would take for an option")
  func passwordsAreNotOptions() {
    // One in 64 did: rclone obscure and litmus then failed on the password they were given.
    let tokens = (0..<2000).map { _ in AccountStore.randomToken() }
    #expect(tokens.allSatisfy { $0.first != "-" && $0.count == 43 })
    #expect(Set(tokens).count == tokens.count)
  }
}
