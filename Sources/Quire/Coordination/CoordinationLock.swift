import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The cross-process, hierarchical reader/writer lock under ``FileCoordinator``.
///
/// Every item maps (by a hash of its canonical path) to a slot of byte ranges in one lock file,
/// locked with open-file-description locks (`F_OFD_SETLK`). Such locks belong to the descriptor:
/// when a process dies — even by SIGKILL — the kernel drops them at once, so no lock is ever
/// stuck. A slot holds three things:
///
/// - the **gate** byte, taken exclusively for a moment before the item byte, so a waiting
///   writer (which holds the gate while it waits) stops new readers from overtaking it;
/// - the **item** byte: shared for readers of the item and for every operation inside it,
///   exclusive for a writer of the item — so writing a package excludes everything inside it;
/// - the **inner** range of 4096 bytes: a writer of something inside the item takes one byte of it
///   exclusively (a random one, so writers of different members rarely meet), and a reader of
///   the item takes the whole range shared — so reading a package waits for writers inside it,
///   while writers of different members run side by side.
///
/// All requests of one operation are taken in increasing file offset, the one global order that
/// makes deadlock between coordinations impossible. Two paths that share a slot merely wait for
/// each other. Waiting polls with a growing pause (at most 1 ms), so it can be cancelled.
struct CoordinationLock: ~Copyable {
  struct Request: Comparable {
    var offset: Int64
    var length: Int64
    var exclusive: Bool
    var gated: Bool
    static func < (a: Request, b: Request) -> Bool {
      (a.offset, -a.length) < (b.offset, -b.length)
    }
  }

  static let slotCount: UInt64 = 1 << 20
  static let slotSize: Int64 = 4104
  static let innerOffset: Int64 = 8
  static let innerLength: Int64 = 4096

  private let fd: Int32

  /// The requests for reading (`exclusive == false`) or writing `path`. A writer takes byte
  /// `innerByte` of each ancestor's inner range: one operation passes the same byte for all its
  /// items, so writing a thousand files of one folder holds one byte of each ancestor, not a
  /// thousand (the kernel keeps a file's locks in a list, and a first sync's batches spent a
  /// seventh of the receiver's time taking them).
  static func requests(
    for path: String, exclusive: Bool, innerByte: Int64 = .random(in: 0..<innerLength)
  ) -> [Request] {
    var result: [Request] = []
    var ancestor = ""
    let components = path.split(separator: "/", omittingEmptySubsequences: true)
    for (index, component) in components.enumerated() {
      let isTarget = index == components.count - 1
      let base = slot(of: ancestor.isEmpty ? "/" : ancestor)
      result.append(Request(offset: base + 1, length: 1, exclusive: false, gated: true))
      if exclusive {
        result.append(
          Request(offset: base + innerOffset + innerByte, length: 1, exclusive: true, gated: false))
      }
      ancestor += "/" + component
      if isTarget {
        let target = slot(of: ancestor)
        result.append(Request(offset: target + 1, length: 1, exclusive: exclusive, gated: true))
        if !exclusive {
          result.append(
            Request(
              offset: target + innerOffset, length: innerLength, exclusive: false, gated: false))
        }
      }
    }
    if components.isEmpty {
      result.append(
        Request(offset: slot(of: "/") + 1, length: 1, exclusive: exclusive, gated: true))
    }
    return result
  }

  /// Takes every request (merged and sorted), waiting as needed; throws
  /// ``QuireError/Code-swift.struct/cancelled`` as soon as `isCancelled` says so.
  init(_ requests: [Request], isCancelled: () -> Bool) throws(QuireError) {
    try CoordinationRuntime.prepare()
    let file = CoordinationRuntime.lockFile
    let fd = Glibc.open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
      throw .system(
        SystemCallError(call: "open", errno: cquire_errno()), action: "open the lock file",
        path: file)
    }
    var merged: [Int64: Request] = [:]
    for request in requests {
      let key = request.offset &* 128 &+ request.length
      if var existing = merged[key] {
        existing.exclusive = existing.exclusive || request.exclusive
        existing.gated = existing.gated || request.gated
        merged[key] = existing
      } else {
        merged[key] = request
      }
    }
    do {
      for request in merged.values.sorted() {
        if request.gated {
          let gate = request.offset - 1
          try Self.take(fd, gate, 1, exclusive: true, isCancelled: isCancelled)
          defer { _ = cquire_ofd_lock(fd, 0, gate, 1, 0) }
          try Self.take(
            fd, request.offset, request.length, exclusive: request.exclusive,
            isCancelled: isCancelled)
        } else {
          try Self.take(
            fd, request.offset, request.length, exclusive: request.exclusive,
            isCancelled: isCancelled)
        }
      }
    } catch {
      Glibc.close(fd)
      throw error
    }
    self.fd = fd
  }

  /// Releases everything at once.
  deinit { Glibc.close(fd) }

  private static func slot(of path: String) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return Int64(hash % slotCount) * slotSize
  }

  private static func take(
    _ fd: Int32, _ offset: Int64, _ length: Int64, exclusive: Bool, isCancelled: () -> Bool
  ) throws(QuireError) {
    var pause: UInt32 = 20
    var attempts = 0
    while true {
      if cquire_ofd_lock(fd, exclusive ? 2 : 1, offset, length, 0) == 0 { return }
      let error = cquire_errno()
      guard error == EAGAIN || error == EACCES || error == EINTR else {
        throw .system(
          SystemCallError(call: "fcntl", errno: error), action: "lock",
          path: CoordinationRuntime.lockFile)
      }
      if isCancelled() {
        throw QuireError(
          .cancelled, "The coordinated access was cancelled while it waited for another program.")
      }
      attempts += 1
      if attempts < 8 {
        sched_yield()
      } else {
        usleep(pause)
        pause = min(pause * 2, 1000)
      }
    }
  }
}
