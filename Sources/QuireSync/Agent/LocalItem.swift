import Foundation
import QuireSyncProtocol

/// A document as the agent finds it in its folder: its identity, where it is, and its members'
/// sizes and times (what tells a change without reading bytes).
struct LocalItem: Sendable, Equatable {
  /// One member's stat.
  struct Member: Sendable, Equatable, Codable {
    var size: Int
    var mode: Int
    var modifiedNanoseconds: Int64

    /// A package member that is in the cloud: only its placeholder is in the package (see
    /// ``Quire/CloudPlaceholder/downloadMember(at:ofPackage:mode:modified:fill:)``).
    static let inCloud = Member(size: -1, mode: 0, modifiedNanoseconds: -1)
  }

  var id: String
  /// The path relative to the synced folder.
  var path: String
  var kind: ItemKind
  /// Members by path in the package; a flat file has one, at "".
  var members: [String: Member]
}
