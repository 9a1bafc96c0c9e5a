import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuireSync
import QuireSyncProtocol
import Testing

private typealias S = SyncTestSupport

/// Public read-only links: a page anyone's browser opens without an account, which never writes
/// and stops working the moment its owner revokes it.
@Suite("Public links", .timeLimit(.minutes(4)))
struct PublicLinkTests {
  @Test(
    "a link shows a file and a package read-only, refuses every write and other accounts, and is 404 once revoked",
    arguments: ServerBackend.allCases)
  func publicLinks(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let alice = try await server.client("alice")
    let bob = try await server.client("bob")
    let text = "<b>Trip</b> & notes"
    _ = try await alice.commit(
      S.commit(
        "note-1", path: "Documents/Trip <1>.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes(text)], with: alice)))

    // Another account cannot make, read or revoke a link to alice's item by guessing it.
    for attempt in [
      { () async throws -> Void in _ = try await bob.makePublicLink(item: "note-1") },
      { () async throws -> Void in try await bob.revokePublicLink(item: "note-1") },
    ] {
      await #expect { try await attempt() } throws: { ($0 as? SyncError)?.code == .notFound }
    }
    #expect(try await bob.publicLink(item: "note-1") == nil)

    let link = try await alice.makePublicLink(item: "note-1")
    #expect(try await alice.makePublicLink(item: "note-1") == link, "one link per item")
    #expect(try await alice.publicLink(item: "note-1") == link)
    let url = link.url(on: server.url).absoluteString
    let page = try await Self.get(url)
    #expect(page.status == 200)
    #expect(page.text.contains("Trip &lt;1&gt;.txt"))
    #expect(page.text.contains("&lt;b&gt;Trip&lt;/b&gt; &amp; notes"))
    #expect(!page.text.contains("<b>Trip"), "the document's text is escaped")
    #expect(page.headers["Content-Security-Policy"].first?.contains("sandbox") == true)
    #expect(page.headers["Referrer-Policy"].first == "no-referrer")
    #expect(try await Self.get(url + "/raw").text == text)

    // A link never writes: every other method is refused and the item is unchanged.
    let before = try await alice.changes(since: 0).entries
    for method in [HTTPMethod.POST, .PUT, .DELETE, .PATCH] {
      let answer = try await Self.get(url, method: method, body: S.bytes("{}"))
      #expect(!(200..<300).contains(answer.status), "\(method) \(answer.status)")
    }
    #expect(try await alice.changes(since: 0).entries == before)

    // A package: its thumbnail, its members listed, and its zip archive.
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>T</text></svg>"
    _ = try await alice.commit(
      S.commit(
        "album-1", path: "Documents/Album.mydoc", base: nil,
        upserted: try await S.upload(
          ["QuickLook/Thumbnail.svg": S.bytes(svg), "text.txt": S.bytes("album text")],
          with: alice)))
    let album = try await alice.makePublicLink(item: "album-1").url(on: server.url).absoluteString
    let albumPage = try await Self.get(album)
    #expect(albumPage.text.contains("raw?member=QuickLook/Thumbnail.svg"))
    #expect(albumPage.text.contains("text.txt"))
    #expect(try await Self.get(album + "/raw?member=text.txt").text == "album text")
    let zip = try await Self.get(album + "/archive")
    #expect(zip.headers["Content-Type"].first == "application/zip")
    let folder = try TemporaryDirectory()
    let archive = folder.url.appendingPathComponent("album.zip")
    try Data(zip.body).write(to: archive)
    let listing = try Executables.runCommand(
      URL(fileURLWithPath: "/usr/bin/unzip"), ["-Z1", archive.path])
    #expect(listing.stdout.contains("Album.mydoc/text.txt"), "\(listing.stdout)")
    #expect(listing.stdout.contains("Album.mydoc/QuickLook/Thumbnail.svg"))
    #expect(try await Self.get(album + "/raw?member=../../etc/passwd").status == 404)

    // Revoked: 404 at once, for the page and its bytes; the other link still works.
    try await alice.revokePublicLink(item: "note-1")
    #expect(try await Self.get(url).status == 404)
    #expect(try await Self.get(url + "/raw").status == 404)
    #expect(try await alice.publicLink(item: "note-1") == nil)
    #expect(try await Self.get(album).status == 200)
    #expect(try await Self.get(server.url.absoluteString + "/s/not-a-link").status == 404)
  }

  @Test("a link sends a large file a slice at a time, every chunk in order, repeated ones too")
  func largeFile() async throws {
    let server = try await SyncServerProcess.started()
    let alice = try await server.client("alice")
    var random = SystemRandomNumberGenerator()
    let block = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
    let bytes = block + block + block  // more than one slice, and chunks that repeat
    let members = try await S.upload(["": bytes], with: alice)
    let hashes = members[0].chunks.map(\.hash)
    #expect(Set(hashes).count < hashes.count, "the file repeats chunks")
    _ = try await alice.commit(
      S.commit("big-1", path: "Documents/Big.bin", base: nil, kind: .file, upserted: members))
    let url = try await alice.makePublicLink(item: "big-1").url(on: server.url).absoluteString
    let answer = try await Self.get(url + "/raw")
    #expect(answer.status == 200)
    #expect(answer.headers["Content-Length"].first == "\(bytes.count)")
    #expect(answer.body == bytes)
  }

  @Test(
    "quire share --public prints a link to a synced document; quire unshare --public revokes it")
  func shareCommand() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("shared text", to: "Shared.txt")
    let path = a.url("Shared.txt").path
    // Synced: it has reached device B.
    #expect(await eventually(seconds: 120) { b.text("Shared.txt") == "shared text" })
    let shared = try a.quire(["share", path, "--public"])
    #expect(shared.status == 0, "\(shared.stderr)")
    let link = shared.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(link.hasPrefix(server.url.absoluteString + "/s/"), "\(shared.stdout)")
    #expect(try await Self.get(link).text.contains("shared text"))
    #expect(try a.quire(["share", path]).stdout.contains(link))
    let revoked = try a.quire(["unshare", path, "--public"])
    #expect(revoked.status == 0, "\(revoked.stderr)")
    #expect(try await Self.get(link).status == 404)
    #expect(try a.quire(["share", path]).stdout.contains("Not shared."))
    let again = try a.quire(["unshare", path, "--public"])
    #expect(again.status != 0)
    #expect(again.stderr.contains("has no public link"), "\(again.stderr)")
    let outside = try a.quire(["share", a.home.url.path + "/nowhere.txt", "--public"])
    #expect(outside.status != 0)
    #expect(outside.stderr.contains("There is no document"), "\(outside.stderr)")
  }

  /// One request without an account.
  static func get(_ url: String, method: HTTPMethod = .GET, body: [UInt8]? = nil) async throws
    -> (status: Int, text: String, body: [UInt8], headers: HTTPHeaders)
  {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let bytes = Array(buffer: try await response.body.collect(upTo: 64 << 20))
    return (
      Int(response.status.code), String(decoding: bytes, as: UTF8.self), bytes, response.headers
    )
  }
}
