/// A presenter concerned by a coordinated access to an item, and how.
struct PresenterMatch: Sendable {
  /// How the presented item relates to the accessed one.
  enum Relation: Sendable {
    /// The presenter presents the item itself.
    case same
    /// The presenter presents something inside the item (a member of the package, a file in
    /// the folder).
    case inside
    /// The presenter presents a folder or package that contains the item.
    case container

    /// The relation of a presenter of `presenter` to an access of `item`, if any.
    init?(presenter: String, item: String) {
      if presenter == item {
        self = .same
      } else if presenter.hasPrefix(item == "/" ? "/" : item + "/") {
        self = .inside
      } else if item.hasPrefix(presenter == "/" ? "/" : presenter + "/") {
        self = .container
      } else {
        return nil
      }
    }
  }

  var relation: Relation
  /// The path the presenter presents.
  var presentedPath: String
  /// The process (`PID-TOKEN`) of a presenter elsewhere; `nil` for this process.
  var owner: String?
  /// The presenter's registration number in its process.
  var number: Int
}
