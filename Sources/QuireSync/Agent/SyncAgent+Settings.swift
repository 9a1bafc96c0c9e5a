import Foundation
import Quire
import QuireCore

/// Following the settings folder: the pause marker, the download policy, signing out; and the
/// activity lock a pause waits on (``SyncActivity``).
extension SyncAgent {
  /// Follows the settings folder: the pause marker appearing pauses the agent once the step in
  /// flight is done, and its removal resumes it, catching up on everything asked meanwhile. The
  /// settings themselves removed (`quire sync logout`, or signing out in the app) end the
  /// agent: this returns, and ``run(ready:)`` with it.
  func listenToSettings() async {
    let folder = pauseMarker.deletingLastPathComponent()
    let settingsFile = folder.appendingPathComponent(SyncSettings.defaultLocation.lastPathComponent)
    // A look that fails is no sign-out: only the file gone is.
    let signedIn = { (try? Sys.exists(settingsFile.path, followLinks: true)) != false }
    while !Task.isCancelled && signedIn() {
      try? Sys.makeFolders(folder.path)
      do {
        var events = FileMonitor(watching: folder, recursive: false).makeAsyncIterator()
        // The watch holds from here. The marker made or removed before it (`quire sync resume`
        // just as the agent started, after it read the marker) has no event: read it now, then
        // on any event (the marker's, or a rescan): the folder changes rarely.
        repeat {
          if !signedIn() { return }
          setPaused(SyncSettings.isPaused(marker: pauseMarker))
          if let settings = try? SyncSettings.load(from: settingsFile) {
            setDownloadPolicy(settings.downloadPolicy(for: self.folder))
          }
        } while try await events.next() != nil
      } catch {
        note(error)
      }
      if Task.isCancelled { return }
      try? await Task.sleep(for: .seconds(1))  // the watch ended: re-arm shortly
      setPaused(SyncSettings.isPaused(marker: pauseMarker))
    }
  }

  /// Follows a new download policy: a pull then downloads the placeholders it no longer keeps.
  func setDownloadPolicy(_ policy: DownloadPolicy) {
    guard policy != downloadPolicy else { return }
    downloadPolicy = policy
    request(pull: true)
  }

  /// Pauses (the worker stops after the step in flight, and then lets ``activity`` go) or
  /// resumes.
  func setPaused(_ now: Bool) {
    guard now != paused else { return }
    paused = now
    if paused {
      state.setConnection(.paused)
      request()  // an idle worker stops at once
    } else {
      setActive(true)
      request(push: true, pull: true)
      if shareLooks.isWaiting { shareLooks.asker?.yield() }  // a look the pause left undone
    }
  }

  /// Takes or lets go of the agent's shared lock on ``SyncActivity``'s file.
  func setActive(_ active: Bool) {
    if active, activity == nil {
      activity = SyncActivity.hold(beside: pauseMarker)
    } else if !active, let fd = activity {
      Sys.close(fd)
      activity = nil
    }
  }
}
