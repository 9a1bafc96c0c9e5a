import CQuireShims
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The presenters of this process, and their registrations in the runtime folder that other
/// processes read: one symbolic link per presenter, named `PID-TOKEN-NUMBER`, pointing at the
/// presented path.
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
    let registration = Registration(
      presenter: presenter, path: path, queue: PresenterQueue(presenter: presenter),
      watcher: PresenterWatcher(number: number, path: path))
    registrations.withLock { $0[number] = registration }
    publish(number, path: path)
  }

  /// Unregisters `presenter`.
  func remove(_ presenter: any FilePresenter) {
    guard let number = number(of: presenter) else { return }
    let removed = registrations.withLock { $0.removeValue(forKey: number) }
    removed?.queue.finish()
    removed?.watcher?.stop()
    unlink(linkPath(number))
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
    let (changed, watcher): (Bool, PresenterWatcher?) = registrations.withLock { all in
      guard var registration = all[number], registration.path != path else { return (false, nil) }
      let old = registration.watcher
      registration.path = path
      registration.watcher = PresenterWatcher(number: number, path: path)
      all[number] = registration
      return (true, old)
    }
    watcher?.stop()
    if changed { publish(number, path: path) }
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

  /// The presenters of other processes related to `path`, read from the runtime folder.
  func remoteMatches(of path: String) -> [PresenterMatch] {
    let folder = CoordinationRuntime.presenters
    var matches: [PresenterMatch] = []
    let ownPrefix = owner + "-"
    for name in CoordinationRuntime.names(in: folder) where !name.hasPrefix(ownPrefix) {
      guard let separator = name.lastIndex(of: "-"),
        let number = Int(name[name.index(after: separator)...]),
        let target = CoordinationRuntime.linkTarget(folder + "/" + name),
        let relation = PresenterMatch.Relation(presenter: target, item: path)
      else { continue }
      matches.append(
        PresenterMatch(
          relation: relation, presentedPath: target,
          owner: String(name[..<separator]), number: number))
    }
    return matches
  }

  /// Removes the registrations and socket of a process that is gone.
  func forget(owner: String) {
    let folder = CoordinationRuntime.presenters
    for name in CoordinationRuntime.names(in: folder) where name.hasPrefix(owner + "-") {
      unlink(folder + "/" + name)
    }
    unlink(CoordinationRuntime.socket(of: owner))
  }

  private func linkPath(_ number: Int) -> String {
    CoordinationRuntime.presenters + "/\(owner)-\(number)"
  }

  /// Points the registration at `path`, replacing any earlier one atomically.
  private func publish(_ number: Int, path: String) {
    let link = linkPath(number)
    let staging = link + ".new"
    unlink(staging)
    guard symlink(path, staging) == 0 else { return }
    if rename(staging, link) != 0 { unlink(staging) }
  }

  private func startServer() throws(QuireError) {
    try server.withLock { (running: inout PresenterServer?) throws(QuireError) in
      if running == nil {
        running = try PresenterServer(socket: CoordinationRuntime.socket(of: owner))
      }
    }
  }
}
