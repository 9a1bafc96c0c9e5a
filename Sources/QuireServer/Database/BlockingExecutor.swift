import NIOPosix

/// The threads a server's requests run on.
///
/// The store's transactions are synchronous: with PostgreSQL each statement waits on its thread
/// for an answer over the network, and with SQLite a commit waits for its fsync and for the
/// writer before it, and a fetch for its blob reads (several accounts fetching at once made
/// others wait 8.6 s when requests ran on the cooperative pool). On Swift's cooperative pool (one thread per core) a few such
/// waits stop every other request, event stream and keep-alive of the process — measured with
/// 2000 devices on two replicas, a `/v1/health` took 270 ms and a notification 5.6 s at p99.
/// Requests that run here instead wait on threads of their own, and the cooperative pool stays
/// free. No library serves a task executor over a thread pool (NIO's `NIOThreadPool` runs
/// closures, not jobs), so this is the small adapter between the two.
final class BlockingExecutor: TaskExecutor {
  private let pool: NIOThreadPool

  /// The process's one pool, started on first use and never stopped.
  static let shared = BlockingExecutor(threads: 64)

  private init(threads: Int) {
    pool = NIOThreadPool(numberOfThreads: threads)
    pool.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    pool.submit { _ in job.runSynchronously(on: executor) }
  }
}
