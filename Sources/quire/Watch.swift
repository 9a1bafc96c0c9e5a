import ArgumentParser
import Foundation
import Quire
import Synchronization

/// `quire watch PATH`: registers a file presenter and prints what it is told.
struct Watch: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Print what happens to a document or folder as it happens (until interrupted).",
    discussion: """
      The path is presented like an open document: coordinated reads, writes, moves and \
      deletions by any program using Quire are reported as they happen, and changes by programs \
      that do not coordinate (an editor, cp, rsync) are noticed too. One line per event.
      """)

  @Argument(help: "The document, folder or file to watch.") var path: String

  @MainActor
  func execute() async throws {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "“\(url.path)” does not exist; check the path.", path: url.path)
    }
    let presenter = PrintingPresenter(url: url)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }  // until interrupted
  }
}

/// A presenter that prints each message it gets as one line on stdout.
final class PrintingPresenter: FilePresenter {
  private let url: Mutex<URL>

  init(url: URL) { self.url = Mutex(url) }

  nonisolated var presentedItemURL: URL? { url.withLock { $0 } }

  private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))  // unbuffered: one line per event
  }

  func relinquishPresentedItemToReader() async -> FilePresenterReacquirer? {
    say("reading \(presentedItemURL?.path ?? "")")
    return nil
  }
  func relinquishPresentedItemToWriter() async -> FilePresenterReacquirer? {
    say("writing \(presentedItemURL?.path ?? "")")
    return nil
  }
  func savePresentedItemChanges() async throws { say("save requested") }
  func accommodatePresentedItemDeletion() async throws {
    say("deleted \(presentedItemURL?.path ?? "")")
  }
  func presentedItemDidMove(to newURL: URL) async {
    let old = url.withLock { url in
      defer { url = newURL }
      return url
    }
    say("moved \(old.path) -> \(newURL.path)")
  }
  func presentedItemDidChange() async { say("changed \(presentedItemURL?.path ?? "")") }
  func presentedSubitemDidAppear(at url: URL) async { say("created \(url.path)") }
  func presentedSubitemDidChange(at url: URL) async { say("changed \(url.path)") }
  func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) async {
    say("moved \(oldURL.path) -> \(newURL.path)")
  }
  func accommodatePresentedSubitemDeletion(at url: URL) async throws { say("deleting \(url.path)") }
}
