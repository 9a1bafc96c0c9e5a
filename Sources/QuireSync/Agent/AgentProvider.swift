import Foundation
import Quire
import QuireSyncProtocol

/// The agent's ``Quire/FileProvider`` for its folder: a coordinated read of a document that is
/// only a placeholder, in any process, asks the agent to download it; `quire sync evict` asks it
/// to remove a download. Both are done by the agent's worker, between its other steps.
final class AgentProvider: FileProvider {
  private let agent: SyncAgent

  init(agent: SyncAgent) { self.agent = agent }

  nonisolated var presentedItemURL: URL? { agent.folder }

  func provideItem(at url: URL, progress: @escaping DownloadProgress) async throws {
    try await agent.ask(.download, at: try relative(url), progress: progress)
  }

  func evictItem(at url: URL) async throws {
    try await agent.ask(.evict, at: try relative(url))
  }

  private func relative(_ url: URL) throws -> String {
    let root = agent.folder.resolvingSymlinksInPath().path
    let path = url.standardizedFileURL.path
    for base in [root, agent.folder.path] where path.hasPrefix(base + "/") {
      return String(path.dropFirst(base.count + 1))
    }
    throw SyncError(.invalidPath, "“\(path)” is not inside the synced folder “\(root)”.")
  }
}
