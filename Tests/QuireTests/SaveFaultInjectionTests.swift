import Foundation
import Synchronization
import Testing

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// Every system call of a save is made to fail in turn: the save must throw a typed error naming
/// the package and the cause, the package must read back as exactly the old or the new version,
/// and the edits must still be in memory so that saving again succeeds.
@Suite("Fault injection on saves")
struct SaveFaultInjectionTests {
  enum Shape: String, CaseIterable {
    case oneMember, manyMembers, flatFile, newPackage
  }

  /// Builds the original document and returns a function that edits a freshly read wrapper.
  static func prepare(_ shape: Shape, in folder: TemporaryDirectory) throws -> (
    URL, (FileWrapper) throws -> Void
  ) {
    switch shape {
    case .flatFile:
      let file = folder.file("notes.txt")
      try Disk.write("old", to: file)
      return (file, { _ in })
    case .newPackage:
      let package = folder.file("Fresh.mydoc")
      return (package, { _ in })
    case .oneMember, .manyMembers:
      let package = folder.file("Doc.mydoc")
      try Disk.write("old text", to: package.appendingPathComponent("text.txt"))
      try Disk.write("old image", to: package.appendingPathComponent("image.png"))
      try Disk.write("keep", to: package.appendingPathComponent("sub/keep.txt"))
      return (
        package,
        { wrapper in
          wrapper.removeFileWrapper(wrapper.fileWrappers!["text.txt"]!)
          try wrapper.addRegularFile(
            withContents: Data("new text".utf8), preferredFilename: "text.txt")
          guard shape == .manyMembers else { return }
          wrapper.removeFileWrapper(wrapper.fileWrappers!["image.png"]!)
          try wrapper.fileWrappers!["sub"]!.addRegularFile(
            withContents: Data("added".utf8), preferredFilename: "new.txt")
        }
      )
    }
  }

  static func wrapper(for shape: Shape, at url: URL, edit: (FileWrapper) throws -> Void) throws
    -> FileWrapper
  {
    switch shape {
    case .flatFile: return FileWrapper(regularFileWithContents: Data("new".utf8))
    case .newPackage:
      return FileWrapper(directoryWithFileWrappers: [
        "text.txt": FileWrapper(regularFileWithContents: Data("fresh".utf8))
      ])
    default:
      let wrapper = try FileWrapper(url: url)
      try edit(wrapper)
      return wrapper
    }
  }

  /// What the document looks like on disk (a package's files, or the flat file's text).
  static func state(of url: URL) throws -> [String: String]? {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    _ = try? FileWrapper(url: url)  // reading recovers an interrupted save
    var isDirectory: ObjCBool = false
    _ = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
    return isDirectory.boolValue ? try Disk.snapshot(url) : ["": try Disk.read(url)]
  }

  @Test("each failing system call leaves old-or-new and a typed error", arguments: Shape.allCases)
  func failEachCall(shape: Shape) throws {
    // A clean run gives the expected new state and the list of calls to fail.
    let reference = try TemporaryDirectory()
    let (referenceURL, edit) = try Self.prepare(shape, in: reference)
    let old = try Self.state(of: referenceURL)
    let referenceWrapper = try Self.wrapper(for: shape, at: referenceURL, edit: edit)
    let calls = try Faults.record { try referenceWrapper.write(to: referenceURL) }
    let new = try Self.state(of: referenceURL)
    #expect(old != new)
    #expect(calls.contains("fsync"))

    for (index, call) in calls.enumerated() {
      for errno in [EIO, ENOSPC] {
        let folder = try TemporaryDirectory()
        let (url, edit) = try Self.prepare(shape, in: folder)
        let wrapper = try Self.wrapper(for: shape, at: url, edit: edit)
        var thrown: QuireError?
        do {
          try Faults.failing(call: index, errno: errno) { try wrapper.write(to: url) }
        } catch let error as QuireError {
          thrown = error
        }
        let after = try Self.state(of: url)
        #expect(after == old || after == new, "failing \(call) #\(index) left a mixed document")
        if let thrown {
          #expect(thrown.path?.hasPrefix(folder.path) == true, "\(thrown)")
          #expect((thrown.cause as? SystemCallError)?.errno == errno, "\(thrown)")
          #expect(thrown.message.contains(folder.path))
          if errno == ENOSPC { #expect(thrown.code == .noSpace) }
        }
        // The edits are still in memory: saving again, with no fault, gives the new version.
        try wrapper.write(to: url)
        #expect(try Self.state(of: url) == new, "retry after failing \(call) #\(index)")
        #expect(try !Disk.tree(folder.url).contains { $0.contains(".quire-") })
      }
    }
  }

  @Test(
    "a failure before the commit point leaves the original untouched",
    arguments: [Shape.oneMember, .manyMembers])
  func failureBeforeCommitKeepsOriginal(shape: Shape) throws {
    let reference = try TemporaryDirectory()
    let (referenceURL, referenceEdit) = try Self.prepare(shape, in: reference)
    let referenceWrapper = try Self.wrapper(for: shape, at: referenceURL, edit: referenceEdit)
    let calls = try Faults.record { try referenceWrapper.write(to: referenceURL) }
    // The save commits with the last fsync before the first rename into place (the journal's
    // folder, or the staged member itself); a failure up to there must change nothing.
    let firstRename = try #require(calls.firstIndex(of: "rename"))
    let commit = try #require(calls[..<firstRename].lastIndex(of: "fsync"))
    for index in 0...commit {
      let folder = try TemporaryDirectory()
      let (url, edit) = try Self.prepare(shape, in: folder)
      let old = try Disk.snapshot(url)
      let wrapper = try Self.wrapper(for: shape, at: url, edit: edit)
      #expect(throws: QuireError.self, "failing \(calls[index]) #\(index)") {
        try Faults.failing(call: index, errno: EIO) { try wrapper.write(to: url) }
      }
      #expect(
        try Disk.snapshot(url) == old, "failing \(calls[index]) #\(index) changed the original")
    }
  }

  @Test("edits made while a save runs stay unsaved and are written by the next save")
  func editsDuringSaveStayDirty() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("one", to: package.appendingPathComponent("a.txt"))
    let wrapper = try FileWrapper(url: package)
    wrapper.removeFileWrapper(wrapper.fileWrappers!["a.txt"]!)
    try wrapper.addRegularFile(withContents: Data("two".utf8), preferredFilename: "a.txt")
    let sneaked = Mutex(false)
    try Faults.observing({ call in
      guard call == "fsync", !sneaked.withLock({ $0 }) else { return }
      sneaked.withLock { $0 = true }
      _ = try? wrapper.addRegularFile(
        withContents: Data("late".utf8), preferredFilename: "late.txt")
    }) {
      try wrapper.write(to: package)
    }
    #expect(try Disk.read(package.appendingPathComponent("a.txt")) == "two")
    #expect(
      !FileManager.default.fileExists(atPath: package.appendingPathComponent("late.txt").path))
    try wrapper.write(to: package)
    #expect(try Disk.read(package.appendingPathComponent("late.txt")) == "late")
  }
}
