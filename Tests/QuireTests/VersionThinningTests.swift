import Foundation
import Quire
import Testing

@Suite("Version history thinning")
struct VersionThinningTests {
  let now = Date(timeIntervalSince1970: 1_800_000_000)

  private func ago(_ seconds: Double) -> Date { now.addingTimeInterval(-seconds) }

  @Test("every save of the last day is kept")
  func lastDayKept() {
    let versions = (0..<50).map { (id: $0, date: ago(Double($0) * 600)) }  // every 10 minutes
    let removed = VersionThinning.standard.versionsToRemove(
      versions.filter { now.timeIntervalSince($0.date) < 86_400 }, now: now)
    #expect(removed.isEmpty)
  }

  @Test("older saves thin to one an hour, then a day, then a week, keeping the newest of each")
  func thinsWithAge() {
    let t = now.timeIntervalSince1970
    func start(_ age: Double, _ unit: Double) -> Double { ((t - age) / unit).rounded(.down) * unit }
    let hour = start(3 * 86_400, 3600)  // an hour three days ago
    let day = start(10 * 86_400, 86_400)  // a day ten days ago
    let week = start(60 * 86_400, 604_800)  // a week two months ago
    let versions: [(id: String, date: Date)] = [
      ("hour, late", hour + 3000), ("hour, early", hour + 100), ("hour before", hour - 100),
      ("day, late", day + 80_000), ("day, early", day + 100), ("day before", day - 100),
      ("week, late", week + 600_000), ("week, early", week + 100), ("week before", week - 100),
    ].map { ($0.0, Date(timeIntervalSince1970: $0.1)) }
    #expect(
      VersionThinning.standard.versionsToRemove(versions, now: now)
        == ["hour, early", "day, early", "week, early"])
  }
}
