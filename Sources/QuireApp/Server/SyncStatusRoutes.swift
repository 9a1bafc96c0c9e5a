import Foundation
import Hummingbird
import QuireSync

/// The sync line of the page: `GET api/sync` answers this device's sign-in and the state of the
/// Quire Sync agent that keeps the library in sync (``QuireSync/SyncReport``): the connection,
/// the items not in sync with their state, and the last error. The agent is its own process
/// (`quire sync run`); this reads what it records.
struct SyncStatusRoutes: Sendable {
  let library: URL

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/sync") { _, _ in
      await api {
        let settings = try SyncSettings.load()
        return APIResponse.json(
          try SyncReport.read(
            stateFile: SyncAgent.defaultStateFile(for: library), settings: settings))
      }
    }
  }
}
