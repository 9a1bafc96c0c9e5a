import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A real PostgreSQL server (Debian's, which `scripts/test` installs) on a free loopback port
/// over a temporary folder, trusting loopback connections; each server under test gets a
/// database of its own (``database()``).
///
/// ``shared`` is one per test process, started by the first test that asks; a test that stops
/// and starts PostgreSQL makes its own with ``start()``. Each ends with the test process,
/// however that ends: it runs under a shell that shuts it down and removes its folder once its
/// standard input (a pipe only this process holds) closes. `initdb` refuses root, so as root it
/// runs as the `postgres` user.
final class PostgresCluster: Sendable {
  static let shared = Shared()

  /// The port it listens on.
  let port: Int
  let folder: URL
  private let binaries: URL
  private let counter = Counter()

  /// The process-wide cluster.
  actor Shared {
    private var started: Task<PostgresCluster, any Error>?

    func cluster() async throws -> PostgresCluster {
      if started == nil { started = Task { try await PostgresCluster.start() } }
      return try await started!.value
    }

    /// A new empty database in the process-wide cluster.
    func database() async throws -> URL {
      try await cluster().database()
    }
  }

  private init(port: Int, folder: URL, binaries: URL) {
    self.port = port
    self.folder = folder
    self.binaries = binaries
  }

  /// A new cluster, running.
  static func start() async throws -> PostgresCluster {
    guard let binaries = binaries() else {
      throw Failure(
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/test, which installs Debian's postgresql"
      )
    }
    let folder = URL(fileURLWithPath: "/tmp/quire-pg-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    if getuid() == 0 {
      _ = try Executables.runCommand(
        URL(fileURLWithPath: "/bin/chown"), ["postgres:", folder.path])
    }
    let initdb = try Executables.runCommand(
      URL(fileURLWithPath: "/bin/sh"),
      [
        "-c",
        "\(asOwner) '\(binaries.path)/initdb' -D '\(folder.path)/data' -U postgres -A trust --no-sync -E UTF8 >'\(folder.path)/initdb.log' 2>&1; echo $?",
      ])
    guard initdb.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0" else {
      let log =
        (try? String(contentsOf: folder.appendingPathComponent("initdb.log"), encoding: .utf8))
        ?? ""
      throw Failure("initdb failed: \(log.suffix(2000))")
    }
    let cluster = PostgresCluster(
      port: try Network.freePorts(1)[0], folder: folder, binaries: binaries)
    try await cluster.run()
    return cluster
  }

  /// Starts the server over the folder (again, after ``stop()``).
  func run() async throws {
    try? FileManager.default.removeItem(at: folder.appendingPathComponent("stopped"))
    let postgres =
      "\(Self.asOwner) '\(binaries.path)/postgres' -D '\(folder.path)/data' -p \(port) -k '\(folder.path)' -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400 -c shared_buffers=64MB"
    let (keepAlive, _) = try Watchdog.start(
      "\(postgres) >>'\(folder.path)/log' 2>&1",
      stop: "kill -QUIT $w; [ -f '\(folder.path)/stopped' ] || rm -rf '\(folder.path)'")
    Self.held.withLock { $0.append(keepAlive) }
    running.withLock { $0 = keepAlive }
    let deadline = ContinuousClock.now + .seconds(60)
    while !ready() {
      guard ContinuousClock.now < deadline else {
        let log =
          (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
        throw Failure("PostgreSQL did not start within 60 s: \(log.suffix(2000))")
      }
      try await Task.sleep(for: .milliseconds(100))  // polling interval of a bounded wait
    }
  }

  private let running = Mutex<Pipe?>(nil)

  /// Shuts the server down (immediate mode: connections drop, as in a crash), keeping its data.
  func stop() throws {
    try Data().write(to: folder.appendingPathComponent("stopped"))
    guard let pipe = running.withLock({ $0 }) else { return }
    try pipe.fileHandleForWriting.close()
    let deadline = ContinuousClock.now + .seconds(30)
    while ready() && ContinuousClock.now < deadline {
      Thread.sleep(forTimeInterval: 0.05)  // polling interval of a bounded wait
    }
  }

  /// A new empty database, as a `postgres://` address.
  func database() throws -> URL {
    let name = "quire_\(getpid())_\(counter.next())"
    let created = try psql("CREATE DATABASE \(name)")
    guard created.status == 0 else { throw Failure("CREATE DATABASE: \(created.stderr)") }
    return URL(string: "postgres://postgres@127.0.0.1:\(port)/\(name)")!
  }

  /// Runs `sql` with psql against `database`.
  func psql(_ sql: String, database: String = "postgres") throws -> Executables.Output {
    try Executables.runCommand(
      binaries.appendingPathComponent("psql"),
      ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-tAc", sql])
  }

  private func ready() -> Bool {
    let check = try? Executables.runCommand(
      binaries.appendingPathComponent("pg_isready"), ["-h", "127.0.0.1", "-p", String(port)])
    return check?.status == 0
  }

  /// `setpriv` to the postgres user when this process is root (postgres refuses root).
  private static var asOwner: String {
    getuid() == 0 ? "setpriv --reuid=postgres --regid=postgres --init-groups" : ""
  }

  private static func binaries() -> URL? {
    let root = URL(fileURLWithPath: "/usr/lib/postgresql")
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    return versions.sorted { $0.compare($1, options: .numeric) == .orderedDescending }
      .map { root.appendingPathComponent("\($0)/bin") }
      .first {
        FileManager.default.isExecutableFile(atPath: $0.appendingPathComponent("initdb").path)
      }
  }

  /// Keeps the watchdog pipes open for the life of the process.
  private static let held = Mutex<[Pipe]>([])

  private final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
      value.withLock {
        $0 += 1
        return $0
      }
    }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
