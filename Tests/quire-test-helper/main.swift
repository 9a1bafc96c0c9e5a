// A separate process for the crash tests: saves versions of a package in a loop, so the test can
// SIGKILL it at random moments, or kills itself at exactly the Nth system call of a save.
//
//   quire-test-helper save-loop PACKAGE            save versions forever, printing "saving V"
//   quire-test-helper save-once PACKAGE N KIND     save one version, SIGKILL self at syscall N
//                                                  (KIND: multi | single)
//   quire-test-helper count-calls PACKAGE KIND     print how many syscalls one save makes
//   quire-test-helper edit-and-wait FILE TEXT      open a text document, edit it, print "ready",
//                                                  and wait to be terminated (autosave is far off)
//   quire-test-helper coord-hold PATH read|write   hold a coordinated access, print "held", park
//   quire-test-helper coord-write-loop DIR N       N coordinated writes, each rewriting every
//                                                  member of DIR in place with the version number
//   quire-test-helper coord-move OLD NEW           move OLD to NEW in a coordinated write pair
//   quire-test-helper coord-write FILE TEXT        replace FILE's contents in a coordinated write
//   quire-test-helper follow FILE                open FILE with an edit: "ready", then "moved
//                                                  PATH edits kept" or "deleted"
//   quire-test-helper hear-change FILE           a presenter of FILE: "ready", then "told"
//   quire-test-helper cost SCENARIO PATH         the work a cost test counts (CostScenario.swift)
//   quire-test-helper write-when-staged DIR FILE  another program, uncoordinated: whenever a
//                                                  download stages a file in DIR, it appends a
//                                                  line "helper-N" to FILE at once and prints it
//   quire-test-helper index-churn DIR INDEX        run a query of DIR on the index file INDEX and
//                                                  create and delete files in DIR forever,
//                                                  printing "indexed N" as updates arrive
//   quire-test-helper index-once DIR INDEX         gather DIR (with the sample types) into the
//                                                  index file INDEX, print "indexed", and exit
import Foundation
import Quire
import QuireApp
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a line to stdout at once (no buffering), so the test sees it before a kill.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
  FileHandle.standardError.write(
    Data("usage: quire-test-helper save-loop|save-once|count-calls PACKAGE …\n".utf8))
  exit(2)
}
let package = URL(fileURLWithPath: arguments[2])

/// The version the package holds now, from its manifest.
func currentVersion(_ wrapper: FileWrapper) -> Int {
  guard let manifest = wrapper.fileWrappers?["manifest.txt"]?.regularFileContents else { return 0 }
  return Int(String(decoding: manifest, as: UTF8.self).split(separator: "\n").first ?? "0") ?? 0
}

/// Changes the wrapper to version `version`: every member holds the version number, the marker of
/// the other parity is removed and this parity's is added, and the manifest lists it all.
/// `single` changes only one member (the one-rename save).
func apply(version: Int, to wrapper: FileWrapper, single: Bool) throws {
  func replace(_ directory: FileWrapper, _ name: String, _ text: String) throws {
    if let old = directory.fileWrappers?[name] { directory.removeFileWrapper(old) }
    try directory.addRegularFile(withContents: Data(text.utf8), preferredFilename: name)
  }
  if single {
    try replace(wrapper, "single.txt", "\(version)")
    return
  }
  let nested =
    wrapper.fileWrappers?["nested"]
    ?? {
      let folder = FileWrapper(directoryWithFileWrappers: [:])
      folder.preferredFilename = "nested"
      _ = try? wrapper.addFileWrapper(folder)
      return folder
    }()
  try replace(wrapper, "a.txt", "\(version)")
  try replace(wrapper, "b.txt", "\(version)")
  try replace(nested, "c.txt", "\(version)")
  if let other = wrapper.fileWrappers?["marker-\((version + 1) % 2)"] {
    wrapper.removeFileWrapper(other)
  }
  try replace(wrapper, "marker-\(version % 2)", "\(version)")
  try replace(
    wrapper, "manifest.txt", "\(version)\na.txt b.txt nested/c.txt marker-\(version % 2)\n")
}

switch arguments[1] {
case "save-loop":
  let wrapper = try FileWrapper(url: package)
  var version = currentVersion(wrapper)
  while true {
    version += 1
    try apply(version: version, to: wrapper, single: false)
    say("saving \(version)")
    try wrapper.write(to: package)
  }
case "save-once", "count-calls":
  let counting = arguments[1] == "count-calls"
  let dieAt = counting ? Int.max : Int(arguments[3])!
  let single = arguments[counting ? 3 : 4] == "single"
  let wrapper = try FileWrapper(url: package)
  try apply(version: currentVersion(wrapper) + 1, to: wrapper, single: single)
  let calls = Mutex(0)
  let hook = FaultHook { _ in
    let count = calls.withLock { count in
      count += 1
      return count
    }
    if count == dieAt { kill(getpid(), SIGKILL) }
    return nil
  }
  try Sys.$faults.withValue(hook) { try wrapper.write(to: package) }
  say("\(calls.withLock { $0 })")
case "cost":
  try await CostScenario.run(arguments[2], URL(fileURLWithPath: arguments[3]))
case "hear-change":
  // A presenter of FILE; prints "ready", then "told" once it hears of a change (20 s at most).
  let presenter = SignallingPresenter(package)
  try FileCoordinator.addFilePresenter(presenter)
  say("ready")
  say(await presenter.waitUntilTold(within: 20) ? "told" : "not told")
case "follow":
  // Opens FILE (a text document) with an unsaved edit, prints "ready" once its watch runs, then
  // "moved PATH" or "deleted" for what becomes of its file.
  let document = TextDocument(fileURL: package)
  document.autosaveDelay = .seconds(3600)
  try await document.open()
  var listening = false
  for attempt in 1...30 where !listening {
    let events = document.events()
    try Data("outside \(attempt)".utf8).write(to: package)
    listening = await CostScenario.firstEvent(of: events, within: 2) {
      if case .loaded = $0 { true } else { false }
    }
  }
  guard listening else { throw QuireError(.timedOut, "The document never heard its file.") }
  document.setText("unsaved edit")
  document.undoManager.endEvent()
  let events = document.events()
  say("ready")
  for await event in events {
    if case .moved(let url) = event {
      say("moved \(url.path) \(document.hasUnsavedChanges ? "edits kept" : "edits lost")")
      break
    }
    if case .deleted = event {
      say("deleted")
      break
    }
  }
case "edit-and-wait":
  Document.saveOpenDocumentsOnTermination()
  let document = TextDocument(fileURL: package)
  document.autosaveDelay = .seconds(3600)
  try await document.open()
  document.setText(arguments[3])
  document.undoManager.endEvent()
  say(document.hasUnsavedChanges ? "ready" : "not edited")
  // Park until the test terminates the process, without using any CPU.
  await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
case "coord-hold":
  let coordinator = FileCoordinator()
  let hold = { (_: URL) in
    say("held")
    while true { pause() }
  }
  if arguments[3] == "write" {
    try coordinator.coordinate(writingItemAt: package, byAccessor: hold)
  } else {
    try coordinator.coordinate(readingItemAt: package, byAccessor: hold)
  }
case "coord-write-loop":
  let coordinator = FileCoordinator()
  let members = try FileManager.default.contentsOfDirectory(atPath: package.path).sorted()
  for version in 1...Int(arguments[3])! {
    try coordinator.coordinate(writingItemAt: package) { url in
      for member in members {
        // In place and one by one: without coordination a reader could see a mix.
        let handle = try FileHandle(forWritingTo: url.appendingPathComponent(member))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("\(version)".utf8))
        try handle.close()
      }
    }
  }
  say("done")
case "coord-move":
  let coordinator = FileCoordinator()
  let destination = URL(fileURLWithPath: arguments[3])
  try coordinator.coordinate(
    writingItemAt: package, options: .forMoving, writingItemAt: destination,
    options: .forReplacing
  ) { source, target in
    coordinator.item(at: source, willMoveTo: target)
    try FileManager.default.moveItem(at: source, to: target)
    coordinator.item(at: source, didMoveTo: target)
  }
  say("moved")
case "coord-write":
  try FileCoordinator().coordinate(writingItemAt: package) { url in
    try Data(arguments[3].utf8).write(to: url)
  }
  say("written")
case "index-churn":
  let index = try DocumentIndex(url: URL(fileURLWithPath: arguments[3]))
  let query = DocumentQuery(scopes: [package], index: index)
  var updates = 0
  var next = 0
  for await results in query.results() {
    switch results.phase {
    case .gathering: continue
    case .gathered: say("gathered")
    case .updated:
      updates += 1
      if updates % 10 == 0 { say("indexed \(updates)") }
    }
    // Keep the index writing: every report brings new files and drops old ones.
    for _ in 0..<10 {
      try Data("\(next)".utf8).write(to: package.appendingPathComponent("churn-\(next).txt"))
      try? FileManager.default.removeItem(
        at: package.appendingPathComponent("churn-\(next - 30).txt"))
      next += 1
    }
  }
case "index-once":
  let index = try DocumentIndex(url: URL(fileURLWithPath: arguments[3]))
  let registry = TypeRegistry()
  try registry.register(SampleTypes.declarations)
  let query = DocumentQuery(scopes: [package], registry: registry, index: index)
  for await results in query.results() where results.phase == .gathered { break }
  await index.flush()
  say("indexed")
case "write-when-staged":
  try UncoordinatedWriter(watching: package, file: URL(fileURLWithPath: arguments[3])).run()
default:
  FileHandle.standardError.write(Data("unknown command \(arguments[1])\n".utf8))
  exit(2)
}
