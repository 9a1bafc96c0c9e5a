/// A line diff computed the way git's xdiff computes it (classic Myers with xdiff's
/// preprocessing, split heuristics and change compaction, no indent heuristic), so that a
/// three-way merge built on it gives the same result as `git merge-file`.
///
/// Lines are integer identities (equal ids: equal bytes, newline included). The cost is
/// O((N + M) · D) for D changed lines, with xdiff's cut-offs past an edit cost of 256 keeping
/// pathological inputs near linear.
package struct LineDiff {
  /// One change: `chg1` lines of the first file at `i1` became `chg2` lines of the second at `i2`.
  package struct Change: Equatable {
    var i1: Int
    var i2: Int
    var chg1: Int
    var chg2: Int
  }

  /// One side of the comparison: its lines and which of them changed.
  package struct File {
    let ids: [Int]
    /// `changed[i + 1]` for line `i`; the first and last entries are always-false sentinels.
    var changed: [Bool]
    /// The lines the Myers search sees (those not trimmed or discarded), as line indexes.
    var rindex: [Int] = []
    /// Their ids.
    var reff: [Int] = []
    var dstart = 0
    var dend: Int

    package init(_ ids: [Int]) {
      self.ids = ids
      changed = Array(repeating: false, count: ids.count + 2)
      dend = ids.count - 1
    }

    var count: Int { ids.count }
    package func isChanged(_ line: Int) -> Bool {
      line >= -1 && line <= ids.count ? changed[line + 1] : false
    }
    package mutating func mark(_ line: Int, _ value: Bool) { changed[line + 1] = value }
  }

  package var first: File
  package var second: File

  /// The diff of `first` to `second`, compacted as xdiff compacts it.
  package init(_ first: [Int], _ second: [Int]) {
    self.first = File(first)
    self.second = File(second)
    prepare()
    var search = Search(first: self.first.reff, second: self.second.reff)
    search.compare(
      off1: 0, lim1: self.first.reff.count, off2: 0, lim2: self.second.reff.count,
      needMinimal: false)
    for index in search.changed1 { self.first.mark(self.first.rindex[index], true) }
    for index in search.changed2 { self.second.mark(self.second.rindex[index], true) }
    Self.compact(&self.first, other: &self.second)
    Self.compact(&self.second, other: &self.first)
  }

  /// The changes, in order.
  package var changes: [Change] {
    var script: [Change] = []
    var i1 = first.count
    var i2 = second.count
    while i1 >= 0 || i2 >= 0 {
      if first.isChanged(i1 - 1) || second.isChanged(i2 - 1) {
        let l1 = i1
        let l2 = i2
        while first.isChanged(i1 - 1) { i1 -= 1 }
        while second.isChanged(i2 - 1) { i2 -= 1 }
        script.append(Change(i1: i1, i2: i2, chg1: l1 - i1, chg2: l2 - i2))
      }
      i1 -= 1
      i2 -= 1
    }
    return script.reversed()
  }

  /// Integer square root approximation, as xdiff's `xdl_bogosqrt`.
  package static func bogosqrt(_ n: Int) -> Int {
    var n = n
    var i = 1
    while n > 0 {
      i <<= 1
      n >>= 2
    }
    return i
  }

  /// Trims the common head and tail, then discards lines with no match in the other file (they
  /// are changes in every diff) and runs of lines with too many matches, as xdiff does.
  private mutating func prepare() {
    var head = 0
    let shorter = min(first.count, second.count)
    while head < shorter, first.ids[head] == second.ids[head] { head += 1 }
    var tail = 0
    while tail < shorter - head,
      first.ids[first.count - 1 - tail] == second.ids[second.count - 1 - tail]
    {
      tail += 1
    }
    first.dstart = head
    second.dstart = head
    first.dend = first.count - tail - 1
    second.dend = second.count - tail - 1
    let counts1 = Self.occurrences(first.ids)
    let counts2 = Self.occurrences(second.ids)
    Self.discard(&first, matches: counts2)
    Self.discard(&second, matches: counts1)
  }

  private static func occurrences(_ ids: [Int]) -> [Int: Int] {
    var counts: [Int: Int] = [:]
    for id in ids { counts[id, default: 0] += 1 }
    return counts
  }

  private static func discard(_ file: inout File, matches: [Int: Int]) {
    let limit = min(bogosqrt(file.count), 1024)
    guard file.dstart <= file.dend else { return }
    var dis = [UInt8](repeating: 0, count: file.count + 1)
    for line in file.dstart...file.dend {
      let found = min(matches[file.ids[line]] ?? 0, limit)
      dis[line] = found == 0 ? 0 : found >= limit ? 2 : 1
    }
    for line in file.dstart...file.dend {
      if dis[line] == 1
        || (dis[line] == 2 && !isMultimatchRun(dis, line, start: file.dstart, end: file.dend))
      {
        file.rindex.append(line)
        file.reff.append(file.ids[line])
      } else {
        file.mark(line, true)
      }
    }
  }

  /// Whether the multi-match line `i` sits in a run of mostly unmatched lines (xdiff's
  /// `xdl_clean_mmatch`), and so is discarded too.
  private static func isMultimatchRun(_ dis: [UInt8], _ i: Int, start: Int, end: Int) -> Bool {
    let window = 100
    let start = i - start > window ? i - window : start
    let end = end - i > window ? i + window : end
    var before = 0
    var multiBefore = 1
    var r = 1
    while i - r >= start {
      if dis[i - r] == 0 {
        before += 1
      } else if dis[i - r] == 2 {
        multiBefore += 1
      } else {
        break
      }
      r += 1
    }
    if before == 0 { return false }
    var after = 0
    var multiAfter = 1
    r = 1
    while i + r <= end {
      if dis[i + r] == 0 {
        after += 1
      } else if dis[i + r] == 2 {
        multiAfter += 1
      } else {
        break
      }
      r += 1
    }
    if after == 0 { return false }
    let unmatched = after + before
    let multi = multiAfter + multiBefore
    return multi * 4 < multi + unmatched
  }
}
