import Foundation

/// Notices changes to a presented item by programs that do not coordinate (an editor, `cp`,
/// rsync) through ``FileMonitor``s — the folder holding the item, and the item itself when it is
/// a folder or package — and sends them to the presenter's queue like coordinated ones.
final class PresenterWatcher: Sendable {
  private let task: Task<Void, Never>

  /// Starts watching `path` for presenter `number`, whose messages go to `queue`. The watches
  /// are in place when this returns: a change made after it is reported, whatever the
  /// scheduling of the task that reads them. (Made by that task, they once took hold only when
  /// it first ran; under load, a change between the registration and that moment, such as one
  /// a query's reconcile walk had just missed, went unseen for good.)
  init(number: Int, path: String, queue: PresenterQueue) {
    let parent = (path as NSString).deletingLastPathComponent
    // What the item is, to find it again if a program that does not coordinate moves it away.
    let identity = try? DocumentIdentity.identity(of: URL(fileURLWithPath: path), creating: false)
    var monitors = [
      FileMonitor(watching: URL(fileURLWithPath: parent), recursive: false).makeStream()
    ]
    var info = stat()
    if stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR {
      monitors.append(FileMonitor(watching: URL(fileURLWithPath: path)).makeStream())
    }
    task = Task.detached { [monitors] in
      await withTaskGroup(of: Void.self) { group in
        for events in monitors {
          group.addTask {
            do {
              for try await event in events {
                if Task.isCancelled { return }
                await Self.report(
                  event, queue: queue, number: number, path: path, identity: identity)
              }
            } catch {
              await Self.pollWhenDeaf(error, queue: queue, number: number, path: path)
            }
          }
        }
      }
    }
  }

  func stop() { task.cancel() }

  /// Where the item with `identity`, gone from `path`, is now according to the index (which a
  /// query watching the destination updates), or nil: then it was deleted. A move whose arrival
  /// another watch of this process saw never gets here; it is paired by the monitor. The index
  /// may lag the move by a moment, so it is asked a few times over a quarter of a second.
  private static func relocated(_ identity: String, from path: String) async -> String? {
    for attempt in 0..<5 {
      if attempt > 0 {
        do { try await Task.sleep(for: .milliseconds(50)) } catch { return nil }  // index lag
      }
      for candidate in DocumentIndex.shared.paths(withIdentity: identity) where candidate != path {
        let current = try? DocumentIdentity.identity(
          of: URL(fileURLWithPath: candidate), creating: false)
        if current == identity { return candidate }
      }
    }
    return nil
  }

  /// How often a presenter that cannot be watched checks its own item.
  static let pollInterval = Duration.seconds(1)

  /// When the system's inotify limits leave the presenter without a watch, it checks its own
  /// item every ``pollInterval`` instead of going deaf: a change of its signature is reported
  /// as a change, its disappearance as a deletion. (Members written in place inside a package
  /// are not seen this way; the item's own times are.)
  private static func pollWhenDeaf(
    _ error: any Error, queue: PresenterQueue, number: Int, path: String
  ) async {
    guard (error as? QuireError)?.code == .limitReached else { return }
    var last = FileSignature.of(path)
    while !Task.isCancelled {
      do { try await Task.sleep(for: pollInterval) } catch { return }  // the polling period
      let current = FileSignature.of(path)
      guard current != last || current?.changed != last?.changed else { continue }
      last = current
      let kind: PresenterMessage.Kind = current == nil ? .accommodateDeletion : .didChange
      queue.send(PresenterMessage(kind: kind, presenter: number, path: nil, newPath: nil))
      if current == nil { return }
    }
  }

  private static func report(
    _ event: FileEvent, queue: PresenterQueue, number: Int, path: String, identity: String?
  ) async {
    let send = { (kind: PresenterMessage.Kind, subitem: String?, newPath: String?) in
      queue.send(PresenterMessage(kind: kind, presenter: number, path: subitem, newPath: newPath))
    }
    let isInside = { (candidate: String) in candidate.hasPrefix(path + "/") }
    switch event.kind {
    case .moved(let from) where from == path:
      PresenterRegistry.shared.move(number, to: event.path)
      send(.didMove, event.path, nil)
    case .moved(let from) where isInside(from) && isInside(event.path):
      send(.subitemMoved, from, event.path)
    case .moved(let from) where isInside(from):
      send(.subitemChanged, from, nil)
    case _ where event.path == path:
      if access(path, F_OK) == 0 {
        send(.didChange, nil, nil)
      } else if let identity, let found = await relocated(identity, from: path) {
        PresenterRegistry.shared.move(number, to: found)
        send(.didMove, found, nil)
      } else {
        send(.accommodateDeletion, nil, nil)
      }
    case .created where isInside(event.path), .moved where isInside(event.path):
      send(.subitemAppeared, event.path, nil)
    case .modified, .attributesChanged, .deleted:
      if isInside(event.path) { send(.subitemChanged, event.path, nil) }
    case .rescan: send(.didChange, nil, nil)
    default: break
    }
  }
}
