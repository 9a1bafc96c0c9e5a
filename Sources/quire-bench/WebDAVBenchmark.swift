import ArgumentParser
import Foundation

/// `quire server`'s WebDAV at `/dav/` beside Apache's mod_dav, in one run: a folder of many
/// 4 KiB files uploaded to each with `rclone copy`, listed with one PROPFIND (`Depth: 1`) and
/// downloaded again with `rclone copy`, every download checked against the originals.
struct WebDAVBenchmark: ParsableCommand {
  /// `quire-bench webdav`.
  static let configuration = CommandConfiguration(
    commandName: "webdav",
    abstract: "Time PROPFIND and rclone uploads and downloads of a folder, beside Apache's mod_dav."
  )

  /// Files in the folder.
  @Option(help: "Files of 4 KiB in the folder.") var files = 10_000
  /// rclone's `--transfers`.
  @Option(help: "rclone's parallel transfers, the same for both servers.") var transfers = 4
  /// PROPFIND runs timed.
  @Option(help: "PROPFIND runs after one warm-up (the median is reported).") var runs = 5
  /// Where the scratch folder goes.
  @Option(help: "Folder for the servers' files (default: the temporary folder).")
  var directory: String?

  /// Rejects sizes that measure nothing.
  func validate() throws {
    guard files >= 1, transfers >= 1, runs >= 1 else {
      throw ValidationError("Give at least one file, one transfer and one run.")
    }
  }

  /// Makes the files, starts both servers, measures and prints the table and `RESULT` line.
  func run() throws {
    guard Rclone.isInstalled else {
      throw RawFiles.Failure(description: "rclone is not installed (apt-get install rclone)")
    }
    let scratch = try Measurement.scratch(directory, "webdav")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let local = scratch.appendingPathComponent("local")
    let names = try Self.makeFiles(files, in: local)
    let quire = try QuireDAVServer(root: scratch.appendingPathComponent("quire"))
    defer { quire.stop() }
    let apache = try ApacheDAVPeer(root: scratch.appendingPathComponent("apache"))
    defer { apache.stop() }
    let targets = [
      ("Quire /dav/", quire.target),
      ("Apache mod_dav", DAVTarget(url: apache.url, user: apache.user, password: apache.password)),
    ]

    var uploads: [Double] = []
    for (name, target) in targets {
      print("rclone copy of \(files) files up to \(name)…")
      uploads.append(
        try DAVClients.rcloneCopy(local.path, "q:flat", target: target, transfers: transfers))
    }

    print("PROPFIND Depth 1 of flat/, 1 warm-up and \(runs) runs each…")
    var listings: [[DAVClients.Listing]] = targets.map { _ in [] }
    for run in 0...runs {
      for (index, (name, target)) in targets.enumerated() {
        let listing = try DAVClients.propfind(target, path: "flat/")
        guard listing.responses == files + 1 else {
          throw RawFiles.Failure(
            description: "\(name) listed \(listing.responses - 1) of \(files) files in flat/")
        }
        if run > 0 { listings[index].append(listing) }
      }
    }
    let propfinds = listings.map { Measurement.median($0.map(\.milliseconds)) }

    var downloads: [Double] = []
    for (index, (name, target)) in targets.enumerated() {
      print("rclone copy of flat/ down from \(name)…")
      let copy = scratch.appendingPathComponent("download-\(index)")
      downloads.append(
        try DAVClients.rcloneCopy("q:flat", copy.path, target: target, transfers: transfers))
      try Self.verify(copy, against: local, names: names, from: name)
    }

    Measurement.table(
      [
        "server", "PROPFIND Depth 1 ms (median of \(runs))", "its body bytes",
        "rclone up ms", "rclone down ms",
      ],
      targets.indices.map { index in
        [
          targets[index].0, Measurement.format(propfinds[index]),
          String(listings[index].first?.bytes ?? 0), Measurement.format(uploads[index]),
          Measurement.format(downloads[index]),
        ]
      })
    print(
      "RESULT webdav files=\(files) propfind_ms=\(Measurement.format(propfinds[0])) "
        + "apache_propfind_ms=\(Measurement.format(propfinds[1])) "
        + "rclone_up_ms=\(Measurement.format(uploads[0])) "
        + "apache_rclone_up_ms=\(Measurement.format(uploads[1])) "
        + "rclone_down_ms=\(Measurement.format(downloads[0])) "
        + "apache_rclone_down_ms=\(Measurement.format(downloads[1]))")
  }

  /// `count` files of 4 KiB of distinct pseudo-random bytes in `folder`; returns their names.
  static func makeFiles(_ count: Int, in folder: URL) throws -> [String] {
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return try (0..<count).map { index in
      let name = String(format: "file-%05d.bin", index)
      try Data(SyncBytesBenchmark.bytes(4096, seed: UInt64(index))).write(
        to: folder.appendingPathComponent(name))
      return name
    }
  }

  /// Throws unless `copy` holds exactly the files `names` of `original`, each of its size, and
  /// the bytes of a spread of them (the first, the last and every sixteenth part) match.
  static func verify(_ copy: URL, against original: URL, names: [String], from server: String)
    throws
  {
    let found = try FileManager.default.contentsOfDirectory(atPath: copy.path)
    guard Set(found) == Set(names) else {
      throw RawFiles.Failure(
        description: "the download from \(server) holds \(found.count) of \(names.count) files")
    }
    for name in names {
      let size =
        try FileManager.default.attributesOfItem(
          atPath: copy.appendingPathComponent(name).path)[.size] as? Int
      guard size == 4096 else {
        throw RawFiles.Failure(description: "\(name) from \(server) has \(size ?? -1) bytes")
      }
    }
    let step = max(1, names.count / 16)
    for index in Array(stride(from: 0, to: names.count, by: step)) + [names.count - 1] {
      let name = names[index]
      guard
        try Data(contentsOf: copy.appendingPathComponent(name))
          == Data(contentsOf: original.appendingPathComponent(name))
      else { throw RawFiles.Failure(description: "\(name) from \(server) differs") }
    }
  }
}

/// `quire server` (the release build beside this benchmark) over a new data folder with one
/// account, `alice`, and an app password for WebDAV clients.
final class QuireDAVServer {
  /// Its `/dav/` and alice's sign-in.
  let target: DAVTarget
  /// The `quire server` process.
  private let process: SpawnedProcess

  /// Makes the account and its app password in `root/data` and starts the server on a free
  /// port; returns once it listens. Its output (and log, `QUIRE_SERVER_LOG`) goes to
  /// `root/server.log`.
  init(root: URL) throws {
    let quire = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("quire").path
    let data = root.appendingPathComponent("data").path
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    try SpawnedProcess.run(
      quire, ["server", "add-user", "alice", "--data", data], input: "alice-password\n")
    let printed = try SpawnedProcess.run(
      quire, ["server", "app-password", "alice", "--label", "bench", "--data", data])
    guard let password = printed.split(separator: "\n").last.map(String.init) else {
      throw RawFiles.Failure(description: "quire server app-password printed nothing")
    }
    let prefix = "Quire server listening on "
    let process = try SpawnedProcess(
      quire, ["server", "--data", data, "--port", "0"],
      output: root.appendingPathComponent("server.log"))
    self.process = process
    var line: Substring?
    let listening = SyncRig.waitFor(seconds: 60, every: .milliseconds(10)) {
      line = process.text.split(separator: "\n").first { $0.hasPrefix(prefix) }
      return line != nil || !process.isRunning
    }
    guard listening, let line, let address = URL(string: String(line.dropFirst(prefix.count)))
    else {
      process.stop()
      throw RawFiles.Failure(description: "quire server did not start: \(process.text)")
    }
    target = DAVTarget(
      url: URL(string: "http://127.0.0.1:\(address.port ?? 0)/dav/")!, user: "alice",
      password: password)
  }

  /// The server's process identifier (to profile it).
  var pid: Int32 { process.pid }

  /// Stops the server (SIGTERM: requests in flight finish first).
  func stop() { process.stop() }
}
