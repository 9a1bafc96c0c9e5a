import Foundation
import QuireCore
import Quire

/// Member placeholders read during one download of members: the placeholders of one folder
/// share a file (``Quire/CloudPlaceholder/writeMembers(_:in:)``), decoded once, not once per
/// member.
struct PlaceholderCache {
  private var sets: [UInt64: [String: CloudPlaceholder]] = [:]

  /// The placeholder at `url`, or nil if there is none (or it cannot be read).
  mutating func read(_ url: URL) -> CloudPlaceholder? {
    guard let info = try? Sys.status(url.path) else { return nil }
    let name = url.lastPathComponent
    guard info.st_nlink > 1 else { return try? CloudPlaceholder.read(at: url) }
    let key = UInt64(info.st_ino)
    if let set = sets[key] { return set[name] }
    guard let data = try? Sys.contents(of: url.path),
      let decoded = try? JSONDecoder().decode(CloudPlaceholder.self, from: data)
    else { return nil }
    let set = decoded.members ?? [name: decoded]
    sets[key] = set
    return set[name]
  }
}
