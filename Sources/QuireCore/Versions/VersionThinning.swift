import Foundation

/// Which versions of a document history keeps as it ages, as Time Machine and the macOS version
/// store thin theirs: every save for a day, then one an hour (for the rest of the first week),
/// then one a day until a month, then one a week. A pure value: the caller removes what ``versionsToRemove(_:now:)`` returns.
///
/// In each period the newest version is the one kept (it holds everything saved before it in
/// that period). The current version and unresolved conflict versions are never thinned: the
/// caller leaves them out of the list.
///
/// The cost is O(n log n) for n versions.
public struct VersionThinning: Sendable, Hashable {
  /// How long every version is kept.
  public var keepAll: Duration
  /// Until this age, one version an hour.
  public var hourlyUntil: Duration
  /// Until this age, one version a day; older, one a week.
  public var dailyUntil: Duration

  /// The default: every save for a day, hourly to a week, daily to 30 days, weekly after.
  public static let standard = VersionThinning(
    keepAll: .seconds(86_400), hourlyUntil: .seconds(7 * 86_400),
    dailyUntil: .seconds(30 * 86_400))

  /// A policy; each age must not be shorter than the one before.
  public init(keepAll: Duration, hourlyUntil: Duration, dailyUntil: Duration) {
    self.keepAll = keepAll
    self.hourlyUntil = max(hourlyUntil, keepAll)
    self.dailyUntil = max(dailyUntil, self.hourlyUntil)
  }

  /// The identifiers among `versions` (identifier and save date) that the policy no longer
  /// keeps at `now`.
  public func versionsToRemove<ID: Hashable>(_ versions: [(id: ID, date: Date)], now: Date)
    -> Set<ID>
  {
    var keptPerBucket: Set<String> = []
    var remove = Set<ID>()
    for version in versions.sorted(by: { $0.date > $1.date }) {
      let age = now.timeIntervalSince(version.date)
      guard let bucket = bucket(age: age, date: version.date) else { continue }
      if !keptPerBucket.insert(bucket).inserted { remove.insert(version.id) }
    }
    return remove
  }

  /// The period a version of this age falls in (nil: kept whatever happens).
  private func bucket(age: TimeInterval, date: Date) -> String? {
    let seconds = date.timeIntervalSince1970
    if age < keepAll.seconds { return nil }
    if age < hourlyUntil.seconds { return "h\(Int((seconds / 3600).rounded(.down)))" }
    if age < dailyUntil.seconds { return "d\(Int((seconds / 86_400).rounded(.down)))" }
    return "w\(Int((seconds / 604_800).rounded(.down)))"
  }
}

extension Duration {
  fileprivate var seconds: TimeInterval {
    let (whole, fraction) = components
    return TimeInterval(whole) + TimeInterval(fraction) / 1e18
  }
}
