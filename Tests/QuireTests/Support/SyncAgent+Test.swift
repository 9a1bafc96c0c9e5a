import Foundation
import Quire

@testable import QuireSync

extension SyncAgent {
  /// An agent of alice's signed in to `server` as `device`, syncing the drive's container in
  /// `home`/Documents, with its state and Trash in `home` too.
  static func test(_ device: String, in home: URL, server: SyncServerProcess) async throws
    -> SyncAgent
  {
    let signedIn = try await SyncClient.signIn(
      server: server.url, user: "alice", password: "alice-password", device: device)
    return try SyncAgent(
      settings: SyncSettings(
        server: server.url, user: "alice", device: signedIn.device, token: signedIn.token,
        container: "iCloud.net.gacha.quire"),
      folder: home.appendingPathComponent("Documents"),
      stateFile: home.appendingPathComponent("state.sqlite"),
      trash: Trash(folder: home.appendingPathComponent("Trash")))
  }
}
