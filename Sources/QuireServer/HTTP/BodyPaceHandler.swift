import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body arrives slower than its ``BodyPace`` allows.
///
/// It counts only the time a read is outstanding: from the moment the pipeline asks for more
/// bytes (`read`) to the moment a part arrives. When the server holds reads back (its handler has
/// not taken what came), that time is not the client's. One scheduled check per body is
/// enough: the deadline it was set for is never later than the real one (within a body, the
/// allowance left only shrinks by the time waited), and it sets itself again for what is left
/// when it fires early. A new request's head cancels the check of the body before.
///
/// When the server stops (NIO's quiesce event), a body still arriving may keep it waiting one
/// second more in all, whatever came before: a stopping server waits for the requests in flight,
/// and a client sending a body slowly, or not at all, would hold its exit for the whole grace.
final class BodyPaceHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  private var pace: BodyPace
  /// The pace once the server is stopping.
  static let stopping = BodyPace(grace: .seconds(1), minimumRate: 1 << 30)
  /// Whether a request's head arrived and its end has not.
  private var inBody = false
  private var received = 0
  /// The time the server waited on the client for this body, before the current wait.
  private var waited: Duration = .zero
  /// When the outstanding read was asked for, if one is.
  private var waitingSince: NIODeadline?
  private var check: Scheduled<Void>?

  init(pace: BodyPace) { self.pace = pace }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head:
      inBody = true
      received = 0
      waited = .zero
      waitingSince = nil
      cancelCheck()  // one set for a body before may be far off: this body's wait sets its own
    case .body(let bytes):
      received += bytes.readableBytes
      stopWaiting(now: context.eventLoop.now)
    case .end:
      inBody = false
      waitingSince = nil
      cancelCheck()
    }
    context.fireChannelRead(data)
  }

  func read(context: ChannelHandlerContext) {
    if inBody, waitingSince == nil {
      waitingSince = context.eventLoop.now
      if check == nil { schedule(context: context) }
    }
    context.read()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent, pace != Self.stopping {
      pace = Self.stopping
      received = 0
      waited = .zero
      cancelCheck()
      if waitingSince != nil {
        waitingSince = context.eventLoop.now
        schedule(context: context)
      }
    }
    context.fireUserInboundEventTriggered(event)
  }

  func handlerRemoved(context: ChannelHandlerContext) { cancelCheck() }

  private func cancelCheck() {
    check?.cancel()
    check = nil
  }

  private func stopWaiting(now: NIODeadline) {
    guard let since = waitingSince else { return }
    waited += Self.duration(now - since)
    waitingSince = nil
  }

  /// The time the server has waited on the client for this body, the current wait included.
  private func totalWaited(now: NIODeadline) -> Duration {
    waited + (waitingSince.map { Self.duration(now - $0) } ?? .zero)
  }

  /// Checks again when the allowance would run out if the current wait went on.
  private func schedule(context: ChannelHandlerContext) {
    let now = context.eventLoop.now
    let left = pace.allowance(received: received) - totalWaited(now: now)
    let delay = TimeAmount.nanoseconds(Self.nanoseconds(max(left, .zero)) + 1)
    check = context.eventLoop.assumeIsolated().scheduleTask(in: delay) { [self] in
      check = nil
      guard inBody, waitingSince != nil else { return }  // the next wait checks again
      if pace.isTooSlow(received: received, waited: totalWaited(now: context.eventLoop.now)) {
        context.close(promise: nil)
      } else {
        schedule(context: context)
      }
    }
  }

  private static func duration(_ amount: TimeAmount) -> Duration {
    .nanoseconds(amount.nanoseconds)
  }

  private static func nanoseconds(_ duration: Duration) -> Int64 {
    let parts = duration.components
    let seconds = min(parts.seconds, Int64.max / 1_000_000_000 - 1)
    return seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000
  }
}
