import Foundation
import Hummingbird
import NIOPosix
import QuireSyncProtocol

/// Signing in with the account's password, as `/v1/sign-in` (a device) and the web drive
/// (a browser's session) do: slowed by ``SignInThrottle``, and checked with bcrypt off the event
/// loops.
struct PasswordSignIn: Sendable {
  let store: ServerStore
  let throttle: SignInThrottle

  /// How a sign-in ended, when it did not throw.
  enum Outcome: Sendable {
    /// The new device.
    case signedIn(SignInResponse)
    /// The answer to send instead: wait and try again.
    case refused(Response)
  }

  /// A new device named `device` of `user`'s (ending once unused for `lifetime`, if given), or
  /// the error response to send: `rateLimited` (with `Retry-After`) while the throttle makes
  /// this user or address wait.
  func signIn(
    user: String, password: String, device: String, lifetime: Duration? = nil, peer: String
  ) async throws -> Outcome {
    if let wait = throttle.begin(user: user, address: peer) {
      var response = ServerResponse.error(
        SyncError(
          .rateLimited,
          "Too many wrong passwords for this account or from this address. Try again in \(wait.components.seconds + 1) s."
        ))
      response.headers[.retryAfter] = String(wait.components.seconds + 1)
      return .refused(response)
    }
    // bcrypt takes tens of milliseconds by design: on NIO's blocking pool, so a burst of
    // sign-ins never holds up the event loops or the cooperative threads serving devices.
    do {
      let answer = try await NIOThreadPool.singleton.runIfActive {
        try store.accounts.signIn(
          user: user, password: password, device: device, lifetime: lifetime)
      }
      throttle.finish(user: user, address: peer, succeeded: true)
      return .signedIn(answer)
    } catch let error as SyncError where error.code == .badCredentials {
      throttle.finish(user: user, address: peer, succeeded: false)
      throw error
    } catch {
      throttle.finish(user: user, address: peer, succeeded: nil)
      throw error
    }
  }
}
