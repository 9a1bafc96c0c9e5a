import CQuireShims
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The process's one inotify instance, shared by every ``FileMonitor`` (and so by every
/// presenter's watch and every query), with the one thread that reads it.
///
/// The kernel allows each user 128 instances by default (`fs.inotify.max_user_instances`); one
/// per monitor would leave an app with 64 open documents deaf. Here a watch descriptor is held
/// by every subscription that watches its folder (the kernel gives the same descriptor for the
/// same folder) and removed when the last one lets go; events are dispatched by descriptor to
/// each holder's own ``InotifyTranslator``, which pairs moves and coalesces bursts for it.
///
/// All mutable state sits in one `Mutex`; events are yielded and streams finished outside it,
/// since finishing a stream runs its termination handler, which unsubscribes.
final class InotifyHub: Sendable {
  /// One ``FileMonitor`` iteration.
  struct Subscriber {
    var translator: InotifyTranslator
    var recursive: Bool
    var coalescing: Duration
    var continuation: AsyncThrowingStream<FileEvent, any Error>.Continuation
    var descriptors: Set<Int32> = []
    var batchStart: ContinuousClock.Instant?
    var lastEvent: ContinuousClock.Instant?
  }

  struct State {
    var subscribers: [Int: Subscriber] = [:]
    /// Which subscribers hold each watch descriptor.
    var holders: [Int32: Set<Int>] = [:]
    var nextID = 0
    /// Where recent moves arrived, by the kernel's cookie, so a subscriber that saw only a
    /// move's first half can report where it went (the last 1 024 moves).
    var arrivals: [UInt32: String] = [:]
    var arrivalOrder: [UInt32] = []

    mutating func noteArrival(cookie: UInt32, path: String) {
      if arrivals.updateValue(path, forKey: cookie) == nil { arrivalOrder.append(cookie) }
      if arrivalOrder.count > 1024 { arrivals[arrivalOrder.removeFirst()] = nil }
    }
  }

  /// What the reading thread does once it has let go of the lock.
  enum Delivery {
    case events([FileEvent], AsyncThrowingStream<FileEvent, any Error>.Continuation)
    case finish(QuireError?, AsyncThrowingStream<FileEvent, any Error>.Continuation)
  }

  /// The longest a batch is held back while events keep coming.
  static let maximumBatchAge = Duration.milliseconds(20)
  static let mask = UInt32(
    IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
      | IN_DELETE_SELF | IN_EXCL_UNLINK)

  let inotify: Int32
  let state = Mutex(State())
  /// At most this many watches for the process (`QUIRE_INOTIFY_MAX_WATCHES`, to leave room for
  /// other programs or to test the fallback); the system's own limit applies regardless.
  let maximumWatches: Int

  private static let instance = Mutex<InotifyHub?>(nil)

  /// The shared hub, made on first use (again after a failed attempt).
  static func shared() throws(QuireError) -> InotifyHub {
    try instance.withLock { (hub: inout InotifyHub?) throws(QuireError) -> InotifyHub in
      if let hub { return hub }
      let made = try InotifyHub()
      hub = made
      BackgroundThread.start("quire-inotify") { made.run() }
      return made
    }
  }

  private init() throws(QuireError) {
    let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard fd >= 0 else {
      throw Self.limitError(
        SystemCallError(call: "inotify_init1", errno: cquire_errno()), path: "",
        instances: true)
    }
    inotify = fd
    maximumWatches =
      ProcessInfo.processInfo.environment["QUIRE_INOTIFY_MAX_WATCHES"].flatMap { Int($0) }
      ?? .max
  }

  /// Watches `root` for a new subscriber, before any event can be missed; returns its number.
  func subscribe(
    root: String, recursive: Bool, coalescing: Duration,
    continuation: AsyncThrowingStream<FileEvent, any Error>.Continuation
  ) throws(QuireError) -> Int {
    try state.withLock { (state: inout State) throws(QuireError) -> Int in
      let id = state.nextID
      state.nextID += 1
      var subscriber = Subscriber(
        translator: InotifyTranslator(root: root), recursive: recursive, coalescing: coalescing,
        continuation: continuation)
      do throws(QuireError) {
        try watchTree(root, id: id, &subscriber, &state, reportContents: false)
      } catch {
        release(subscriber.descriptors, id: id, &state)
        throw error
      }
      state.subscribers[id] = subscriber
      return id
    }
  }

  /// Ends a subscription and lets go of its watches.
  func unsubscribe(_ id: Int) {
    state.withLock { state in
      guard let subscriber = state.subscribers.removeValue(forKey: id) else { return }
      release(subscriber.descriptors, id: id, &state)
    }
  }

  /// The number of watch descriptors the process holds.
  var watchCount: Int { state.withLock { $0.holders.count } }

  /// Drops `id`'s hold on `descriptors`, removing each watch nobody holds any more.
  func release(_ descriptors: Set<Int32>, id: Int, _ state: inout State) {
    for descriptor in descriptors {
      state.holders[descriptor]?.remove(id)
      if state.holders[descriptor]?.isEmpty == true {
        state.holders[descriptor] = nil
        inotify_rm_watch(inotify, descriptor)
      }
    }
  }

  /// Watches `path` and, for a recursive subscriber, every folder below it; with
  /// `reportContents`, reports what is already inside each folder not watched before (it may
  /// predate the watch). A folder watched before keeps its descriptor and takes `path` as its
  /// path, which is how a walk after a move or a rename-exchange puts watches back in place.
  /// A folder gone before its watch (ENOENT) is skipped: it was renamed or deleted after its
  /// parent's listing, so its parent's watch reports that, and a rename is walked again.
  func watchTree(
    _ path: String, id: Int, _ subscriber: inout Subscriber, _ state: inout State,
    reportContents: Bool
  ) throws(QuireError) {
    let descriptor: Int32
    do throws(SystemCallError) {
      try Sys.check("inotify_add_watch")
      if state.holders.count >= maximumWatches {
        throw SystemCallError(call: "inotify_add_watch", errno: ENOSPC)
      }
      descriptor = inotify_add_watch(inotify, path, Self.mask)
      if descriptor < 0 { throw Sys.failure("inotify_add_watch") }
    } catch {
      if error.errno == ENOENT && path != subscriber.translator.root { return }  // vanished
      throw Self.limitError(error, path: path, instances: false)
    }
    state.holders[descriptor, default: []].insert(id)
    let isNew = subscriber.descriptors.insert(descriptor).inserted
    let report = reportContents && isNew
    subscriber.translator.watched(descriptor, path: path)
    // A folder's entries matter only to find folders to watch or to report what is inside.
    guard subscriber.recursive || report, let entries = try? Sys.listDirectory(at: path)
    else { return }
    for entry in entries {
      let child = path + "/" + entry.name
      var isDirectory = entry.type == UInt8(DT_DIR)
      if entry.type == UInt8(DT_UNKNOWN), let info = try? Sys.status(child) {
        isDirectory = info.isDirectory
      }
      if report { subscriber.translator.discovered(child, isDirectory: isDirectory) }
      if isDirectory && subscriber.recursive {
        try watchTree(child, id: id, &subscriber, &state, reportContents: reportContents)
      }
    }
  }

  /// The error for a failed watch or instance: at a limit, it names the sysctl to raise.
  static func limitError(_ error: SystemCallError, path: String, instances: Bool) -> QuireError {
    guard error.errno == ENOSPC || error.errno == EMFILE else {
      return QuireError.system(error, action: "watch", path: path)
    }
    let name = instances ? "max_user_instances" : "max_user_watches"
    let limit =
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/\(name)", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    let what = instances ? "inotify instances" : "inotify watches"
    let suggested = instances ? "1024" : "524288"
    return QuireError(
      .limitReached,
      "Could not watch “\(path)”: the system's limit of \(what) is reached (fs.inotify.\(name) = \(limit))."
        + " Raise it, for example with: sudo sysctl fs.inotify.\(name)=\(suggested)",
      path: path, cause: error)
  }
}
