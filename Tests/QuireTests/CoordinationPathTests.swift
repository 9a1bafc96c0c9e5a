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
}
