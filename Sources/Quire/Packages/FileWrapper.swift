import Foundation
import Synchronization

/// A file package, a regular file or a symbolic link, as a tree of wrappers: Foundation's
/// `FileWrapper`, which Linux lacks, with the same meaning of its members.
///
/// Reading a package with ``init(url:options:)`` reads names and attributes only; a member's
/// bytes are mapped from disk when first asked for and can be released again with
/// ``discardContents()``. Writing back to where the package was read from
/// (``write(to:options:originalContentsURL:)``) writes only the members that changed, and is
/// atomic as a whole: after a crash at any moment the package reads back as exactly the old or
/// exactly the new document.
///
/// On disk a package stays a plain directory of the document's own files. While a save is in
/// flight it holds a little bookkeeping (names starting with `.quire-`); a completed save leaves
/// none, and reading a package whose save was interrupted finishes or undoes that save first.
///
/// Wrappers are safe to use from any thread; a directory's children may be changed while
/// another thread reads them.
public final class FileWrapper: Sendable {
  enum Content {
    /// Contents in memory, or nil while they are still only on disk (at `origin`).
    case regularFile(Data?)
    /// Boxed: a folder is rare among a package's members, and its four fields inline would add
    /// 16 bytes to every member's wrapper.
    indirect case directory(Directory)
    case symbolicLink(String)
  }

  struct Directory {
    var children: [String: FileWrapper] = [:]
    /// Keys whose child was added, replaced or changed since the folder last matched the disk.
    var dirtyKeys: Set<String> = []
    /// Wrappers removed since the folder last matched the disk, by the name they have there.
    var removed: [String: FileWrapper] = [:]
    /// Where this folder is on disk, when it matches a folder there.
    var location: DiskLocation?
  }

  /// Where a wrapper's current state is on disk: the folder holding it, and its name there.
  struct Origin {
    var directory: DiskLocation
    var name: String
    var path: String { directory.path(of: name) }
  }

  /// A wrapper's state. The fields are in the order that packs them into 144 bytes (the flags
  /// in the content's padding), so a wrapper takes a 176-byte allocation: an open package of
  /// 100 000 members is mostly these.
  struct State {
    var content: Content
    var attributesChanged = false
    /// Whether contents read lazily from disk are mapped (the default) or copied into memory.
    var mapsContents = true
    /// Whether the member's bytes were in the cloud when it was read (its file was a
    /// ``CloudPlaceholder``): reading them first asks the folder's provider to download them.
    var isInCloud = false
    var preferredFilename: String?
    var filename: String?
    var attributes = FileAttributes()
    var origin: Origin?
    /// Counts changes to this wrapper, so a save clears only the changes it wrote.
    var generation: UInt64 = 0
    weak var parent: FileWrapper?
    var keyInParent: String?
  }

  let state: Mutex<State>

  init(state: State) {
    self.state = Mutex(state)
  }

  /// A directory wrapper with the given children. Children without a preferred filename get
  /// their key as one, as in Foundation.
  public convenience init(directoryWithFileWrappers childrenByPreferredName: [String: FileWrapper])
  {
    self.init(state: State(content: .directory(Directory())))
    for (key, child) in childrenByPreferredName {
      child.state.withLock { child in
        if child.preferredFilename == nil { child.preferredFilename = key }
      }
      insert(child, forKey: key)
    }
  }

  /// A regular-file wrapper with the given contents.
  public convenience init(regularFileWithContents contents: Data) {
    self.init(state: State(content: .regularFile(contents)))
  }

  /// A symbolic-link wrapper pointing at `url` (written as the URL's path, relative or absolute
  /// as given).
  public convenience init(symbolicLinkWithDestinationURL url: URL) {
    let destination = url.baseURL == nil ? url.path : url.relativePath
    self.init(state: State(content: .symbolicLink(destination)))
  }

  /// A symbolic-link wrapper whose link holds `destination` verbatim.
  public convenience init(symbolicLinkWithDestination destination: String) {
    self.init(state: State(content: .symbolicLink(destination)))
  }

  /// Whether this wrapper is a regular file.
  public var isRegularFile: Bool {
    state.withLock { if case .regularFile = $0.content { true } else { false } }
  }

  /// Whether this wrapper is a directory (a package or a folder).
  public var isDirectory: Bool {
    state.withLock { if case .directory = $0.content { true } else { false } }
  }

  /// Whether this wrapper is a symbolic link.
  public var isSymbolicLink: Bool {
    state.withLock { if case .symbolicLink = $0.content { true } else { false } }
  }

  /// The name this wrapper would like to have in its parent; the key may differ on a clash.
  public var preferredFilename: String? {
    get { state.withLock { $0.preferredFilename } }
    set { state.withLock { $0.preferredFilename = newValue } }
  }

  /// The name of the file on disk this wrapper was last read from or written to.
  public var filename: String? {
    get { state.withLock { $0.filename } }
    set { state.withLock { $0.filename = newValue } }
  }

  /// The wrapper's permissions, modification date and size. Setting them marks the wrapper
  /// changed, so the next save applies them.
  public var fileAttributes: FileAttributes {
    get { state.withLock { $0.attributes } }
    set {
      let (parent, key) = state.withLock { state in
        state.attributes = newValue
        state.attributesChanged = true
        state.generation &+= 1
        return (state.parent, state.keyInParent)
      }
      if let parent, let key { parent.noteChildChanged(key: key) }
    }
  }

  /// Where a symbolic-link wrapper points, or nil for other kinds.
  public var symbolicLinkDestinationURL: URL? {
    guard let destination = symbolicLinkDestination else { return nil }
    return destination.hasPrefix("/")
      ? URL(fileURLWithPath: destination)
      : URL(string: destination.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "")
  }

  /// The link text of a symbolic-link wrapper, exactly as stored, or nil for other kinds.
  public var symbolicLinkDestination: String? {
    state.withLock {
      if case .symbolicLink(let destination) = $0.content { destination } else { nil }
    }
  }

  /// The path this wrapper was read from or last written to, if it still matches the disk.
  var originPath: String? { state.withLock { $0.origin?.path } }
}
