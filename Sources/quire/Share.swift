import ArgumentParser
import Foundation
import QuireSync
import QuireSyncProtocol

/// `quire share PATH [--with NAME --role read|write | --public]`: shares a synced document or
/// folder with another account, or a document by a public read-only link; without options,
/// shows who has it.
struct Share: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Share a synced document or folder with another account, or a document by public link, or show its sharing.",
    discussion: """
      --with NAME shares the document with the account NAME on the same server, read-only \
      (--role read, the default) or read-write (--role write): it appears in their "Shared with \
      me", and their edits of a read-write share reach you at once. Sharing again changes the \
      role. A public link (--public) opens in any browser without an account: a read-only page \
      with the document's thumbnail, name and contents (a package downloads as a zip archive). \
      Revoke either with quire unshare. A folder (a directory that is not a package) is shared \
      with everything in it, now and later: the account sees it in "Shared with me" and, with \
      --role write, adds, edits, moves and deletes documents in it.
      """)

  @Argument(help: "The synced document or folder.") var path: String
  @Option(help: "Share with this account.") var with: String?
  @Option(help: "read or write (with --with).") var role: String = "read"
  @Flag(help: "Make a public read-only link (or print the one it has).") var `public` = false

  func validate() throws {
    guard ShareRole(rawValue: role) != nil else {
      throw ValidationError("The role is read or write, not “\(role)”.")
    }
    guard !(`public` && with != nil) else {
      throw ValidationError(
        "Share with an account (--with) or by public link (--public), not both.")
    }
  }

  @MainActor
  func execute() async throws {
    if let (client, folder) = try ShareTarget.folder(path) {
      return try await shareFolder(folder, client: client)
    }
    let (client, item) = try ShareTarget.resolve(path)
    if let with {
      let share = try await client.share(item: item, with: with, role: ShareRole(rawValue: role)!)
      print("Shared \(path) with \(share.user) (\(Self.describe(share.role))).")
    } else if `public` {
      let link = try await client.makePublicLink(item: item)
      print(link.url(on: client.server).absoluteString)
    } else {
      let shares = try await client.shares(of: item)
      let link = try await client.publicLink(item: item)
      for share in shares { print("\(share.user): \(Self.describe(share.role))") }
      if let link {
        print("Public link (read-only): \(link.url(on: client.server).absoluteString)")
      }
      if shares.isEmpty && link == nil { print("Not shared.") }
    }
  }

  @MainActor
  private func shareFolder(_ folder: String, client: SyncClient) async throws {
    guard !`public` else {
      throw SyncError(
        .forbidden, "A folder has no public link; share its documents one by one with --public.")
    }
    if let with {
      let share = try await client.share(
        folder: folder, with: with, role: ShareRole(rawValue: role)!)
      print("Shared the folder \(path) with \(share.user) (\(Self.describe(share.role))).")
      return
    }
    let shares = try await client.shares(ofFolder: folder)
    for share in shares { print("\(share.user): \(Self.describe(share.role))") }
    if shares.isEmpty { print("Not shared.") }
  }

  static func describe(_ role: ShareRole) -> String {
    role == .write ? "can make changes" : "view only"
  }
}

/// `quire unshare PATH --with NAME | --public`: stops sharing a document or folder with an
/// account, or revokes the document's public link.
struct Unshare: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Stop sharing a synced document or folder with an account, or revoke a document's public link."
  )

  @Argument(help: "The synced document or folder.") var path: String
  @Option(help: "Stop sharing with this account.") var with: String?
  @Flag(help: "Revoke the public link.") var `public` = false

  func validate() throws {
    guard `public` != (with != nil) else {
      throw ValidationError("Say what to revoke: --with NAME or --public.")
    }
  }

  @MainActor
  func execute() async throws {
    if let (client, folder) = try ShareTarget.folder(path) {
      guard let with else {
        throw SyncError(.forbidden, "A folder has no public link; say --with NAME.")
      }
      try await client.unshare(folder: folder, with: with)
      print("Stopped sharing the folder \(path) with \(with).")
      return
    }
    let (client, item) = try ShareTarget.resolve(path)
    if let with {
      try await client.unshare(item: item, with: with)
      print("Stopped sharing \(path) with \(with).")
    } else {
      try await client.revokePublicLink(item: item)
      print("Revoked the public link of \(path).")
    }
  }
}

/// The server and item behind a synced document's path.
enum ShareTarget {
  static func resolve(_ path: String) throws -> (SyncClient, String) {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw SyncError(.notFound, "There is no document at “\(url.path)”.")
    }
    return try SyncVersionStore(folder: url.deletingLastPathComponent()).syncedItem(at: url)
  }

  /// The server and the folder's path in the synced folder, if `path` is a folder (a
  /// directory that is not a package) inside a folder this device syncs; nil for a document.
  static func folder(_ path: String) throws -> (SyncClient, String)? {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
      isDirectory.boolValue, url.pathExtension.isEmpty
    else { return nil }
    var root = url.deletingLastPathComponent()
    while root.path != "/" {
      if FileManager.default.fileExists(atPath: SyncAgent.defaultStateFile(for: root).path) {
        let relative = String(url.path.dropFirst(root.path.count + 1))
        if relative.hasPrefix(SyncAgent.sharedFolderName + "/") {
          throw SyncError(
            .forbidden, "“\(url.path)” is shared with you; only its owner shares it further.")
        }
        return (try SyncVersionStore(folder: root).client(for: url), relative)
      }
      root = root.deletingLastPathComponent()
    }
    throw SyncError(
      .notFound,
      "“\(url.path)” is not inside a synced folder: run quire sync run --folder on the folder that holds it."
    )
  }
}
