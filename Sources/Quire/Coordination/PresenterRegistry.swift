import CQuireShims
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The presenters of this process, and their registrations in the runtime folder that other
/// processes read (see ``PresenterDirectory``), named `PID-TOKEN-NUMBER`.
final class PresenterRegistry: Sendable {
  static let shared = PresenterRegistry()

  struct Registration: Sendable {
    weak var presenter: (any FilePresenter)?
    var path: String
    let queue: PresenterQueue
    var watcher: PresenterWatcher?
  }

  /// This process's name in the runtime folder: `PID-TOKEN`.
  let owner = "\(getpid())-\(UInt32.random(in: .min ... .max))"
  private let registrations = Mutex<[Int: Registration]>([:])
  private let nextNumber = Mutex(1)
  private let server = Mutex<PresenterServer?>(nil)

  /// Registers `presenter` (again registering one already present does nothing).
  func add(_ presenter: any FilePresenter) throws(QuireError) {
    guard number(of: presenter) == nil, let url = presenter.presentedItemURL else { return }
    try CoordinationRuntime.prepare()
    try startServer()
    let number = nextNumber.withLock { next in
      next += 1
      return next - 1
    }
    let path = CoordinationRuntime.canonicalPath(url)
    // A provider (a sync agent) hears uncoordinated changes through its own monitor and wants
    // only the messages addressed to it: it is not watched a second time. The watch of any
    // other is in place before `add` returns (a query walks its scope after presenting it, and
    // counts on the watch for every change the walk misses).
    let queue = PresenterQueue(presenter: presenter)
    let registration = Registration(
      presenter: presenter, path: path, queue: queue,
      watcher: presenter is any FileProvider
        ? nil : PresenterWatcher(number: number, path: path, queue: queue))
    registrations.withLock { $0[number] = registration }
    publish(number, path: path)
  }

  /// Unregisters `presenter`.
  func remove(_ presenter: any FilePresenter) {
    guard let number = number(of: presenter) else { return }
    let removed = registrations.withLock { $0.removeValue(forKey: number) }
    removed?.queue.finish()
    removed?.watcher?.stop()
    if let removed { PresenterDirectory.unpublish(entryName(number), path: removed.path) }
  }

  /// The registered presenters that are still alive.
  var presenters: [any FilePresenter] {
    registrations.withLock { $0.values.compactMap(\.presenter) }
  }

  func number(of presenter: any FilePresenter) -> Int? {
    registrations.withLock { all in
      all.first { $0.value.presenter === presenter }?.key
    }
  }

  /// The presenter's queue, if it is still registered.
  func queue(of number: Int) -> PresenterQueue? {
    registrations.withLock { $0[number]?.queue }
  }

  /// Records that presenter `number` now presents `path` (it moved).
  func move(_ number: Int, to path: String) {
    let old: Registration? = registrations.withLock { all in
      guard var registration = all[number], registration.path != path else { return nil }
      let old = registration
      registration.path = path
      if registration.watcher != nil {
        registration.watcher = PresenterWatcher(
          number: number, path: path, queue: registration.queue)
      }
      all[number] = registration
      return old
    }
    guard let old else { return }
    old.watcher?.stop()
    PresenterDirectory.unpublish(entryName(number), path: old.path)
    publish(number, path: path)
  }

  /// The presenters of this process related to `path`, except `excluded`.
  func localMatches(of path: String, excluding excluded: (any FilePresenter)?)
    -> [PresenterMatch]
  {
    registrations.withLock { all in
      all.compactMap { number, registration in
        guard let presenter = registration.presenter, presenter !== excluded,
          let relation = PresenterMatch.Relation(presenter: registration.path, item: path)
        else { return nil }
        return PresenterMatch(
          relation: relation, presentedPath: registration.path, owner: nil, number: number)
      }
    }
  }

  /// The presenters of other processes related to `path`, read from the runtime folder
  /// (`entries` lists one of its folders, see ``PresenterDirectory/candidates(for:entries:)``).
  func remoteMatches(
    of path: String,
    entries: (String) -> [(name: String, target: String)] = PresenterDirectory.entries(in:)
  ) -> [PresenterMatch] {
    let ownPrefix = owner + "-"
    var matches: [PresenterMatch] = []
    var seen = Set<String>()
    for (name, target) in PresenterDirectory.candidates(for: path, entries: entries)
    where !name.hasPrefix(ownPrefix) && seen.insert(name).inserted {
      guard let separator = name.lastIndex(of: "-"),
        let number = Int(name[name.index(after: separator)...]),
        let relation = PresenterMatch.Relation(presenter: target, item: path)
      else { continue }
      matches.append(
        PresenterMatch(
          relation: relation, presentedPath: target, owner: String(name[..<separator]),
          number: number))
    }
    return matches
  }

  /// Removes the registrations and socket of a process that is gone.
  func forget(owner: String) {
    PresenterDirectory.forget(prefix: owner + "-")
    unlink(CoordinationRuntime.socket(of: owner))
  }

  private func entryName(_ number: Int) -> String { "\(owner)-\(number)" }

  private func publish(_ number: Int, path: String) {
    PresenterDirectory.publish(entryName(number), path: path)
  }

  private func startServer() throws(QuireError) {
    try server.withLock { (running: inout PresenterServer?) throws(QuireError) in
      if running == nil {
        running = try PresenterServer(socket: CoordinationRuntime.socket(of: owner))
      }
    }
  }
}
