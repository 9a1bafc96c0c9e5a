import Foundation

/// rsync as the byte floor of the sync workloads: a time-preserving copy, then rsync's own
/// count of the bytes it moves to bring the copy up to date.
enum RsyncPeer {
  /// Copies `source` to `copy` with `cp -a`, keeping times, so rsync sees only what changes.
  static func copy(_ source: URL, to copy: URL) throws {
    try run("/bin/cp", ["-a", source.path, copy.path])
  }

  /// rsync's own count (bytes sent plus received) to make `target` the same as `source`;
  /// `arguments` are added to `-a --stats` (`--no-whole-file` for its delta algorithm on one
  /// machine, which it otherwise skips).
  static func bytes(from source: URL, to target: URL, arguments: [String] = []) throws -> Int {
    let output = try run(
      "/usr/bin/rsync", ["-a", "--stats"] + arguments + [source.path + "/", target.path + "/"])
    var total = 0
    for line in output.split(separator: "\n")
    where line.hasPrefix("Total bytes sent:") || line.hasPrefix("Total bytes received:") {
      total += Int(line.split(separator: ":")[1].filter(\.isNumber)) ?? 0
    }
    return total
  }

  /// Milliseconds for rsync to copy `source` into the empty `target` (`-a`, whole files).
  static func milliseconds(from source: URL, to target: URL) throws -> Double {
    try Measurement.milliseconds {
      try run("/usr/bin/rsync", ["-a", source.path + "/", target.path + "/"])
    }
  }

  /// Milliseconds for rsync to copy the one file `file` into the folder `folder` whole (`-a -W`),
  /// with `--fsync` if `durable` (rsync's copy is then on the disk when it ends, as a synced
  /// file is; without it, the copy may still be only in the page cache).
  static func milliseconds(copying file: URL, into folder: URL, durable: Bool = false) throws
    -> Double
  {
    try Measurement.milliseconds {
      let flags = ["-a", "-W"] + (durable ? ["--fsync"] : [])
      try run("/usr/bin/rsync", flags + [file.path, folder.path + "/"])
    }
  }

  @discardableResult
  private static func run(_ executable: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw RawFiles.Failure(
        description: "\(executable) \(arguments.joined(separator: " ")) failed")
    }
    return output
  }
}
