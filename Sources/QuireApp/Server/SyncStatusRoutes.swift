import Foundation
import Hummingbird
import QuireSync
import QuireSyncProtocol

/// The page's sync line and sign-in:
/// - `GET api/sync` answers this device's sign-in and the state of the Quire Sync agent that
///   keeps the library in sync (``QuireSync/SyncReport``): the connection, the items not in
///   sync with their state, and the last error. The agent is its own process; this reads what
///   it records.
/// - `POST api/sync/login` (`server`, `user`, `password`) signs this device in, as `quire sync
///   login` does, and starts the agent on the library.
/// - `POST api/sync/download` (`policy`: `all` or `on-demand`) sets what this device downloads
///   of the library (``QuireSync/DownloadPolicy``); the running agent follows at once.
/// - `POST api/sync/logout` signs it out; every agent of this user stops by itself.
struct SyncStatusRoutes: Sendable {
  let library: URL
  let agentCommand: [String]?

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/sync") { _, _ in await api { try report() } }
    router.post("api/sync/login") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        return try await login(body)
      }
    }
    router.post("api/sync/download") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let policy = try DownloadPolicy(parsing: body["policy"] ?? "")
        guard var settings = try SyncSettings.load() else {
          throw SyncError(.unauthorized, "Sign this device in first.")
        }
        settings.setDownloadPolicy(policy, for: library)
        try settings.save()  // the running agent follows at once
        return try report()
      }
    }
    router.post("api/sync/logout") { _, _ in
      await api {
        SyncSettings.remove()
        return try report()
      }
    }
  }

  private func report() throws -> Response {
    APIResponse.json(
      try SyncReport.read(
        stateFile: SyncAgent.defaultStateFile(for: library), settings: try SyncSettings.load(),
        folder: library))
  }

  private func login(_ body: [String: String]) async throws -> Response {
    guard let address = body["server"], let server = URL(string: address),
      server.scheme == "http" || server.scheme == "https", server.host != nil
    else {
      return APIResponse.error(
        .badRequest, code: "malformed", "The server address must look like http://HOST:8620.")
    }
    guard let user = body["user"], !user.isEmpty, let password = body["password"] else {
      return APIResponse.error(.badRequest, code: "malformed", "Give a user name and a password.")
    }
    let device = ProcessInfo.processInfo.hostName
    let answer: SignInResponse
    do {
      answer = try await SyncClient.signIn(
        server: server, user: user, password: password, device: device,
        http: try TrustedHTTPClient.trusting(nil))
    } catch {
      let status: HTTPResponse.Status = error.code.httpStatus == 401 ? .unauthorized : .badGateway
      return APIResponse.error(status, code: error.code.rawValue, error.message)
    }
    try SyncSettings(
      server: server, user: user, device: answer.device, token: answer.token,
      container: "iCloud.net.gacha.quire"
    ).save()
    startAgent()
    return try report()
  }

  /// Starts the agent on the library; if one already syncs it, the new one exits at once.
  private func startAgent() {
    guard let command = agentCommand, let executable = command.first else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = Array(command.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try? process.run()
  }
}
