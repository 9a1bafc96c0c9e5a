import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Two Syncthing instances (Debian's `syncthing`) sharing one folder on loopback, with global
/// and local discovery, relays, NAT traversal and upgrades off: the peer the sync workloads
/// compare against. Device A reaches B only through a ``ByteCountingProxy`` (B's address for A
/// leads nowhere), so every byte between them is counted.
final class SyncthingPeer {
  let a: URL
  let b: URL
  let proxy: ByteCountingProxy
  private var processes: [Process] = []

  /// Both instances, started and connected (a probe file has gone from A to B).
  /// `watcherDelay` is the folder's `fsWatcherDelayS` (Syncthing's default is 10).
  init(scratch: URL, watcherDelay: Int = 10) throws {
    let homes = ["A", "B"].map { scratch.appendingPathComponent("syncthing-\($0)") }
    a = scratch.appendingPathComponent("syncthing-A/folder")
    b = scratch.appendingPathComponent("syncthing-B/folder")
    var ids: [String] = []
    for home in homes {
      try FileManager.default.createDirectory(
        at: home.appendingPathComponent("folder/.stfolder"), withIntermediateDirectories: true)
      let output = try Self.run(["generate", "--home=\(home.path)", "--no-default-folder"])
      guard let line = output.split(separator: "\n").first(where: { $0.contains("Device ID:") }),
        let id = line.split(separator: " ").last
      else { throw RawFiles.Failure(description: "syncthing generate printed no device ID") }
      ids.append(String(id))
    }
    let listen = [Self.freePort(), Self.freePort()]
    proxy = try ByteCountingProxy(to: listen[1])
    let addresses = [
      ["dynamic", "tcp://127.0.0.1:\(proxy.port)"],  // A's view: B through the proxy
      ["tcp://127.0.0.1:9", "dynamic"],  // B's view: A nowhere, so A dials
    ]
    for (index, home) in homes.enumerated() {
      let devices = zip(ids, ["A", "B"]).enumerated().map { other, pair in
        """
          <device id="\(pair.0)" name="\(pair.1)" compression="metadata">
            <address>\(other == index ? "dynamic" : addresses[index][other])</address>
          </device>
        """
      }.joined(separator: "\n")
      let config = """
        <configuration version="36">
          <folder id="bench" label="bench" path="\(home.appendingPathComponent("folder").path)"
            type="sendreceive" rescanIntervalS="3600" fsWatcherEnabled="true"
            fsWatcherDelayS="\(watcherDelay)">
            \(ids.map { "<device id=\"\($0)\"></device>" }.joined())
          </folder>
        \(devices)
          <gui enabled="true" tls="false"><address>127.0.0.1:\(Self.freePort())</address>
            <apikey>quire-bench</apikey></gui>
          <options>
            <listenAddress>tcp://127.0.0.1:\(listen[index])</listenAddress>
            <globalAnnounceEnabled>false</globalAnnounceEnabled>
            <localAnnounceEnabled>false</localAnnounceEnabled>
            <relaysEnabled>false</relaysEnabled>
            <natEnabled>false</natEnabled>
            <startBrowser>false</startBrowser>
            <urAccepted>-1</urAccepted>
            <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
            <crashReportingEnabled>false</crashReportingEnabled>
            <reconnectionIntervalS>1</reconnectionIntervalS>
          </options>
        </configuration>
        """
      try Data(config.utf8).write(to: home.appendingPathComponent("config.xml"))
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/syncthing")
      process.arguments = ["serve", "--home=\(home.path)", "--no-browser", "--no-restart"]
      process.environment = ProcessInfo.processInfo.environment.merging([
        "STNOUPGRADE": "1", "STNORESTART": "1", "STMONITORED": "yes",  // one process, no monitor
      ]) { $1 }
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      processes.append(process)
    }
    let probe = Data("probe".utf8)
    try probe.write(to: a.appendingPathComponent("probe.txt"))
    let target = b.appendingPathComponent("probe.txt")
    let arrived = SyncRig.waitFor(seconds: 120, every: .milliseconds(10)) {
      FileManager.default.contents(atPath: target.path) == probe
    }
    guard arrived else {
      stop()
      throw RawFiles.Failure(description: "the two Syncthing instances never synced")
    }
  }

  func stop() {
    for process in processes where process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Whether Syncthing is installed (scripts/bench installs it).
  static var isInstalled: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/syncthing")
  }

  private static func run(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/syncthing")
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return output
  }

  /// A loopback port nothing listens on now (bound and released: a benchmark's small race).
  static func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        _ = bind(fd, $0, length)
        return getsockname(fd, $0, &length)
      }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
