import Foundation
import Quire

/// The folder's monitor: what each event asks of the worker.
extension SyncAgent {
  /// Asks the worker for a push of what changed at `paths` (relative to the folder): the
  /// monitor's events. Past ``scopeLimit`` places, the push scans the whole folder.
  func requestPush(changed paths: [String]) {
    let known = changedScopes
    needsPush = true
    if var known {
      for path in paths { known.insert(path) }
      changedScopes = known.count > Self.scopeLimit ? nil : known
    }
    wake?.yield()
  }

  /// The most places a push scans one by one; more, and it scans the whole folder.
  static var scopeLimit: Int { 4_096 }

  /// Follows the folder: any change outside the agent's own hidden files asks for a push.
  func listenToFolder() async {
    while !Task.isCancelled {
      do {
        var events = FileMonitor(watching: folder).makeAsyncIterator()
        // The watch holds from here; a change made after the last scan but before it has no
        // event (a file saved just as the agent started): scan once more.
        request(push: true)
        armedWatch()
        while let event = try await events.next() { await heard(event) }
      } catch {
        note(error)
      }
      if Task.isCancelled { return }
      try? await Task.sleep(for: .seconds(1))  // the watch ended (folder gone?): re-arm shortly
      request(push: true)
    }
  }

  /// Asks for the push `event` calls for, if any: of the places it names (where a moved item
  /// went, and where it was), or of the whole folder when events were lost.
  private func heard(_ event: FileEvent) async {
    let parts = relativeParts(event.path)
    if parts.count == 1, case .created = event.kind, SyncBarrier.isRequest(parts[0]) {
      return heardRequest(String(parts[0]))
    }
    if !FolderEventFilter.asksForPush(event, parts: parts) { return }
    if case .rescan = event.kind {
      armedWatch()  // a request's event may be among those lost
      return request(push: true)
    }
    // The shares' agents listen in the shared folder; the drive's hears what leaves it.
    let isShares = { (parts: [Substring]) in
      self.share == nil && parts.count > 1 && parts.first == Substring(Self.sharedFolderName)
    }
    var changed: [String] = []
    if !isShares(parts) {
      let path = parts.joined(separator: "/")
      if share == nil { await tellMovedShares(about: path) }
      changed.append(path)
    }
    if case .moved(let from) = event.kind, from.hasPrefix(folder.path + "/") {
      let old = relativeParts(from)
      if !isShares(old) { changed.append(old.joined(separator: "/")) }
    }
    if !changed.isEmpty { requestPush(changed: changed) }
  }

  /// The components of `path` (absolute) under the folder.
  private func relativeParts(_ path: String) -> [Substring] {
    URL(fileURLWithPath: path).standardizedFileURL.path.dropFirst(folder.path.count)
      .split(separator: "/")
  }
}
