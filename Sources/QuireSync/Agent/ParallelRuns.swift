import Dispatch
import Foundation
import QuireCore
import Synchronization

/// Work split over the machine's cores in a few contiguous runs: a page of a first sync creates
/// and renames a thousand files, work the kernel does per file and that one thread waits on.
///
/// Each run carries the calling task's ``Sys`` fault hook, so a test that fails a system call
/// fails it in every run, as it would on one thread. Nothing suspends: the caller's actor
/// stays where it was until every run has returned.
enum ParallelRuns {
  /// Runs `body` over `0..<count` split into at most `width` contiguous ranges on as many
  /// threads, and returns each range's result in order. Fewer than `minimum` items run on the
  /// calling thread alone, where a thread's start costs more than it saves.
  static func map<T: Sendable>(
    _ count: Int, width: Int = min(4, ProcessInfo.processInfo.activeProcessorCount),
    minimum: Int = 64, _ body: @Sendable (Range<Int>) -> T
  ) -> [T] {
    guard count >= minimum, width > 1 else { return count == 0 ? [] : [body(0..<count)] }
    let size = (count + min(width, count) - 1) / min(width, count)
    // As many runs as `size` needs: 64 items on 30 threads are 22 runs of 3, none empty.
    let runs = (count + size - 1) / size
    let hook = Sys.faults
    let results = Mutex<[T?]>(Array(repeating: nil, count: runs))
    DispatchQueue.concurrentPerform(iterations: runs) { run in
      let range = (run * size)..<min(count, (run + 1) * size)
      let result = Sys.$faults.withValue(hook) { body(range) }
      results.withLock { $0[run] = result }
    }
    return results.withLock { $0.map { $0! } }
  }
}
