import ArgumentParser
import Foundation
import QuireSync
import QuireSyncProtocol

/// `quire share PATH [--with NAME --role read|write | --public]`: shares a synced document with
/// another account or by a public read-only link; without options, shows who has it.
struct Share: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Share a synced document with another account or by public link, or show its sharing.",
    discussion: """
      --with NAME shares the document with the account NAME on the same server, read-only \
      (--role read, the default) or read-write (--role write): it appears in their "Shared with \
      me", and their edits of a read-write share reach you at once. Sharing again changes the \
      role. A public link (--public) opens in any browser without an account: a read-only page \
      with the document's thumbnail, name and contents (a package downloads as a zip archive). \
      Revoke either with quire unshare.
      """)

  @Argument(help: "The synced document.") var path: String
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

  static func describe(_ role: ShareRole) -> String {
    role == .write ? "can make changes" : "view only"
  }
}

/// `quire unshare PATH --with NAME | --public`: stops sharing with an account, or revokes the
/// document's public link.
struct Unshare: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Stop sharing a synced document with an account, or revoke its public link.")

  @Argument(help: "The synced document.") var path: String
  @Option(help: "Stop sharing with this account.") var with: String?
  @Flag(help: "Revoke the public link.") var `public` = false

  func validate() throws {
    guard `public` != (with != nil) else {
      throw ValidationError("Say what to revoke: --with NAME or --public.")
    }
  }

  @MainActor
  func execute() async throws {
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
}
