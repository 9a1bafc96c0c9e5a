import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// A download's writes go through `Sys`, so a test can fail any of them: whichever fails, the
/// file it was to replace stays whole, no temporary is left, and the error is typed and says why.
@Suite("Downloads under failing system calls")
struct DownloadFaultTests {
  static func member(_ text: String) -> ManifestMember {
    let bytes = Array(text.utf8)
    return ManifestMember(
      path: "", size: bytes.count, mode: 0o644, modified: 1_700_000_000,
      hash: ContentHash(of: bytes), chunks: [])
  }

  /// What `folder` holds, hidden temporaries included.
  static func names(_ folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }

  @Test(
    "a download failing at any of its system calls keeps the old file and leaves no temporary",
    arguments: ["open", "write", "fchmod", "futimens", "fsync", "rename"])
  func failingCall(call: String) throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("Note.txt")
    try Disk.write("the old text", to: file)
    let writer = DownloadWriter(folder: folder.url, identity: UUID().uuidString)
    let failing = FaultHook { $0 == call ? ENOSPC : nil }
    do {
      try Sys.$faults.withValue(failing) {
        try writer.writeFile(Self.member("the new text"), at: file) { fd in
          try Sys.write(fd, Data("the new text".utf8))
        }
      }
      Issue.record("the download succeeded although \(call) failed")
    } catch let error as SyncError {
      #expect(error.code == .unavailable)
      #expect(error.message.contains(file.path) && error.message.contains("No space left"))
    }
    #expect(try Disk.read(file) == "the old text")
    #expect(try Self.names(folder.url) == ["Note.txt"], "no temporary left")

    // The same download with nothing failing replaces the file.
    try writer.writeFile(Self.member("the new text"), at: file) { fd in
      try Sys.write(fd, Data("the new text".utf8))
    }
    #expect(try Disk.read(file) == "the new text")
    #expect(try Self.names(folder.url) == ["Note.txt"])
  }
}
