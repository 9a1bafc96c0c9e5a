import Dispatch
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Document {
  /// Saves every open document with unsaved changes. Returns whether all of them saved.
  @discardableResult
  public static func saveAllOpenDocuments() async -> Bool {
    var allSaved = true
    for document in DocumentRegistry.shared.openDocuments where document.hasUnsavedChanges {
      if !(await document.autosave()) { allSaved = false }
    }
    return allSaved
  }

  /// Makes SIGTERM and SIGINT save every open document before the process exits (with status 0
  /// if all saved, 1 if any failed). Call it once at launch.
  public static func saveOpenDocumentsOnTermination() {
    TerminationHandler.shared.install()
  }
}

/// Holds the signal sources that turn SIGTERM and SIGINT into a save of every open document.
@MainActor
final class TerminationHandler {
  static let shared = TerminationHandler()
  private var sources: [any DispatchSourceSignal] = []

  func install() {
    guard sources.isEmpty else { return }
    // A process started by one whose thread blocked these signals (as Swift concurrency's
    // worker threads do) inherits them blocked, and would never hear them: unblock them here,
    // on the main thread, so it takes the delivery.
    var unblock = sigset_t()
    sigemptyset(&unblock)
    sigaddset(&unblock, SIGTERM)
    sigaddset(&unblock, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    for number in [SIGTERM, SIGINT] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
      source.setEventHandler {
        Task { @MainActor in
          let saved = await Document.saveAllOpenDocuments()
          exit(saved ? 0 : 1)
        }
      }
      source.resume()
      sources.append(source)
    }
  }
}
