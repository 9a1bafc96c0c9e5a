import Foundation

/// Watches a folder tree (or one file) with inotify and reports changes as an `AsyncSequence` of
/// ``FileEvent``s — the role of FSEvents and dispatch sources on Apple's systems.
///
/// The watch lives exactly as long as the iteration: the iterator owns it, and ending the
/// `for try await` loop releases the inotify descriptor. Folders that appear are watched at once
/// (and anything created in them before the watch took hold is reported), the two halves of a
/// move become one ``FileEvent/Kind/moved(from:)``, bursts of writes are coalesced, and a kernel
/// queue overflow becomes a ``FileEvent/Kind/rescan`` instead of silently lost changes.
///
/// ```swift
/// for try await event in FileMonitor(watching: libraryURL) {
///   print(event)   // "moved /lib/a.txt -> /lib/b.txt"
/// }
/// ```
///
/// The sequence ends after reporting the deletion of the watched item itself.
///
/// Every monitor of a process shares one inotify instance and one reading thread (the system
/// allows 128 instances per user by default); a folder watched by several monitors costs one
/// watch. Reaching the system's limit of watches (`fs.inotify.max_user_watches`), or of
/// instances (`fs.inotify.max_user_instances`), ends the sequence with a ``QuireError`` of code
/// ``QuireError/Code-swift.struct/limitReached`` that names the setting and how to raise it.
public struct FileMonitor: AsyncSequence, Sendable {
  /// The events.
  public typealias Element = FileEvent

  /// The watched folder or file.
  public let root: URL
  /// How long the monitor waits for a quiet moment before reporting a batch (bursts within it
  /// coalesce); a batch is never held back longer than 20 ms.
  public var coalescingInterval: Duration
  /// Whether folders below the root are watched too; without it only the root folder's own
  /// entries are reported.
  public var recursive: Bool

  /// A monitor of the tree at `root` (or, without `recursive`, of the folder's own entries).
  public init(
    watching root: URL, recursive: Bool = true, coalescingInterval: Duration = .milliseconds(1)
  ) {
    self.root = root.standardizedFileURL
    self.recursive = recursive
    self.coalescingInterval = coalescingInterval
  }

  /// Starts watching; the watch ends when the iterator is released.
  public func makeAsyncIterator() -> AsyncThrowingStream<FileEvent, any Error>.Iterator {
    makeStream().makeAsyncIterator()
  }

  /// Starts watching now (the watch is in place when this returns; events are buffered until
  /// the stream is iterated); the watch ends when the iteration ends or the stream is released.
  func makeStream() -> AsyncThrowingStream<FileEvent, any Error> {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: FileEvent.self)
    do {
      let hub = try InotifyHub.shared()
      let id = try hub.subscribe(
        root: root.path, recursive: recursive, coalescing: Swift.max(.zero, coalescingInterval),
        continuation: continuation)
      continuation.onTermination = { _ in hub.unsubscribe(id) }
    } catch {
      continuation.finish(throwing: error)
    }
    return stream
  }
}
