import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import QuireServer

#if canImport(Glibc)
  import Glibc
#endif

/// A request's head that trickles in (slowloris) does not hold a connection past the idle
/// timeout, and no address holds more than its share of connections.
@Suite("Slow heads and per-address connection caps", .timeLimit(.minutes(3)))
struct ConnectionGuardTests {
  /// An embedded connection from `address` through `connections`'s handler, on a loop whose
  /// time the test advances.
  static func connection(_ connections: ConnectionGuard, from address: String) throws
    -> (EmbeddedChannel, EmbeddedEventLoop)
  {
    let loop = EmbeddedEventLoop()
    let channel = EmbeddedChannel(loop: loop)
    try channel.connect(to: try SocketAddress(ipAddress: address, port: 40_000)).wait()
    try channel.pipeline.syncOperations.addHandler(connections.handler())
    return (channel, loop)
  }

  @Test("an address past its share has further connections closed; loopback is not counted")
  func perAddress() throws {
    let connections = ConnectionGuard(perAddress: 3)
    var held: [(EmbeddedChannel, EmbeddedEventLoop)] = []
    for _ in 0..<3 {
      held.append(try Self.connection(connections, from: "203.0.113.7"))
    }
    #expect(held.allSatisfy { $0.0.isActive })
    let refused = try Self.connection(connections, from: "203.0.113.7").0
    #expect(!refused.isActive, "the fourth connection from one address is closed")
    #expect(try Self.connection(connections, from: "198.51.100.1").0.isActive, "another address")
    #expect(connections.openConnections(from: "203.0.113.7") == 3)
    // One closes: the address may open one more.
    try held[0].0.close().wait()
    held[0].1.run()
    #expect(connections.openConnections(from: "203.0.113.7") == 2)
    #expect(try Self.connection(connections, from: "203.0.113.7").0.isActive)
    for _ in 0..<10 {
      #expect(try Self.connection(connections, from: "127.0.0.1").0.isActive)
      #expect(try Self.connection(connections, from: "::1").0.isActive)
    }
    #expect(connections.openConnections(from: "127.0.0.1") == 0)
  }

  @Test("a real server closes a slowloris connection whose head never ends")
  func slowloris() async throws {
    let server = try await SyncServerProcess.started(arguments: ["--idle-timeout", "2"])
    let fd = try Self.connect(to: server.url)
    defer { close(fd) }
    _ = "GET /v1/health HTTP/1.1\r\nHost: x\r\n".withCString { write(fd, $0, strlen($0)) }
    // A header byte every half second (faster than the idle timeout): a timeout that counted
    // bytes would keep this connection for good.
    let closed = await Self.trickleUntilClosed(fd, every: 500)
    #expect(closed, "the server kept a head that never ended open for 60 s")
    // The server itself answers others as before.
    let health = try await SyncTestSupport.raw(
      .GET, server.url.appendingPathComponent("v1/health").absoluteString)
    #expect(health.status == 200)
  }

  /// A TCP connection to `url`'s port on loopback.
  static func connect(to url: URL) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #expect(fd >= 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(try #require(url.port)).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    #expect(connected == 0)
    return fd
  }

  /// Sends one byte every `milliseconds` until the server closes `fd`, for at most 60 s; true if
  /// it closed. poll's timeout is the attacker's pace, the close is the event waited for. On a
  /// thread of its own: the loop blocks in poll, and must not hold a cooperative thread.
  static func trickleUntilClosed(_ fd: Int32, every milliseconds: Int32) async -> Bool {
    await withCheckedContinuation { continuation in
      Thread {
        let started = ContinuousClock.now
        var closed = false
        while !closed, ContinuousClock.now - started < .seconds(60) {
          _ = "X".withCString { send(fd, $0, 1, Int32(MSG_NOSIGNAL)) }
          var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
          if Glibc.poll(&poll, 1, milliseconds) > 0 {
            var byte: UInt8 = 0
            closed = recv(fd, &byte, 1, 0) <= 0
          }
        }
        continuation.resume(returning: closed)
      }.start()
    }
  }
}
