import Foundation

@testable import QuireSync

/// A real directory under the system's temporary folder, removed when the test is done.
final class TemporaryDirectory: Sendable {
  let url: URL
  var path: String { url.path }

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("quire-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    // Undo read-only permissions that a test set (a read share's files), so cleanup can remove
    // everything: in this process, not a chmod child per folder.
    SyncAgent.allowWriting(url)
    try? FileManager.default.removeItem(at: url)
  }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Builds packages on disk with plain Foundation calls, independent of the code under test.
enum Disk {
  static func write(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  static func read(_ url: URL) throws -> String {
    String(decoding: try Data(contentsOf: url), as: UTF8.self)
  }

  /// Every item below `url`, relative, with a trailing `/` for folders and `-> target` for links.
  static func tree(_ url: URL) throws -> [String] {
    var items: [String] = []
    let manager = FileManager.default
    for name in try manager.contentsOfDirectory(atPath: url.path).sorted() {
      let child = url.appendingPathComponent(name)
      let attributes = try manager.attributesOfItem(atPath: child.path)
      switch attributes[.type] as? FileAttributeType {
      case .typeDirectory?:
        items.append(name + "/")
        items += try tree(child).map { name + "/" + $0 }
      case .typeSymbolicLink?:
        items.append(name + " -> " + (try manager.destinationOfSymbolicLink(atPath: child.path)))
      default:
        items.append(name)
      }
    }
    return items
  }

  /// The tree plus every regular file's contents: two packages with equal snapshots are equal.
  static func snapshot(_ url: URL) throws -> [String: String] {
    var result: [String: String] = [:]
    for item in try tree(url) {
      if item.hasSuffix("/") || item.contains(" -> ") {
        result[item] = ""
      } else {
        result[item] = try read(url.appendingPathComponent(item))
      }
    }
    return result
  }
}
