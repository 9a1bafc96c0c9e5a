import Foundation
import Hummingbird
import QuireSyncProtocol

/// The versions API (docs/sync-api.yaml): an item's versions, resolving its conflicts, and
/// restoring a version as a new revision.
struct VersionRoutes: Sendable {
  let store: ServerStore
  let reading: RequestReading
  let limiter: CommitRateLimiter
  let signal: JournalSignal

  func add(to router: Router<ServerRequestContext>) {
    let item = "/v1/containers/:container/items/:item/versions"
    router.get(RouterPath(item)) { request, context in
      let device = try reading.device(request)
      return ServerResponse.json(
        try store.commits.versions(
          container: try context.parameters.require("container"),
          item: try context.parameters.require("item"), user: device.user))
    }
    router.post(RouterPath(item + "/resolve")) { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let body = try await reading.json(ResolveRequest.self, from: request)
      let answer = try store.commits.resolve(
        container: container, item: try context.parameters.require("item"),
        revisions: body.revisions, resolved: body.resolved ?? true, user: device.user)
      if answer.sequence != nil { signal.notify("\(device.user)/\(container)") }
      return ServerResponse.json(answer)
    }
    router.post(RouterPath(item + "/remove")) { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let body = try await reading.json(VersionSelection.self, from: request)
      let answer = try store.commits.removeVersions(
        container: container, item: try context.parameters.require("item"),
        revisions: body.revisions, user: device.user)
      if answer.sequence != nil { signal.notify("\(device.user)/\(container)") }
      return ServerResponse.json(answer)
    }
    router.post(RouterPath(item + "/:revision/restore")) { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      guard let revision = Int64(try context.parameters.require("revision")) else {
        throw SyncError(.malformed, "A revision is a number.")
      }
      guard limiter.allow(device.id) else {
        throw SyncError(.rateLimited, "This device commits too fast; wait a moment and retry.")
      }
      let answer = try store.commits.restore(
        container: container, item: try context.parameters.require("item"), revision: revision,
        device: device)
      signal.notify("\(device.user)/\(container)")
      return ServerResponse.json(answer, status: .created)
    }
  }
}
