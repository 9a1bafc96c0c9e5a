import Foundation
import Hummingbird
import Quire
import QuireSync
import QuireSyncProtocol

/// The item menu's Share dialog, as `quire share` and `quire unshare` do:
/// - `GET api/sharing?path=P`: who the synced document is shared with (`shares`: `user`,
///   `role`) and its public link (`link`, or null).
/// - `POST api/sharing` (`path` and `with`, `role` `read` or `write`; or `path` and `public`):
///   shares it with that account, or makes its public read-only link; answers as `GET`.
/// - `POST api/sharing/remove` (`path` and `with`, or `path` and `public`): stops sharing with
///   the account, or revokes the link; answers as `GET`.
///
/// The document must be synced (this device signed in, the document uploaded); the sync
/// server's error (an unknown account, an item that is not this account's) comes back with its
/// code and message. A folder's path shares the folder (everything in it, now and later); a
/// folder has no public link.
struct SharingRoutes: Sendable {
  let library: LibraryFolder

  /// The answer of every route: the document's sharing after the request.
  struct Sharing: Encodable {
    struct Participant: Encodable {
      var user: String
      var role: String
    }
    var shares: [Participant]
    var link: String?
  }

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/sharing") { request, _ in
      await api {
        APIResponse.json(
          try await sharing(of: try target(String(request.uri.queryParameters["path"] ?? ""))))
      }
    }
    router.post("api/sharing") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let target = try target(body["path"] ?? "")
        if let user = body["with"] {
          guard let role = ShareRole(rawValue: body["role"] ?? "read") else {
            throw SyncError(.malformed, "The role is read or write.")
          }
          switch target {
          case .item(let client, let item):
            _ = try await client.share(item: item, with: user, role: role)
          case .folder(let client, let folder):
            _ = try await client.share(folder: folder, with: user, role: role)
          }
        } else if body["public"] != nil {
          _ = try await target.client.makePublicLink(item: try target.item())
        } else {
          throw SyncError(.malformed, "Say whom to share with (with), or ask for a public link.")
        }
        return APIResponse.json(try await sharing(of: target))
      }
    }
    router.post("api/sharing/remove") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let target = try target(body["path"] ?? "")
        if let user = body["with"] {
          switch target {
          case .item(let client, let item): try await client.unshare(item: item, with: user)
          case .folder(let client, let folder): try await client.unshare(folder: folder, with: user)
          }
        } else if body["public"] != nil {
          try await target.client.revokePublicLink(item: try target.item())
        } else {
          throw SyncError(.malformed, "Say whom to stop sharing with (with), or public.")
        }
        return APIResponse.json(try await sharing(of: target))
      }
    }
  }

  /// What a path shares: a synced document (its item), or a folder (its path in the library).
  enum Target {
    case item(SyncClient, String)
    case folder(SyncClient, String)

    var client: SyncClient {
      switch self {
      case .item(let client, _), .folder(let client, _): client
      }
    }

    /// The document's item; `forbidden` for a folder, which has no public link.
    func item() throws(SyncError) -> String {
      guard case .item(_, let item) = self else {
        throw SyncError(.forbidden, "A folder has no public link; share its documents one by one.")
      }
      return item
    }
  }

  /// The server and item of the synced document at `path` (relative to the library), or the
  /// folder at `path`.
  private func target(_ path: String) throws -> Target {
    let url = try library.url(path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw QuireError(.notFound, "“\(path)” is not in the library.", path: url.path)
    }
    let store = SyncVersionStore(folder: library.root)
    if isDirectory.boolValue, url.pathExtension.isEmpty, !path.isEmpty {
      guard !path.hasPrefix(SyncAgent.sharedFolderName) else {
        throw SyncError(.forbidden, "“\(path)” is shared with you; only its owner shares it.")
      }
      return .folder(try store.client(for: url), path)
    }
    let (client, item) = try store.syncedItem(at: url)
    return .item(client, item)
  }

  private func sharing(of target: Target) async throws -> Sharing {
    let shares: [ShareInfo]
    var link: PublicLink?
    switch target {
    case .item(let client, let item):
      shares = try await client.shares(of: item)
      link = try await client.publicLink(item: item)
    case .folder(let client, let folder):
      shares = try await client.shares(ofFolder: folder)
    }
    return Sharing(
      shares: shares.map { Sharing.Participant(user: $0.user, role: $0.role.rawValue) },
      link: link?.url(on: target.client.server).absoluteString)
  }
}
