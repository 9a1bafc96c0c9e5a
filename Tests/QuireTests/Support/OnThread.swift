import Foundation

/// Runs `body`, which blocks (starts a process and waits for it, or reads a child's next line),
/// on a thread of its own, and returns its result once it returns.
///
/// A test on the main actor must block this way. Every `@MainActor` test of the run shares that
/// one actor: a set-up that waited there for a server, an agent or a CLI command held every
/// other document test still, and under CI's load the `mv` test waited behind them past its
/// two-minute limit before its body had run. Nor may the wait hold one of the few cooperative
/// threads every other test needs.
func onThread<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
  try await withCheckedThrowingContinuation { continuation in
    Thread {
      do {
        continuation.resume(returning: try body())
      } catch {
        continuation.resume(throwing: error)
      }
    }.start()
  }
}
