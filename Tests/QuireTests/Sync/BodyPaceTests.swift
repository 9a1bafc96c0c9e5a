import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing

@testable import QuireServer

#if canImport(Glibc)
  import Glibc
#endif

/// A request's body sent a byte at a time does not hold a connection: each byte is a decoded
/// part, so the idle timeout never ends it, but its pace does. A body that keeps up, or a server
/// that holds reads back itself, is never cut off.
@Suite("Slow request bodies", .timeLimit(.minutes(3)))
struct BodyPaceTests {
  let pace = BodyPace(grace: .seconds(20), minimumRate: 500)

  @Test("the allowance is the grace plus a second per minimum rate of bytes, and never overflows")
  func allowance() {
    #expect(pace.allowance(received: 0) == .seconds(20))
    #expect(pace.allowance(received: 500) == .seconds(21))
    #expect(pace.allowance(received: 250) == .milliseconds(20_500))
    #expect(pace.allowance(received: -5) == .seconds(20))
    #expect(pace.allowance(received: .max) > .seconds(Int64.max / 1000))
    let extreme = BodyPace(grace: .seconds(-1), minimumRate: .max)
    #expect(extreme.grace == .zero && extreme.minimumRate == 1 << 30)
    #expect(extreme.allowance(received: .max) > .zero)
    #expect(BodyPace(grace: .seconds(1), minimumRate: 0).minimumRate == 1)
  }

  @Test(
    "over generated bodies: one that keeps the minimum rate is never too slow; one below it is, in time"
  )
  func generated() {
    var random = SystemRandomNumberGenerator()
    for _ in 0..<2_000 {
      let pace = BodyPace(
        grace: .milliseconds(Int.random(in: 0...60_000, using: &random)),
        minimumRate: Int.random(in: 1...100_000, using: &random))
      // A body sent in parts at `rate` bytes a second, each part after the wait it costs.
      let fast = Double.random(in: 1...50, using: &random)
      let rate = Double(pace.minimumRate) * fast
      var received = 0
      var waited = Duration.zero
      for _ in 0..<Int.random(in: 1...200, using: &random) {
        let part = Int.random(in: 1...65_536, using: &random)
        waited += .nanoseconds(Int64(Double(part) / rate * 1e9))
        received += part
        #expect(!pace.isTooSlow(received: received, waited: waited), "\(pace) at \(rate) B/s")
      }
      // A body slower than the rate runs out of allowance, and no later than its arithmetic says.
      let slow = Double(pace.minimumRate) / Double.random(in: 1.5...100, using: &random)
      let seconds = pace.grace / .seconds(1) / (1 - slow / Double(pace.minimumRate))
      let late = seconds * 1.01 + 1
      #expect(pace.isTooSlow(received: Int(slow * late), waited: .seconds(late)))
    }
  }

  /// A connection through a ``BodyPaceHandler`` on a loop whose time the test advances, with a
  /// request's head already in.
  static func connection(_ pace: BodyPace) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
    let loop = EmbeddedEventLoop()
    let channel = EmbeddedChannel(handler: BodyPaceHandler(pace: pace), loop: loop)
    try channel.connect(to: try SocketAddress(ipAddress: "203.0.113.7", port: 40_000)).wait()
    let head = HTTPRequest(method: .post, scheme: "http", authority: "x", path: "/v1/chunks")
    try channel.writeInbound(HTTPRequestPart.head(head))
    return (channel, loop)
  }

  static func body(_ count: Int) -> HTTPRequestPart {
    .body(ByteBuffer(repeating: 0x58, count: count))
  }

  /// Sends `channel` a byte of body every 10 s of `loop`'s time until it closes, for at most
  /// ten minutes; answers the seconds that took.
  static func trickleUntilClosed(_ channel: EmbeddedChannel, _ loop: EmbeddedEventLoop) throws
    -> Int
  {
    var elapsed = 0
    while channel.isActive, elapsed < 600 {
      channel.read()
      loop.advanceTime(by: .seconds(10))
      elapsed += 10
      if channel.isActive { try channel.writeInbound(Self.body(1)) }
    }
    return elapsed
  }

  @Test("a body that never comes is closed at the grace; one a byte at a time soon after")
  func slowBody() throws {
    let (silent, silentLoop) = try Self.connection(pace)
    silent.read()
    silentLoop.advanceTime(by: .seconds(19))
    #expect(silent.isActive, "within the grace")
    silentLoop.advanceTime(by: .seconds(2))
    #expect(!silent.isActive, "a body that never came past its grace")

    let (trickle, loop) = try Self.connection(pace)
    let elapsed = try Self.trickleUntilClosed(trickle, loop)
    #expect(!trickle.isActive, "a byte every 10 s is closed")
    #expect(elapsed <= 30, "closed \(elapsed) s in, not soon after the 20 s grace")
  }

  @Test("a body that keeps the rate, a finished one and a server that holds reads are never cut")
  func neverCut() throws {
    let (steady, loop) = try Self.connection(pace)
    for _ in 0..<600 {  // ten minutes at 600 bytes a second
      steady.read()
      loop.advanceTime(by: .seconds(1))
      try steady.writeInbound(Self.body(600))
    }
    #expect(steady.isActive, "a body above the minimum rate, however long")

    let (held, heldLoop) = try Self.connection(pace)
    try held.writeInbound(Self.body(10))
    heldLoop.advanceTime(by: .seconds(3_600))  // no read asked for: the server is busy
    #expect(held.isActive, "the server's own pause is not the client's")
    held.read()
    heldLoop.advanceTime(by: .seconds(5))
    #expect(held.isActive)

    let (done, doneLoop) = try Self.connection(pace)
    try done.writeInbound(Self.body(10))
    try done.writeInbound(HTTPRequestPart.end(nil))
    done.read()  // waiting for the next request: the idle timeout's business
    doneLoop.advanceTime(by: .seconds(3_600))
    #expect(done.isActive)
  }

  @Test("a fast body does not buy the next request on its connection a slow one")
  func nextRequest() throws {
    let (channel, loop) = try Self.connection(pace)
    // A fast body of 5 MB over 30 s: its check is set far off (an allowance of 10 000 s).
    for _ in 0..<30 {
      channel.read()
      loop.advanceTime(by: .seconds(1))
      try channel.writeInbound(Self.body(166_667))
    }
    try channel.writeInbound(HTTPRequestPart.end(nil))
    let head = HTTPRequest(method: .post, scheme: "http", authority: "x", path: "/v1/chunks")
    try channel.writeInbound(HTTPRequestPart.head(head))
    let elapsed = try Self.trickleUntilClosed(channel, loop)
    #expect(!channel.isActive, "the next body, a byte every 10 s, is closed")
    #expect(elapsed <= 30, "closed \(elapsed) s in, by its own allowance, not the body's before")
  }

  @Test("a stopping server waits at most a second more for a body")
  func stopping() throws {
    let (channel, loop) = try Self.connection(pace)
    channel.read()
    loop.advanceTime(by: .seconds(5))
    channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
    loop.advanceTime(by: .milliseconds(900))
    #expect(channel.isActive, "a second more")
    loop.advanceTime(by: .milliseconds(200))
    #expect(!channel.isActive, "closed a second after the server began to stop, not at the grace")
  }

  @Test("a real server stops within seconds with a body half sent")
  func realServerStops() async throws {
    let server = try await SyncServerProcess.started(arguments: [])
    let fd = try ConnectionGuardTests.connect(to: server.url)
    defer { close(fd) }
    let head = "POST /v1/sign-in HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\nab"
    _ = head.withCString { write(fd, $0, strlen($0)) }
    // The server has the head once it answers another request on another connection.
    let health = try await SyncTestSupport.raw(
      .GET, server.url.appendingPathComponent("v1/health").absoluteString)
    #expect(health.status == 200)
    let started = ContinuousClock.now
    kill(server.process.process.processIdentifier, SIGTERM)
    let status = server.process.wait()
    let took = ContinuousClock.now - started
    #expect(status == 0, "a clean exit")
    #expect(took < .seconds(10), "stopped in \(took), waiting on a body that never came")
  }

  @Test("a real server closes a connection whose body trickles in, and answers others")
  func realServer() async throws {
    let server = try await SyncServerProcess.started(arguments: ["--body-grace", "1"])
    let fd = try ConnectionGuardTests.connect(to: server.url)
    defer { close(fd) }
    let head = "POST /v1/sign-in HTTP/1.1\r\nHost: x\r\nContent-Length: 4000\r\n\r\n"
    _ = head.withCString { write(fd, $0, strlen($0)) }
    // Five bytes a second: 800 s to send, kept open before the fix (the idle timeout is 75 s
    // and every byte resets it).
    let closed = await ConnectionGuardTests.trickleUntilClosed(fd, every: 200)
    #expect(closed, "the server kept a body that trickled in open for 60 s")
    let health = try await SyncTestSupport.raw(
      .GET, server.url.appendingPathComponent("v1/health").absoluteString)
    #expect(health.status == 200)
  }
}
