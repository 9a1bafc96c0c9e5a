/// The state of a ``Document``: UIDocument's `UIDocument.State` flags.
public struct DocumentState: OptionSet, Hashable, Sendable, CustomStringConvertible {
  /// The raw bits.
  public let rawValue: Int
  /// Makes a state from raw bits.
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Open, no error, editable: no flag set.
  public static let normal: DocumentState = []
  /// Not open (before ``Document/open()`` and after ``Document/close()``).
  public static let closed = DocumentState(rawValue: 1 << 0)
  /// Other versions of the document conflict with this one.
  public static let inConflict = DocumentState(rawValue: 1 << 1)
  /// The last save failed; the changes are still in memory and the next autosave retries.
  public static let savingError = DocumentState(rawValue: 1 << 2)
  /// Editing is not allowed now (read-only file, or a load or revert in progress).
  public static let editingDisabled = DocumentState(rawValue: 1 << 3)
  /// ``Document/progress`` reports a load or save in progress.
  public static let progressAvailable = DocumentState(rawValue: 1 << 4)

  /// The flags' names, such as `[savingError, editingDisabled]`, or `normal`.
  public var description: String {
    let names = [
      (Self.closed, "closed"), (.inConflict, "inConflict"), (.savingError, "savingError"),
      (.editingDisabled, "editingDisabled"), (.progressAvailable, "progressAvailable"),
    ].filter { contains($0.0) }.map(\.1)
    return names.isEmpty ? "normal" : "[" + names.joined(separator: ", ") + "]"
  }
}
