import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// The web drive's pure parts: its listing's order and kinds, its session cookie, and which
/// requests its session may make.
@Suite("The web drive")
struct WebDriveTests {
  @Test("a listing keeps every child once, folders first, then by name whatever the case")
  func listingOrder() {
    var generator = SeededGenerator(seed: 29)
    for _ in 0..<200 {
      var resources: [DAVResource] = []
      var names = Set<String>()
      for _ in 0..<Int.random(in: 0...30, using: &generator) {
        let name = String(
          (0..<Int.random(in: 1...6, using: &generator)).map { _ in
            "aBcD é.1".randomElement(using: &generator)!
          })
        guard names.insert(name).inserted else { continue }
        let path = DAVPath.drive.appending(name)
        let kind: DAVResource.Kind =
          switch Int.random(in: 0..<3, using: &generator) {
          case 0: .folder
          case 1: .file(item: "I-\(name)", revision: 1)
          default: .package(item: "P-\(name)", revision: 2)
          }
        resources.append(DAVResource(path: path, kind: kind, size: 7, modified: 1, etag: "e"))
      }
      let listing = WebListing(resources, access: .writer)
      #expect(listing.access == "writer")
      #expect(Set(listing.entries.map(\.name)) == names)
      let order = listing.entries.map { ($0.kind == "folder" ? 0 : 1, $0.name.lowercased()) }
      #expect(zip(order, order.dropFirst()).allSatisfy { $0 <= $1 })
      for entry in listing.entries {
        #expect((entry.kind == "file") == (entry.size != nil))
        #expect((entry.kind == "folder") == (entry.item == nil))
      }
    }
  }

  @Test(
    "the session cookie is HttpOnly and SameSite=Strict, Secure with TLS, and forgotten at once")
  func cookie() {
    let kept = WebSession.setCookie("T0KEN", secure: false)
    #expect(kept.hasPrefix("quire_session=T0KEN;"))
    #expect(kept.contains("HttpOnly") && kept.contains("SameSite=Strict"))
    #expect(!kept.contains("Secure") && !kept.contains("Max-Age"))
    #expect(WebSession.setCookie("T0KEN", secure: true).hasSuffix("; Secure"))
    #expect(WebSession.setCookie(nil, secure: false).contains("quire_session=; Path=/"))
    #expect(WebSession.setCookie(nil, secure: false).contains("Max-Age=0"))
  }

  @Test("trusted hosts match a Host by name alone, whatever its case, port or brackets")
  func trustedHosts() {
    let hosts = TrustedHosts(["Drive.Example.", "2001:db8::1"])
    for host in [
      "drive.example", "DRIVE.EXAMPLE:8443", "drive.example.", "[2001:db8::1]:443", "[2001:DB8::1]",
      "localhost:8620", "127.0.0.1", "[::1]:8620",
    ] {
      #expect(hosts.allows(host), "\(host)")
    }
    for host in [
      nil, "", ":8443", "evil.example", "drive.example.evil", "xdrive.example", "[2001:db8::1",
      "[2001:db8::1]x", "2001:db8::1", "127.0.0.2", "drive.example@evil",
    ] as [String?] {
      #expect(!hosts.allows(host), "\(host ?? "nil")")
    }
    // Configured names are read as a Host is: a port or brackets do not keep them from matching.
    let written = TrustedHosts(["Drive.Example:8443", "[2001:DB8::2]", "2001:db8::3"])
    #expect(written.names == ["drive.example", "2001:db8::2", "2001:db8::3"])
    #expect(written.allows("drive.example:80") && written.allows("[2001:db8::3]:8620"))
    #expect(TrustedHosts.invalid(["drive.example", "", "x"]) == "")
    #expect(TrustedHosts.invalid([":8443"]) == ":8443")
    #expect(TrustedHosts.invalid(["drive.example", "[::1]:1"]) == nil)
    #expect(TrustedHosts([]).allows("anything.example:1"))
    #expect(TrustedHosts([]).allows(nil))
  }

  @Test("the session reads from anywhere on the page, and writes only from the drive's own origin")
  func origin() throws {
    func request(_ method: HTTPRequest.Method, origin: String?, cookie: Bool = true) -> Request {
      var fields = HTTPFields()
      if cookie { fields[.cookie] = "other=1; quire_session=T0KEN" }
      if let origin { fields[.origin] = origin }
      return Request(
        head: HTTPRequest(
          method: method, scheme: "http", authority: "drive.example:8443", path: "/dav/a.txt",
          headerFields: fields),
        body: RequestBody(buffer: ByteBuffer()))
    }
    #expect(try WebSession.token(request(.get, origin: nil)) == "T0KEN")
    #expect(try WebSession.token(request(.head, origin: "http://evil.example")) == "T0KEN")
    #expect(try WebSession.token(request(.get, origin: nil, cookie: false)) == nil)
    for method: HTTPRequest.Method in [.put, .delete, .post, HTTPRequest.Method("MOVE")!] {
      #expect(try WebSession.token(request(method, origin: "http://drive.example:8443")) == "T0KEN")
      #expect(
        try WebSession.token(request(method, origin: "https://drive.example:8443")) == "T0KEN")
      for origin in [nil, "http://evil.example", "http://drive.example", "null"] {
        #expect(throws: SyncError.self) { try WebSession.token(request(method, origin: origin)) }
      }
    }
  }
}
