import Foundation
import Quire
import QuireSync

/// A sync agent run in the test's own process (its steps called one by one: `pull()`,
/// `pushLocalChanges()`), for device `name` of alice's on `server`: its folder and its state
/// file are under `home`. `download` overrides the settings' download policy.
func inProcessAgent(
  _ name: String, server: SyncServerProcess, home: TemporaryDirectory,
  download: DownloadPolicy? = nil
) async throws -> (agent: SyncAgent, folder: URL, stateFile: URL) {
  let signedIn = try await SyncClient.signIn(
    server: server.url, user: "alice", password: "alice-password", device: name)
  let folder = home.url.appendingPathComponent(name)
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let stateFile = home.url.appendingPathComponent("\(name).sqlite")
  let settings = SyncSettings(
    server: server.url, user: "alice", device: signedIn.device, token: signedIn.token,
    container: "iCloud.net.gacha.quire")
  let agent = try SyncAgent(
    settings: settings, folder: folder, stateFile: stateFile,
    trash: Trash(folder: home.url.appendingPathComponent("\(name)-Trash")), download: download)
  return (agent, folder, stateFile)
}
