import ArgumentParser
import Foundation
import Quire
import QuireSync
import QuireSyncProtocol

/// `quire versions`: a document's versions and conflicts, as `NSFileVersion` shows them.
struct Versions: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List, restore and resolve a document's versions.",
    discussion: """
      Every save a device syncs is a version on the server. When two devices change the same \
      part of a document at once, the later change is current and the other is kept as a \
      conflict version until it is resolved. A document that is not synced keeps its versions \
      on this device (in $XDG_DATA_HOME/quire/versions), one per save from the app or quire \
      edit, thinned as they age.
      """,
    subcommands: [VersionsList.self, VersionsRestore.self, VersionsResolve.self],
    defaultSubcommand: VersionsList.self)
}

/// What the versions commands share: the document and the store of its versions — the sync
/// server's when the server knows the document, else the ones kept on this device.
struct VersionTarget {
  let url: URL
  let store: any VersionStore

  init(_ path: String) async throws {
    url = URL(fileURLWithPath: path).standardizedFileURL
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "There is no document at “\(url.path)”.", path: url.path)
    }
    let synced = SyncVersionStore(folder: url.deletingLastPathComponent())
    if synced.keepsVersions(of: url), ItemIdentity.stored(at: url) != nil,
      (try? await synced.versions(of: url)) != nil
    {
      store = synced
    } else {
      store = LocalVersionStore()
    }
  }

  func versions() async throws -> [VersionRecord] { try await store.versions(of: url) }

  /// The WebDAV lock that holds the document, if it is synced and locked.
  func lock() async throws -> DocumentLock? {
    guard let synced = store as? SyncVersionStore else { return nil }
    return try await synced.lock(of: url)
  }

  /// "Locked by OWNER until DATE.": edits from this device are kept aside until then.
  static func describe(_ lock: DocumentLock) -> String {
    let until = Date(timeIntervalSince1970: lock.expires).formatted(
      .iso8601.year().month().day().time(includingFractionalSeconds: false))
    return "Locked by \(lock.owner) until \(until) (WebDAV): changes made here are kept as"
      + " conflict versions until it is unlocked."
  }

  static func describe(_ version: VersionRecord) -> String {
    let date =
      version.modificationDate?.formatted(
        .iso8601.year().month().day().time(includingFractionalSeconds: false)) ?? "-"
    let kind =
      version.isCurrent
      ? "current" : version.isConflict ? (version.isResolved ? "resolved" : "conflict") : "version"
    let width = max(8, version.identifier.count + 2)
    let lock = version.lockOwner.map { " (kept aside: locked by \($0))" } ?? ""
    return "\(version.identifier.padding(toLength: width, withPad: " ", startingAt: 0))"
      + "\(kind.padding(toLength: 10, withPad: " ", startingAt: 0))\(date)  "
      + "\(version.deviceName ?? "")\(lock)"
  }
}

/// `quire versions [list] PATH`.
struct VersionsList: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the versions: current, others and conflicts.")

  @Argument(help: "The document.") var path: String
  @Flag(help: "Print JSON.") var json = false

  @MainActor
  func execute() async throws {
    let target = try await VersionTarget(path)
    let versions = try await target.versions()
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      encoder.dateEncodingStrategy = .iso8601
      print(String(decoding: try encoder.encode(versions), as: UTF8.self))
      return
    }
    if let lock = try await target.lock() { print(VersionTarget.describe(lock)) }
    print("VERSION KIND      DATE                  DEVICE")
    for version in versions { print(VersionTarget.describe(version)) }
  }
}

/// `quire versions restore PATH VERSION`.
struct VersionsRestore: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Make a version's contents the current ones (a new version on every device).")

  @Argument(help: "The document.") var path: String
  @Argument(help: "The version number (from quire versions PATH).") var version: String

  @MainActor
  func execute() async throws {
    let target = try await VersionTarget(path)
    guard let record = try await target.versions().first(where: { $0.identifier == version }) else {
      throw SyncError(
        .notFound, "“\(version)” is not a version of \(target.url.path): see quire versions.")
    }
    try await target.store.restore(record, item: target.url)
    print("Restored version \(version) of \(target.url.path).")
  }
}

/// `quire versions resolve PATH --keep current|latest|VERSION`.
struct VersionsResolve: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "resolve",
    abstract: "Settle a conflict: keep one version and mark every conflict resolved.")

  @Argument(help: "The document.") var path: String
  @Option(help: "current, latest (the newest of current and the conflicts), or a version number.")
  var keep = "current"

  @MainActor
  func execute() async throws {
    let target = try await VersionTarget(path)
    let versions = try await target.versions()
    let conflicts = versions.filter { $0.isConflict && !$0.isResolved }
    let current = versions.first(where: \.isCurrent)
    let kept: VersionRecord?
    switch keep {
    case "current":
      kept = current
    case "latest":
      kept = (versions.filter(\.isCurrent) + conflicts).max {
        ($0.modificationDate ?? .distantPast) < ($1.modificationDate ?? .distantPast)
      }
    default:
      guard let chosen = versions.first(where: { $0.identifier == keep }) else {
        throw SyncError(
          .notFound,
          "“\(keep)” is not a version of \(target.url.path): use current, latest or a number from quire versions."
        )
      }
      kept = chosen
    }
    if let kept, !kept.isCurrent { try await target.store.restore(kept, item: target.url) }
    if !conflicts.isEmpty {
      try await target.store.setResolved(true, conflicts, item: target.url)
    }
    print(
      "Kept version \(kept?.identifier ?? "current") of \(target.url.path); resolved \(conflicts.count) conflicts."
    )
  }
}
