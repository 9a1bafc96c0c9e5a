/// The `If` header of RFC 4918 §10.4: lists of conditions (lock tokens and entity tags, each
/// possibly negated), each list for the request's resource or for a tagged one. The header
/// holds if any list holds; a list holds if all its conditions do.
struct DAVIfHeader: Sendable, Equatable {
  /// One condition: a state token (a lock token, or any URI) or an entity tag.
  struct Condition: Sendable, Equatable {
    /// `Not` before it.
    var negated = false
    /// The state token, without its angle brackets.
    var token: String?
    /// The entity tag, as written between the brackets (with its quotes).
    var etag: String?
  }

  /// The conditions in parentheses, and the resource they are about (nil: the request's).
  struct List: Sendable, Equatable {
    /// The tagged resource's URL or path, if any.
    var resource: String?
    /// The conditions, all of which must hold.
    var conditions: [Condition]
  }

  /// The lists, any of which may hold.
  var lists: [List]

  /// The lock tokens it submits (RFC 4918 §10.4.1: every state token named, negated or not,
  /// counts as submitted for the lock checks).
  var tokens: Set<String> {
    Set(lists.flatMap { $0.conditions.compactMap(\.token) })
  }

  /// Parses `header`; a malformed one is a 400.
  static func parse(_ header: String) throws(DAVError) -> DAVIfHeader {
    let malformed = DAVError(
      .badRequest, .malformed, "The If header “\(header.prefix(200))” is not RFC 4918's syntax.")
    var lists: [List] = []
    var resource: String?
    var index = header.startIndex
    func skipSpace() {
      while index < header.endIndex, header[index] == " " || header[index] == "\t" {
        index = header.index(after: index)
      }
    }
    func read(until end: Character) throws(DAVError) -> String {
      let start = header.index(after: index)
      guard let close = header[start...].firstIndex(of: end) else { throw malformed }
      index = header.index(after: close)
      return String(header[start..<close])
    }
    while true {
      skipSpace()
      guard index < header.endIndex else { break }
      switch header[index] {
      case "<":
        resource = try read(until: ">")
      case "(":
        index = header.index(after: index)
        var conditions: [Condition] = []
        while true {
          skipSpace()
          guard index < header.endIndex else { throw malformed }
          if header[index] == ")" {
            index = header.index(after: index)
            break
          }
          var condition = Condition()
          if header[index...].hasPrefix("Not") {
            condition.negated = true
            index = header.index(index, offsetBy: 3)
            skipSpace()
            guard index < header.endIndex else { throw malformed }
          }
          switch header[index] {
          case "<": condition.token = try read(until: ">")
          case "[": condition.etag = try read(until: "]")
          default: throw malformed
          }
          conditions.append(condition)
        }
        guard !conditions.isEmpty else { throw malformed }
        lists.append(List(resource: resource, conditions: conditions))
      default:
        throw malformed
      }
    }
    guard !lists.isEmpty else { throw malformed }
    return DAVIfHeader(lists: lists)
  }

  /// Whether it holds, given for each list's resource (nil: the request's) its entity tag and
  /// the tokens of the locks that cover it.
  func holds(_ state: (String?) -> (etag: String?, locks: Set<String>)) -> Bool {
    lists.contains { list in
      let (etag, locks) = state(list.resource)
      return list.conditions.allSatisfy { condition in
        let matched: Bool
        if let token = condition.token {
          matched = locks.contains(token)
        } else {
          matched = etag.map { "\"\($0)\"" == condition.etag } ?? false
        }
        return matched != condition.negated
      }
    }
  }
}
