import ArgumentParser
import Foundation
import Quire
import QuireSync
import QuireSyncProtocol

/// `quire versions`: a synced document's versions and conflicts, as `NSFileVersion` shows them.
struct Versions: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List, restore and resolve a synced document's versions.",
    discussion: """
      Every save a device syncs is a version on the server. When two devices change the same \
      part of a document at once, the later change is current and the other is kept as a \
      conflict version until it is resolved.
      """,
    subcommands: [VersionsList.self, VersionsRestore.self, VersionsResolve.self],
    defaultSubcommand: VersionsList.self)
}

/// What the versions commands share: the signed-in client and the document's identity.
struct VersionTarget {
  let client: SyncClient
  let item: String
  let path: String

  init(_ path: String) throws {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "There is no document at “\(url.path)”.", path: url.path)
    }
    guard let settings = try SyncSettings.load() else {
      throw SyncError(
        .unauthorized,
        "This device is not signed in, so “\(url.path)” has no synced versions: run quire sync login URL --user NAME."
      )
    }
    guard let item = ItemIdentity.stored(at: url) else {
      throw SyncError(
        .notFound, "“\(url.path)” has not been synced yet: it has no versions on the server.")
    }
    client = SyncClient(
      server: settings.server, token: settings.token, container: settings.container,
      http: try TrustedHTTPClient.trusting(settings.certificateAuthority))
    self.item = item
    self.path = url.path
  }

  static func describe(_ version: VersionInfo, current: Int64) -> String {
    let date = Date(timeIntervalSince1970: version.committed)
      .formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false))
    let kind =
      version.revision == current
      ? "current" : version.conflict ? (version.resolved ? "resolved" : "conflict") : "version"
    return "\(String(version.revision).padding(toLength: 8, withPad: " ", startingAt: 0))"
      + "\(kind.padding(toLength: 10, withPad: " ", startingAt: 0))\(date)  \(version.deviceName)"
  }
}

/// `quire versions [list] PATH`.
struct VersionsList: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the versions: current, others and conflicts.")

  @Argument(help: "The synced document.") var path: String
  @Flag(help: "Print JSON.") var json = false

  @MainActor
  func execute() async throws {
    let target = try VersionTarget(path)
    let list = try await target.client.versions(item: target.item)
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(list), as: UTF8.self))
      return
    }
    print("VERSION KIND      DATE                  DEVICE")
    for version in list.versions {
      print(VersionTarget.describe(version, current: list.current))
    }
  }
}

/// `quire versions restore PATH VERSION`.
struct VersionsRestore: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Make a version's contents the current ones (a new version on every device).")

  @Argument(help: "The synced document.") var path: String
  @Argument(help: "The version number (from quire versions PATH).") var version: Int64

  @MainActor
  func execute() async throws {
    let target = try VersionTarget(path)
    let answer = try await target.client.restore(item: target.item, revision: version)
    print("Restored version \(version) of \(target.path) as version \(answer.revision).")
  }
}

/// `quire versions resolve PATH --keep current|latest|VERSION`.
struct VersionsResolve: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Settle a conflict: keep one version and mark every conflict resolved.")

  @Argument(help: "The synced document.") var path: String
  @Option(help: "current, latest (the newest of current and the conflicts), or a version number.")
  var keep = "current"

  @MainActor
  func execute() async throws {
    let target = try VersionTarget(path)
    let list = try await target.client.versions(item: target.item)
    let conflicts = list.unresolvedConflicts
    let kept: Int64
    switch keep {
    case "current":
      kept = list.current
    case "latest":
      let candidates = list.versions.filter { $0.revision == list.current } + conflicts
      kept = candidates.max { $0.committed < $1.committed }?.revision ?? list.current
    default:
      guard let number = Int64(keep), list.versions.contains(where: { $0.revision == number })
      else {
        throw SyncError(
          .notFound,
          "“\(keep)” is not a version of \(target.path): use current, latest or a number from quire versions."
        )
      }
      kept = number
    }
    if kept != list.current {
      _ = try await target.client.restore(item: target.item, revision: kept)
    }
    let answer = try await target.client.resolve(
      item: target.item, revisions: conflicts.map(\.revision))
    print(
      "Kept version \(kept) of \(target.path); resolved \(conflicts.count - answer.unresolved.count) conflicts."
    )
  }
}
