import Foundation
import Testing

/// Transfers cut short — the network dropped by a proxy the test controls, an agent SIGKILLed —
/// in the middle of an upload and of a download (the proxy holds each transfer once 2 MiB have
/// gone, so it is surely in flight): no partial file or revision is ever visible, and once the
/// network or the agent is back everything converges with nothing lost.
@Suite("Quire Sync interrupted mid-transfer")
struct SyncInterruptionTests {
  static let size = 16 << 20

  @Test("the network cut mid-upload and mid-download leaves nothing partial and then converges")
  func networkCut() async throws {
    let (server, toA, toB, a, b) = try Self.devices()
    let bytes = Data(SyncTestSupport.random(Self.size, seed: 16))
    toA.hold(up: toA.bytes.up + (2 << 20))
    toB.hold(down: toB.bytes.down + (2 << 20))
    try bytes.write(to: a.url("Large.bin"))

    #expect(await toA.stalled(), "the upload is under way")
    toA.cut()
    toA.release()
    #expect(!b.exists("Large.bin"), "nothing is committed before every chunk is up")
    toA.restore()
    #expect(await toB.stalled(), "the download is under way")
    toB.cut()
    toB.release()
    #expect(!b.exists("Large.bin"), "a download cut short leaves no partial file")
    toB.restore()
    try SyncDevice.sync(a, b)
    #expect(b.size("Large.bin") == Self.size, "it converges")
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == bytes)
    #expect(try b.hiddenLeftovers().isEmpty)
    withExtendedLifetime(server) {}  // the server runs until the test ends
  }

  @Test("agents SIGKILLed mid-upload and mid-download lose nothing and leave nothing behind")
  func agentsKilled() async throws {
    let (server, toA, toB, a, b) = try Self.devices()
    let bytes = Data(SyncTestSupport.random(Self.size, seed: 17))
    toA.hold(up: toA.bytes.up + (2 << 20))
    toB.hold(down: toB.bytes.down + (2 << 20))
    try bytes.write(to: a.url("Large.bin"))

    #expect(await toA.stalled(), "the upload is under way")
    a.kill()
    toA.release()
    #expect(!b.exists("Large.bin"))
    try a.start()
    #expect(await toB.stalled(), "the download is under way")
    b.kill()
    toB.release()
    #expect(!b.exists("Large.bin"), "a download killed midway leaves no partial file")
    try b.start()
    try SyncDevice.sync(a, b)
    #expect(b.size("Large.bin") == Self.size, "it converges")
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == bytes)
    #expect(try b.hiddenLeftovers().isEmpty, "the killed download's temporary file is cleaned up")
    #expect(FileManager.default.contents(atPath: a.url("Large.bin").path) == bytes)
    withExtendedLifetime(server) {}  // the server runs until the test ends
  }

  @Test("an upload cut midway goes on from the chunks the server already stored")
  func uploadResumes() async throws {
    let (server, toA, toB, a, b) = try Self.devices()
    let bytes = Data(SyncTestSupport.random(Self.size, seed: 18))
    toA.hold(up: toA.bytes.up + (12 << 20))  // within the second 8 MiB request
    try bytes.write(to: a.url("Large.bin"))
    #expect(await toA.stalled(), "the upload is under way")
    // The first request's chunks are stored on the server before the cut.
    #expect(await eventually { Self.packedBytes(server) >= 6 << 20 }, "the first request is stored")
    toA.cut()
    toA.release()
    let before = toA.bytes.up
    toA.restore()
    try SyncDevice.sync(a, b)
    #expect(b.size("Large.bin") == Self.size, "it converges")
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == bytes)
    let resent = toA.bytes.up - before
    #expect(resent < Self.size - (4 << 20), "the retry sent \(resent) bytes")
    withExtendedLifetime((server, toB)) {}  // the server runs until the test ends
  }

  /// The bytes in the server's chunk packs.
  static func packedBytes(_ server: SyncServerProcess) -> Int {
    let files = FileManager.default.enumerator(
      at: server.data.url, includingPropertiesForKeys: [.fileSizeKey])
    var total = 0
    while let file = files?.nextObject() as? URL {
      guard file.deletingLastPathComponent().lastPathComponent == "packs" else { continue }
      total += (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
    }
    return total
  }

  /// A server and two running devices, each reaching it through its own proxy.
  static func devices() throws -> (
    SyncServerProcess, NetworkProxy, NetworkProxy, SyncDevice, SyncDevice
  ) {
    let server = try SyncServerProcess()
    let toA = try NetworkProxy(to: server.url.port!)
    let toB = try NetworkProxy(to: server.url.port!)
    let a = try SyncDevice("A", server: server, via: toA)
    let b = try SyncDevice("B", server: server, via: toB)
    try a.start()
    try b.start()
    return (server, toA, toB, a, b)
  }
}
