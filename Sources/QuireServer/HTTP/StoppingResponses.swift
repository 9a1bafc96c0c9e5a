import NIOCore
import NIOHTTPTypes

/// Bounds how long a stopping server waits for an answer it is still writing: from the moment
/// the server is asked to stop (NIO's quiesce event), or from the answer's start if that is
/// later, the answer has ``grace`` to reach its client whole; then its connection is closed.
///
/// A stopping server lets the requests in flight finish, and an answer has finished only once
/// its client has taken its bytes. A client that reads nothing of a large download (its receive
/// window shut, the server's writes held back) would otherwise hold the server's exit for good.
/// The client of an answer cut short sees the connection close before the length its headers
/// promised, and asks again: a download resumes with `Range`, a device's fetch is retried.
///
/// An answer counts as written when the socket took its end (the write's promise), not when the
/// server handed its end to the connection: what a client never reads may sit in the
/// connection's buffer.
final class StoppingResponses: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPRequestPart
  typealias InboundOut = HTTPRequestPart
  typealias OutboundIn = HTTPResponsePart
  typealias OutboundOut = HTTPResponsePart

  /// How long an answer may still take once the server is stopping.
  let grace: TimeAmount
  private var stopping = false
  /// Answers whose head is written and whose end the socket has not taken yet.
  private var responding = 0
  private var cut: Scheduled<Void>?

  init(grace: TimeAmount) { self.grace = grace }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(let head) where head.status.kind != .informational:
      responding += 1
      if stopping {  // an answer begun after the stop has its own grace
        cancelCut()
        scheduleCut(context: context)
      }
      context.write(data, promise: promise)
    case .end:
      let written = promise ?? context.eventLoop.makePromise()
      written.futureResult.assumeIsolated().whenComplete { [self] _ in
        responding -= 1
        if responding == 0 { cancelCut() }
      }
      context.write(data, promise: written)
    default:
      context.write(data, promise: promise)
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent, !stopping {
      stopping = true
      if responding > 0 { scheduleCut(context: context) }
    }
    context.fireUserInboundEventTriggered(event)
  }

  func handlerRemoved(context: ChannelHandlerContext) { cancelCut() }

  private func scheduleCut(context: ChannelHandlerContext) {
    cut = context.eventLoop.assumeIsolated().scheduleTask(in: grace) { [self] in
      cut = nil
      if responding > 0 { context.close(promise: nil) }
    }
  }

  private func cancelCut() {
    cut?.cancel()
    cut = nil
  }
}
