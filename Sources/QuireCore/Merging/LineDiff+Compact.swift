extension LineDiff {
  /// A run of changed lines (`start..<end`, possibly empty) in one file.
  private struct Group {
    var start = 0
    var end = 0
  }

  /// Slides each group of changed lines of `file` as far down as it goes, or back up to line up
  /// with a change in `other` when it can, merging groups it bumps into: xdiff's
  /// `xdl_change_compact` without the indent heuristic (as `git merge-file` runs it).
  package static func compact(_ file: inout File, other: inout File) {
    var g = initialGroup(file)
    var go = initialGroup(other)
    while true {
      if g.end != g.start {
        var earliestEnd = 0
        var endMatchingOther = -1
        var size = 0
        repeat {
          size = g.end - g.start
          endMatchingOther = -1
          while slideUp(&file, &g) {
            let moved = previous(other, &go)
            precondition(moved, "group sync broken sliding up")
          }
          earliestEnd = g.end
          if go.end > go.start { endMatchingOther = g.end }
          while slideDown(&file, &g) {
            let moved = next(other, &go)
            precondition(moved, "group sync broken sliding down")
            if go.end > go.start { endMatchingOther = g.end }
          }
        } while size != g.end - g.start
        if g.end != earliestEnd, endMatchingOther != -1 {
          while go.end == go.start {
            let slid = slideUp(&file, &g)
            let moved = previous(other, &go)
            precondition(slid && moved, "group sync broken sliding to match")
          }
        }
      }
      guard next(file, &g) else { break }
      let moved = next(other, &go)
      precondition(moved, "group sync broken moving to next group")
    }
  }

  private static func initialGroup(_ file: File) -> Group {
    var g = Group()
    while file.isChanged(g.end) { g.end += 1 }
    return g
  }

  private static func next(_ file: File, _ g: inout Group) -> Bool {
    guard g.end != file.count else { return false }
    g.start = g.end + 1
    g.end = g.start
    while file.isChanged(g.end) { g.end += 1 }
    return true
  }

  private static func previous(_ file: File, _ g: inout Group) -> Bool {
    guard g.start != 0 else { return false }
    g.end = g.start - 1
    g.start = g.end
    while file.isChanged(g.start - 1) { g.start -= 1 }
    return true
  }

  private static func slideDown(_ file: inout File, _ g: inout Group) -> Bool {
    guard g.end < file.count, file.ids[g.start] == file.ids[g.end] else { return false }
    file.mark(g.start, false)
    g.start += 1
    file.mark(g.end, true)
    g.end += 1
    while file.isChanged(g.end) { g.end += 1 }
    return true
  }

  private static func slideUp(_ file: inout File, _ g: inout Group) -> Bool {
    guard g.start > 0, file.ids[g.start - 1] == file.ids[g.end - 1] else { return false }
    g.start -= 1
    file.mark(g.start, true)
    g.end -= 1
    file.mark(g.end, false)
    while file.isChanged(g.start - 1) { g.start -= 1 }
    return true
  }
}
