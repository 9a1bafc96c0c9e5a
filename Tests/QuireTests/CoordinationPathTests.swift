import Foundation
import Testing

@testable import Quire

/// The byte-level path splitting of coordination agrees with Foundation's path methods, which it
/// replaces on the hot path of every coordinated access.
@Suite struct CoordinationPathTests {
  @Test("split agrees with NSString on generated absolute paths")
  func splitAgreesWithFoundation() {
    var random = SystemRandomNumberGenerator()
    let parts = ["a", "Docs", "é", "名前", "x y", ".hidden", "file.txt", "..x", "ü.mydoc"]
    for _ in 0..<2000 {
      let depth = Int.random(in: 1...6, using: &random)
      let path =
        "/"
        + (0..<depth).map { _ in parts.randomElement(using: &random)! }
        .joined(separator: "/")
      let split = CoordinationRuntime.split(path)
      #expect(split?.parent == (path as NSString).deletingLastPathComponent, "\(path)")
      #expect(split?.name == (path as NSString).lastPathComponent, "\(path)")
    }
    #expect(CoordinationRuntime.split("/") == nil)
    #expect(CoordinationRuntime.split("relative/path") == nil)
    #expect(CoordinationRuntime.split("/top")?.parent == "/")
  }

  @Test("a canonical path resolves the parent's links, keeps the last one, drops a trailing slash")
  func canonicalPath() throws {
    let folder = try TemporaryDirectory()
    let real = folder.url.appendingPathComponent("real")
    try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
    let linkedFolder = folder.url.appendingPathComponent("linked")
    try FileManager.default.createSymbolicLink(at: linkedFolder, withDestinationURL: real)
    let realPath = CoordinationRuntime.canonicalPath(real.appendingPathComponent("item"))

    #expect(
      CoordinationRuntime.canonicalPath(linkedFolder.appendingPathComponent("item")) == realPath)
    #expect(
      CoordinationRuntime.canonicalPath(URL(fileURLWithPath: real.path + "/item/")) == realPath)
    #expect(CoordinationRuntime.canonicalPath(linkedFolder).hasSuffix("/linked"))
    #expect(CoordinationRuntime.canonicalPath(URL(fileURLWithPath: "/")) == "/")
  }

  @Test("one access writing many files of a folder locks each ancestor once, and one byte a file")
  func locksPerFile() {
    func locks(_ count: Int) -> Int {
      let innerByte = Int64.random(in: 0..<CoordinationLock.innerLength)
      let requests = (0..<count).flatMap {
        CoordinationLock.requests(
          for: "/home/user/Documents/Files/d1/f\($0).txt", exclusive: true, innerByte: innerByte)
      }
      return Set(requests.map { [$0.offset, $0.length] }).count
    }
    // Six ancestors, an item byte and an inner byte each, then each file's own item byte. (With a
    // byte of each ancestor for every file, a thousand files held six thousand more locks.)
    #expect(locks(1) == 13)
    #expect(locks(1_000) - locks(100) == 900, "one lock more a file")
  }
}
