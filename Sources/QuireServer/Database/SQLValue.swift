import Foundation

/// One value of a statement's arguments or of a row, whichever engine holds the data: the
/// server's tables use only these (flags are integers 0 and 1, times are seconds as reals).
enum SQLValue: Sendable, Hashable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])
}

/// A value passes as itself (a migration copies rows as they are stored).
extension SQLValue: SQLArgument {
  var sqlValue: SQLValue { self }
}

/// A Swift value that can be passed as a statement argument.
protocol SQLArgument {
  /// The value as the database stores it.
  var sqlValue: SQLValue { get }
}

/// A Swift value that can be read from a row's column.
protocol SQLColumn {
  /// The value read from `value`, or nil if `value` does not hold one of this type.
  init?(sqlValue value: SQLValue)
}

extension Int64: SQLArgument, SQLColumn {
  var sqlValue: SQLValue { .integer(self) }
  init?(sqlValue value: SQLValue) {
    guard case .integer(let integer) = value else { return nil }
    self = integer
  }
}

extension Int: SQLArgument, SQLColumn {
  var sqlValue: SQLValue { .integer(Int64(self)) }
  init?(sqlValue value: SQLValue) {
    guard let integer = Int64(sqlValue: value) else { return nil }
    self = Int(integer)
  }
}

extension Bool: SQLArgument, SQLColumn {
  var sqlValue: SQLValue { .integer(self ? 1 : 0) }
  init?(sqlValue value: SQLValue) {
    guard let integer = Int64(sqlValue: value) else { return nil }
    self = integer != 0
  }
}

extension Double: SQLArgument, SQLColumn {
  var sqlValue: SQLValue { .real(self) }
  init?(sqlValue value: SQLValue) {
    switch value {
    case .real(let real): self = real
    case .integer(let integer): self = Double(integer)  // SQLite stores a whole real as one
    default: return nil
    }
  }
}

extension String: SQLArgument, SQLColumn {
  var sqlValue: SQLValue { .text(self) }
  init?(sqlValue value: SQLValue) {
    guard case .text(let text) = value else { return nil }
    self = text
  }
}

extension Data: SQLArgument, SQLColumn {
  var sqlValue: SQLValue { .blob([UInt8](self)) }
  init?(sqlValue value: SQLValue) {
    guard case .blob(let bytes) = value else { return nil }
    self = Data(bytes)
  }
}

extension Optional: SQLArgument where Wrapped: SQLArgument {
  var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLColumn where Wrapped: SQLColumn {
  init?(sqlValue value: SQLValue) {
    if value == .null {
      self = .none
    } else if let wrapped = Wrapped(sqlValue: value) {
      self = .some(wrapped)
    } else {
      return nil
    }
  }
}
