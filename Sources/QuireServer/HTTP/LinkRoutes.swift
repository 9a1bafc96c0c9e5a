import Foundation
import Hummingbird
import QuireSyncProtocol

/// The public-link API (docs/sync-api.yaml): a device makes, reads and revokes its items'
/// read-only links. Only the item's own account can; another account's guess is `notFound`.
struct LinkRoutes: Sendable {
  let store: ServerStore
  let reading: RequestReading

  func add(to router: Router<ServerRequestContext>) {
    let path = "/v1/containers/:container/items/:item/link"
    router.post(RouterPath(path)) { request, context in
      let device = try reading.device(request)
      let link = try store.shares.publicLink(
        container: try context.parameters.require("container"),
        item: try context.parameters.require("item"), user: device.user, create: true)
      return ServerResponse.json(link, status: .created)
    }
    router.get(RouterPath(path)) { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let item = try context.parameters.require("item")
      guard
        let link = try store.shares.publicLink(
          container: container, item: item, user: device.user, create: false)
      else {
        throw SyncError(.notFound, "Item \(item) in \(container) has no public link.")
      }
      return ServerResponse.json(link)
    }
    router.delete(RouterPath(path)) { request, context in
      let device = try reading.device(request)
      try store.shares.revokePublicLink(
        container: try context.parameters.require("container"),
        item: try context.parameters.require("item"), user: device.user)
      return Response(status: .noContent)
    }
  }
}
