import ArgumentParser
import AsyncHTTPClient
import Foundation
import QuireCore
import QuireServer

/// How well a server keeps serving its devices while it is attacked, on loopback: `--idle`
/// connections that never send a request, `--slowloris` connections that send a request's head
/// (half of them) or its body (the other half) a byte at a time and never finish, and one device token reopening `--streams` event streams
/// as the server ends them (after `--retry`, the stream's own reconnection delay), while `--devices` devices commit at `--rate` and hear each
/// other's commits. The legitimate figure is the p99 from a commit to its arrival at the other
/// devices of its account, as in `server-load`.
struct ServerAbuseBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "server-abuse",
    abstract: "Time legitimate devices while idle, slowloris and stream-flooding clients attack.")

  @Option(help: "Legitimate devices (each holds its event stream open).") var devices = 100
  @Option(help: "Commits per second by the legitimate devices.") var rate = 50.0
  @Option(help: "Seconds of load.") var seconds = 30.0
  @Option(help: "Connections that never send a request.") var idle = 1000
  @Option(help: "Slowloris connections.") var slowloris = 500
  @Option(help: "Event streams one abusive device token keeps reopening.") var streams = 200
  @Option(help: "Seconds the abusive token waits before reopening an ended stream (0: floods).")
  var retry = 1.0
  @Option(help: "Folder for the server's files (default: the temporary folder).")
  var directory: String?

  func run() async throws {
    _ = FileLimit.raiseToHard()  // this process holds every attacking socket
    let scratch = try Measurement.scratch(directory, "server-abuse")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let perAccount = 4
    let rig = try ServerLoadRig(
      scratch: scratch, devices: devices + 1, perAccount: perAccount, replicas: 1, database: nil)
    defer { rig.stop() }
    let legitimate = Array(rig.devices.prefix(devices).map(\.token))
    let attacker = rig.devices[devices].token
    let abuse = AbusiveClients(port: rig.url.port ?? 0)
    try abuse.connect(idle: idle, slowloris: slowloris)
    defer { abuse.close() }
    let trickling = Task { await abuse.trickle(every: .seconds(5)) }
    defer { trickling.cancel() }
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(
      idleTimeout: .seconds(300), concurrentHTTP1ConnectionsPerHostSoftLimit: streams + 16)
    let attackerHTTP = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    let (server, count) = (rig.url, streams)
    let flooding = Task {
      await abuse.flood(
        streams: count, token: attacker, container: ServerLoad.container, server: server,
        http: attackerHTTP, retry: .milliseconds(Int(retry * 1000)))
    }
    let load = ServerLoad(server: rig.url, tokens: legitimate, perAccount: perAccount)
    let outcome: ServerLoad.Outcome
    do {
      let listening = try await load.connect()
      outcome = await load.run(rate: rate, seconds: seconds, streams: listening)
    } catch {
      flooding.cancel()
      try? await attackerHTTP.shutdown()
      throw error
    }
    flooding.cancel()
    _ = await flooding.value
    try? await attackerHTTP.shutdown()
    let rss = rig.peakReplicaMiB
    let p50 = Measurement.percentile(outcome.latencies, 0.5)
    let p99 = Measurement.percentile(outcome.latencies, 0.99)
    let health = Measurement.percentile(outcome.healthLatencies, 0.99)
    Measurement.table(
      ["path", "samples", "p50 ms", "p99 ms"],
      [
        [
          "commit → other devices' streams, under attack", "\(outcome.latencies.count)",
          Measurement.format(p50), Measurement.format(p99),
        ],
        [
          "/v1/health round trip, under attack", "\(outcome.healthLatencies.count)",
          Measurement.format(Measurement.percentile(outcome.healthLatencies, 0.5)),
          Measurement.format(health),
        ],
      ])
    print(
      "attack: \(idle) idle and \(slowloris) slowloris connections, \(streams) streams of one token (\(abuse.streamsOpened) opened in all)"
    )
    for error in outcome.errors.prefix(10) { print("error: \(error)") }
    print(
      "RESULT server-abuse devices=\(devices) idle=\(idle) slowloris=\(slowloris) streams=\(streams) retry_s=\(retry) legit_p99_ms=\(Measurement.format(p99)) health_p99_ms=\(Measurement.format(health)) errors=\(outcome.errors.count) server_rss_mib=\(Measurement.format(rss))"
    )
  }
}
