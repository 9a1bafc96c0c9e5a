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
/// code and message.
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
        let (client, item) = try target(String(request.uri.queryParameters["path"] ?? ""))
        return APIResponse.json(try await sharing(of: item, client))
      }
    }
    router.post("api/sharing") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let (client, item) = try target(body["path"] ?? "")
        if let user = body["with"] {
          guard let role = ShareRole(rawValue: body["role"] ?? "read") else {
            throw SyncError(.malformed, "The role is read or write.")
          }
          _ = try await client.share(item: item, with: user, role: role)
        } else if body["public"] != nil {
          _ = try await client.makePublicLink(item: item)
        } else {
          throw SyncError(.malformed, "Say whom to share with (with), or ask for a public link.")
        }
        return APIResponse.json(try await sharing(of: item, client))
      }
    }
    router.post("api/sharing/remove") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let (client, item) = try target(body["path"] ?? "")
        if let user = body["with"] {
          try await client.unshare(item: item, with: user)
        } else if body["public"] != nil {
          try await client.revokePublicLink(item: item)
        } else {
          throw SyncError(.malformed, "Say whom to stop sharing with (with), or public.")
        }
        return APIResponse.json(try await sharing(of: item, client))
      }
    }
  }

  /// The server and item of the synced document at `path` (relative to the library).
  private func target(_ path: String) throws -> (SyncClient, String) {
    let url = try library.url(path)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "“\(path)” is not in the library.", path: url.path)
    }
    return try SyncVersionStore(folder: library.root).syncedItem(at: url)
  }

  private func sharing(of item: String, _ client: SyncClient) async throws -> Sharing {
    let shares = try await client.shares(of: item)
    let link = try await client.publicLink(item: item)
    return Sharing(
      shares: shares.map { Sharing.Participant(user: $0.user, role: $0.role.rawValue) },
      link: link?.url(on: client.server).absoluteString)
  }
}
