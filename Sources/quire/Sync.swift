import ArgumentParser
import Foundation
import Quire
import QuireApp
import QuireCore
import QuireSync
import QuireSyncProtocol
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// `quire sync`: this device's agent for a Quire Sync server.
struct Sync: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Sync a folder with a Quire Sync server (the iCloud Drive role).",
    discussion: """
      Sign in once with `quire sync login URL --user NAME`, then `quire sync run` keeps the \
      folder (by default the app's library) and the server the same, in both directions.
      """,
    subcommands: [
      SyncLogin.self, SyncRun.self, SyncStatus.self, SyncWait.self, SyncDownload.self,
      SyncEvict.self, SyncPause.self, SyncResume.self, SyncLogout.self,
    ])
}

/// `quire sync login URL --user NAME`.
struct SyncLogin: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "login", abstract: "Sign this device in to a server (asks for the password).")

  @Argument(help: "The server's address, such as http://127.0.0.1:8620.") var server: String
  @Option(help: "The account name.") var user: String
  @Option(help: "The container to sync.") var container = "iCloud.net.gacha.quire"
  @Option(help: "This device's name on the server (default: the host name).") var device: String?
  @Option(help: "A PEM certificate to trust for the server's HTTPS (a self-signed server's).")
  var caFile: String?

  @MainActor
  func execute() async throws {
    guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
      throw SyncError(.malformed, "“\(server)” is not a server address: use http://HOST:PORT.")
    }
    try SyncIdentifier.checkContainer(container)
    let password = try PasswordPrompt.read("Password for \(user) on \(server): ")
    let name = device ?? ProcessInfo.processInfo.hostName
    let authority = caFile.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    let answer = try await SyncClient.signIn(
      server: url, user: user, password: password, device: name,
      http: try TrustedHTTPClient.trusting(authority))
    try SyncSettings(
      server: url, user: user, device: answer.device, token: answer.token, container: container,
      certificateAuthority: authority
    ).save()
    print("Signed in to \(server) as \(user) (device \(answer.device)).")
  }
}

/// `quire sync run [--folder DIR]`.
struct SyncRun: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Sync until stopped (SIGTERM or Ctrl+C).")

  @Option(help: "The folder to sync (default: the app's library).") var folder: String?
  @Option(
    help: """
      What to download of documents added elsewhere: all, or on-demand (placeholders until \
      opened); kept for later runs.
      """)
  var download: String?
  @Option(
    help: "With --download on-demand, still download documents under this many MiB at once.")
  var downloadUnder: Double?

  @Option(
    help: ArgumentHelp(
      "How often to ask the server which documents others share with you, besides when it says they changed (seconds).",
      valueName: "seconds"))
  var sharesEvery: Double = 30

  @MainActor
  func execute() async throws {
    guard sharesEvery > 0 else {
      throw SyncError(.malformed, "--shares-every is a time in seconds.")
    }
    var policy = try download.map { text throws(SyncError) in try DownloadPolicy(parsing: text) }
    if let downloadUnder {
      guard policy != .all, downloadUnder >= 0 else {
        throw SyncError(.malformed, "--download-under goes with --download on-demand.")
      }
      policy = .onDemand(downloadingUnder: Int(downloadUnder * 1_048_576))
    }
    guard var signedIn = try SyncSettings.load() else {
      throw SyncError(
        .unauthorized, "This device is not signed in: run quire sync login URL --user NAME.")
    }
    let root = folder.map { URL(fileURLWithPath: $0) } ?? AppConfiguration.defaultLibrary
    if let policy {  // kept for later runs, and for the app's settings
      signedIn.setDownloadPolicy(policy, for: root)
      try signedIn.save()
    }
    ServiceHeap.limitArenas()
    FileLimit.raiseToHard()  // a first sync holds a page of placeholders open
    StopSignals.unblock()
    let settings = signedIn
    let agent = try SyncAgent(
      settings: settings, folder: root, stateFile: SyncAgent.defaultStateFile(for: root),
      sharesEvery: .milliseconds(Int(sharesEvery * 1000)))
    let work = Task {
      try await agent.run {
        FileHandle.standardOutput.write(
          Data("Syncing \(root.path) with \(settings.server.absoluteString)\n".utf8))
      }
    }
    let stop = SignalStop {
      work.cancel()
      // What is in flight finishes or is abandoned safely (every step is a transaction or an
      // atomic rename); a transfer that does not stop within ten seconds is abandoned.
      DispatchQueue.global().asyncAfter(deadline: .now() + 10) { Glibc.exit(0) }
    }
    defer { stop.cancel() }
    try await work.value
    if (try? SyncSettings.load()) == nil {
      FileHandle.standardOutput.write(Data("Signed out: stopped syncing \(root.path)\n".utf8))
    }
  }
}

/// `quire sync status [--json]`.
struct SyncStatus: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "status",
    abstract: "Show the connection, the items not in sync, and the last error.")

  @Option(help: "The synced folder (default: the app's library).") var folder: String?
  @Flag(help: "Print JSON.") var json = false

  func execute() throws {
    let root = folder.map { URL(fileURLWithPath: $0) } ?? AppConfiguration.defaultLibrary
    let settings = try SyncSettings.load()
    let report = try SyncReport.read(
      stateFile: SyncAgent.defaultStateFile(for: root), settings: settings, folder: root)
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(report), as: UTF8.self))
    } else {
      print(report.summary)
    }
  }
}

/// `quire sync wait [--timeout SECONDS]`.
struct SyncWait: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "wait",
    abstract: "Wait until the running agent has synced everything changed before this command.",
    discussion: """
      Returns once every change made in the folder before it started is uploaded and every \
      change the server held then is here, in the shares too; exits non-zero if syncing is \
      paused, no agent runs, or the folder is not in sync within the timeout.
      """)

  @Option(help: "The synced folder (default: the app's library).") var folder: String?
  @Option(help: "The most seconds to wait.") var timeout = 60

  func execute() throws {
    let root = folder.map { URL(fileURLWithPath: $0) } ?? AppConfiguration.defaultLibrary
    guard timeout > 0 else {
      throw ValidationError("--timeout must be a positive number of seconds, not \(timeout).")
    }
    try SyncBarrier.wait(
      folder: root, stateFile: SyncAgent.defaultStateFile(for: root), timeout: .seconds(timeout))
  }
}

/// `quire sync download PATH…`.
struct SyncDownload: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "download",
    abstract: "Download documents that are in the cloud only (the running agent fetches them).")

  @Argument(help: "The documents (their real names, not their placeholders).")
  var paths: [String]

  func execute() throws {
    for path in paths {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      try FileCoordinator().startDownloadingItem(at: url)
      print("Downloaded \(url.path)")
    }
  }
}

/// `quire sync evict PATH…`.
struct SyncEvict: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "evict",
    abstract: "Remove the downloads of synced documents, keeping them in the cloud.")

  @Argument(help: "The documents.") var paths: [String]

  func execute() throws {
    for path in paths {
      let url = URL(fileURLWithPath: path).standardizedFileURL
      try FileCoordinator.evictItem(at: url)
      print("Removed the download of \(url.path); it stays in the cloud.")
    }
  }
}

/// `quire sync pause`.
struct SyncPause: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "pause",
    abstract:
      "Pause syncing on this device; returns once running agents have stopped after the step in flight."
  )

  @Option(help: "The most seconds to wait for the agents to stop.") var timeout = 60

  func execute() throws {
    guard timeout > 0 else {
      throw ValidationError("--timeout must be a positive number of seconds, not \(timeout).")
    }
    try SyncSettings.setPaused(true)
    try SyncActivity.waitUntilStopped(timeout: .seconds(timeout))
    print("Syncing is paused; quire sync resume goes on where it stopped.")
  }
}

/// `quire sync resume`.
struct SyncResume: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "resume", abstract: "Resume syncing on this device.")

  func execute() throws {
    try SyncSettings.setPaused(false)
    print("Syncing resumed.")
  }
}

/// `quire sync logout`.
struct SyncLogout: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "logout", abstract: "Forget this device's sign-in.")

  func execute() throws {
    SyncSettings.remove()
    print("Signed out.")
  }
}

/// Cancels on SIGTERM or SIGINT, so the agent finishes or abandons its transfer cleanly; a
/// second signal (Ctrl+C pressed again) exits at once, as the state is safe at every step.
final class SignalStop {
  private let sources: [any DispatchSourceSignal]

  init(_ stop: @escaping @Sendable () -> Void) {
    let signals = SignalCount()
    sources = [SIGTERM, SIGINT].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number)
      source.setEventHandler {
        // As a shell reports a process the signal ended: 128 and its number.
        if signals.count.add(1, ordering: .relaxed).newValue > 1 { Glibc.exit(128 + number) }
        stop()
      }
      source.resume()
      return source
    }
  }

  func cancel() { for source in sources { source.cancel() } }

  /// The signals received so far.
  private final class SignalCount: Sendable {
    let count = Atomic<Int>(0)
  }
}
