/// Names the planner makes up: "Name 2.txt" for a clash, "Name (my changes).txt" for a local
/// revision kept aside.
///
/// Quire's `FileName.unique` does the same on disk and on the server, and also keeps names
/// within 255 bytes. This module depends on nothing, so the planner stays pure; the executor
/// shortens a name that is too long when it carries the operation out.
enum UniqueName {
  /// The first of `name` with `marker` ("Name (marker).txt"), then "Name 2.txt", "Name 3.txt"…
  /// (or "Name (marker) 2.txt") that is not in `taken`.
  static func make(_ name: String, marker: String?, taken: Set<String>) -> String {
    let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
    let stem = dot.map { String(name[..<$0]) } ?? name
    let suffix = dot.map { String(name[$0...]) } ?? ""
    let marked = marker.map { "\(stem) (\($0))" } ?? stem
    if marker != nil, !taken.contains(marked + suffix) { return marked + suffix }
    var number = 2
    while taken.contains("\(marked) \(number)\(suffix)") { number += 1 }
    return "\(marked) \(number)\(suffix)"
  }
}
