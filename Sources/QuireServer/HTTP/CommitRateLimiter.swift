import Foundation
import Synchronization

/// A token bucket per device: a burst of commits, then a steady rate. A device past it gets
/// `429 rateLimited` with `Retry-After`, and everything else keeps being served.
final class CommitRateLimiter: Sendable {
  private struct Bucket {
    var tokens: Double
    var updated: ContinuousClock.Instant
  }
  private let burst: Double
  private let perSecond: Double
  private let buckets = Mutex<[String: Bucket]>([:])

  init(burst: Int, perSecond: Double) {
    self.burst = Double(burst)
    self.perSecond = perSecond
  }

  /// Takes one commit from `device`'s bucket; false if it is empty.
  func allow(_ device: String, now: ContinuousClock.Instant = .now) -> Bool {
    buckets.withLock { buckets in
      var bucket = buckets[device] ?? Bucket(tokens: burst, updated: now)
      let elapsed = now - bucket.updated
      let seconds =
        Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      bucket.tokens = min(burst, bucket.tokens + seconds * perSecond)
      bucket.updated = now
      guard bucket.tokens >= 1 else {
        buckets[device] = bucket
        return false
      }
      bucket.tokens -= 1
      buckets[device] = bucket
      return true
    }
  }
}
