import Synchronization

/// Collects, for the task that asks, the members that incremental saves wrote: a document uses
/// it to recognise its own writes among member events (``MemberSignatures``) without walking
/// the package. Set as a task-local around a save; saves outside one record nothing.
final class SaveReport: Sendable {
  /// The report of the current task's saves, if it asked for one.
  @TaskLocal static var current: SaveReport?

  private let touched = Mutex<[String: [String]]>([:])

  /// Records that a save of the package at `package` wrote, removed or re-stamped `members`
  /// (paths relative to the package).
  func record(package: String, members: [String]) {
    touched.withLock { $0[package, default: []].append(contentsOf: members) }
  }

  /// The members the saves of the package at `package` changed, when every save of it was made
  /// member by member (an incremental save records itself even when nothing changed); nil
  /// when none was.
  func savedMembers(of package: String) -> [String]? {
    touched.withLock { $0[package] }
  }

  /// The members recorded for the package at `package`.
  func members(of package: String) -> [String] {
    touched.withLock { $0[package] ?? [] }
  }
}
