import Foundation
import Quire
import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// The work whose system calls the cost tests count (under `strace -f`): each scenario does its
/// set-up, then marks the measured part with `access("/quire-cost-begin")` and
/// `access("/quire-cost-end")`, which strace records in order with everything between.
///
///   quire-test-helper cost package-open PACKAGE     FileWrapper(url:) and its member list
///   quire-test-helper cost package-save PACKAGE     one member replaced, written back
///   quire-test-helper cost document-save PACKAGE    MyDocDocument: one edit, one save
///   quire-test-helper cost document-save-versions PACKAGE  the same, keeping a version first
///                                                   (a LocalVersionStore registered)
///   quire-test-helper cost coordinated-write PACKAGE  one member written with a presenter of
///                                                   the package told
///   quire-test-helper cost query-update FOLDER      one new file reaches a running query
@MainActor
enum CostScenario {
  static func mark(_ name: String) { _ = access("/quire-cost-\(name)", F_OK) }

  static func run(_ scenario: String, _ url: URL) async throws {
    switch scenario {
    case "package-open":
      mark("begin")
      let wrapper = try FileWrapper(url: url)
      let count = wrapper.fileWrappers?.count ?? 0
      mark("end")
      say("members \(count)")
    case "package-save":
      let wrapper = try FileWrapper(url: url)
      try replace("member-0.txt", in: wrapper, with: "changed")
      mark("begin")
      try wrapper.write(to: url)
      mark("end")
    case "document-save": try await documentSave(url)
    case "document-save-versions":
      // The versions are kept beside the package; the first save after the load looks at every
      // member (it is not known what changed), the measured one only at what the first changed.
      FileVersion.register(
        LocalVersionStore(
          directory: url.deletingLastPathComponent().appendingPathComponent("versions"),
          cache: url.deletingLastPathComponent().appendingPathComponent("version-cache")))
      try await documentSave(url, savesBefore: 1)
    case "coordinated-write": try await coordinatedWrite(url)
    case "query-update": try await queryUpdate(url)
    default: throw QuireError(.unsupported, "No cost scenario named \(scenario).")
    }
  }

  static func replace(_ name: String, in wrapper: FileWrapper, with text: String) throws {
    if let old = wrapper.fileWrappers?[name] { wrapper.removeFileWrapper(old) }
    try wrapper.addRegularFile(withContents: Data(text.utf8), preferredFilename: name)
  }

  private static func documentSave(_ url: URL, savesBefore: Int = 0) async throws {
    // New texts are written here and renamed into the package: one event there each. A write
    // in place (open, write, close) can reach the document's watch in two batches, and the
    // second reload (a walk of every member) would land in the measured save.
    let staging = url.deletingLastPathComponent().appendingPathComponent(".cost-staging")
    try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    let document = MyDocDocument(fileURL: url)
    document.autosaveDelay = .seconds(3600)
    try await document.open()
    // The document's watch of its package is in place once it is open (a presenter's watch is
    // made before FileCoordinator.addFilePresenter returns). One outside write, awaited until
    // the document has loaded it: its reload (a walk of every member) is then done, and no
    // other is pending, when the save is measured.
    let events = document.events()
    let written = "outside"
    let text = staging.appendingPathComponent("text.txt")
    try Data(written.utf8).write(to: text)
    guard rename(text.path, url.appendingPathComponent("text.txt").path) == 0 else {
      throw QuireError(.ioError, "Could not rename the new text into \(url.path).")
    }
    let heard = await firstEvent(of: events, within: 60) {
      if case .loaded = $0 { true } else { false }
    }
    guard heard, document.text == written else {
      throw QuireError(.timedOut, "The document never loaded the outside write.")
    }
    for save in 0..<savesBefore {
      document.setText("edited before \(save)")
      document.undoManager.endEvent()
      try await document.save(to: url, for: .forOverwriting)
    }
    document.setText("edited")
    document.undoManager.endEvent()
    mark("begin")
    try await document.save(to: url, for: .forOverwriting)
    mark("end")
    try await document.close()
  }

  private static func coordinatedWrite(_ url: URL) async throws {
    let presenter = SignallingPresenter(url)
    try FileCoordinator.addFilePresenter(presenter)
    // The presenter's watch of the package starts in the background: wait until it hears an
    // outside write of another member, so its start-up walk is not counted as the write's.
    let other = url.appendingPathComponent("text.txt")
    var attempt = 0
    var listening = false
    while !listening && attempt < 30 {
      attempt += 1
      try Data("outside \(attempt)".utf8).write(to: other)
      listening = await presenter.waitUntilTold(about: other, within: 2)
    }
    guard listening else { throw QuireError(.timedOut, "The presenter never heard its package.") }
    let member = url.appendingPathComponent("member-0.txt")
    mark("begin")
    try FileCoordinator().coordinate(writingItemAt: member) { target in
      try Data("changed".utf8).write(to: target)
    }
    let told = await presenter.waitUntilTold(about: member, within: 10)
    mark("end")
    FileCoordinator.removeFilePresenter(presenter)
    guard told else { throw QuireError(.timedOut, "The presenter was never told of the write.") }
  }

  private static func queryUpdate(_ folder: URL) async throws {
    let query = DocumentQuery(scopes: [folder], index: nil)
    let target = folder.appendingPathComponent("new-document.txt")
    var began = false
    for await results in query.results() {
      if results.phase == .gathered && !began {
        began = true
        mark("begin")
        try FileCoordinator().coordinate(writingItemAt: target, options: .forReplacing) { url in
          try Data("new".utf8).write(to: url)
        }
      } else if began,
        results.added.contains(where: { $0.url.lastPathComponent == target.lastPathComponent })
      {
        mark("end")
        return
      }
    }
  }

  /// Whether `events` yields an event matching `matches` within `seconds`.
  static func firstEvent(
    of events: AsyncStream<DocumentEvent>, within seconds: Double,
    _ matches: @escaping @Sendable (DocumentEvent) -> Bool
  ) async -> Bool {
    await within(seconds) {
      for await event in events where matches(event) { return true }
      return false
    }
  }
}

/// Runs `body` until it returns or `seconds` pass (then it is cancelled, so it must end when
/// cancelled); its answer, or false at the deadline.
func within(_ seconds: Double, _ body: @escaping @Sendable () async -> Bool) async -> Bool {
  await withTaskGroup(of: Bool.self) { group in
    group.addTask { await body() }
    group.addTask {
      try? await Task.sleep(for: .seconds(seconds))  // the deadline, not a wait for the event
      return false
    }
    let first = await group.next() ?? false
    group.cancelAll()
    return first
  }
}
