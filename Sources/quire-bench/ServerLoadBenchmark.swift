import ArgumentParser
import Foundation

/// How fast a server tells devices of each other's commits under load: `--devices` devices hold
/// their event streams open (`--per-account` devices to an account, one container), random
/// devices commit small edits at `--rate` per second for `--seconds`, and every commit is timed
/// from its request to its arrival at each other device of its account. Beside it, the floor: a
/// `/v1/health` round trip under the same load.
struct ServerLoadBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "server-load",
    abstract: "Time commit notifications with thousands of devices connected to quire server.")

  @Option(help: "Devices holding an event stream open.") var devices = 2000
  @Option(help: "Devices per account (each commit notifies the others).") var perAccount = 4
  @Option(help: "Commits per second, by random devices.") var rate = 200.0
  @Option(help: "Seconds of load.") var seconds = 60.0
  @Option(help: "quire server replicas (more than one: behind nginx, with --database).")
  var replicas = 1
  @Option(help: "The replicas' PostgreSQL database, postgres://… (default: SQLite).")
  var database: String?
  @Option(help: "Folder for the server's files (default: the temporary folder).")
  var directory: String?

  func validate() throws {
    guard replicas == 1 || database != nil else {
      throw ValidationError("Several replicas share one PostgreSQL database: give --database.")
    }
    guard perAccount >= 2, devices >= perAccount else {
      throw ValidationError("Give at least two devices per account.")
    }
  }

  func run() async throws {
    let scratch = try Measurement.scratch(directory, "server-load")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let postgres = try database.map { text in
      guard let url = URL(string: text) else { throw ValidationError("Bad --database.") }
      return url
    }
    // Every device is a socket here and one in the server, and one local port.
    let files = SystemLimits.raiseOpenFiles(to: devices * 2 + 8192)
    guard files >= devices + 1024 else {
      // Each process here and in the server holds a socket per device: say so now, not after
      // the accounts' set-up and a connection deadline.
      throw RawFiles.Failure(
        description:
          "this process may open \(files) files, and \(devices) devices need \(devices + 1024): "
          + "raise the hard limit (ulimit -Hn; raising it needs root with CAP_SYS_RESOURCE)")
    }
    let ports = SystemLimits.widenEphemeralPorts(toHold: devices + 4096)
    defer { ports.restore() }
    print("open files: \(files); local ports to one server: \(ports.ports)")
    let rig = try ServerLoadRig(
      scratch: scratch, devices: devices, perAccount: perAccount, replicas: replicas,
      database: postgres)
    defer { rig.stop() }
    let load = ServerLoad(server: rig.url, tokens: rig.devices.map(\.token), perAccount: perAccount)
    let streams = try await load.connect(seconds: max(180, Double(devices) / 100))
    let outcome = await load.run(rate: rate, seconds: seconds, streams: streams)
    let rss = rig.peakReplicaMiB
    let p50 = Measurement.percentile(outcome.latencies, 0.5)
    let p99 = Measurement.percentile(outcome.latencies, 0.99)
    let floor = Measurement.percentile(outcome.healthLatencies, 0.5)
    Measurement.table(
      ["path", "samples", "p50 ms", "p99 ms", "max ms"],
      [
        [
          "commit → other devices' streams", "\(outcome.latencies.count)", Measurement.format(p50),
          Measurement.format(p99), Measurement.format(outcome.latencies.max() ?? .nan),
        ],
        [
          "floor: /v1/health round trip", "\(outcome.healthLatencies.count)",
          Measurement.format(floor),
          Measurement.format(Measurement.percentile(outcome.healthLatencies, 0.99)),
          Measurement.format(outcome.healthLatencies.max() ?? .nan),
        ],
      ])
    for error in outcome.errors.prefix(10) { print("error: \(error)") }
    print(
      "RESULT server-load devices=\(devices) rate=\(Int(rate)) replicas=\(replicas) database=\(database == nil ? "sqlite" : "postgres") commits=\(outcome.commits) notify_p50_ms=\(Measurement.format(p50)) notify_p99_ms=\(Measurement.format(p99)) errors=\(outcome.errors.count) server_rss_mib=\(Measurement.format(rss)) health_p50_ms=\(Measurement.format(floor))"
    )
  }
}
