extension TextMerge {
  /// Gives each distinct line (its bytes, newline included) one integer identity, shared by the
  /// three inputs of a merge.
  package struct LineInterner {
    private var identities: [ArraySlice<UInt8>: Int] = [:]

    /// A text cut into lines: each range holds one line and its newline (the last may lack one).
    package struct Lines {
      let bytes: [UInt8]
      let ranges: [Range<Int>]
      let ids: [Int]
    }

    package mutating func lines(of bytes: [UInt8]) -> Lines {
      var ranges: [Range<Int>] = []
      var ids: [Int] = []
      var start = 0
      let newline = UInt8(ascii: "\n")
      while start < bytes.count {
        let end = (bytes[start...].firstIndex(of: newline)).map { $0 + 1 } ?? bytes.count
        let line = bytes[start..<end]
        let id: Int
        if let known = identities[line] {
          id = known
        } else {
          id = identities.count
          identities[line] = id
        }
        ranges.append(start..<end)
        ids.append(id)
        start = end
      }
      return Lines(bytes: bytes, ranges: ranges, ids: ids)
    }
  }

  /// Joins conflicts separated by at most three lines, or by lines without a letter or digit,
  /// into one (git's "zealous-alnum" level): easier to read than many small ones.
  package static func joinConflicts(_ hunks: inout [Hunk], mine: LineInterner.Lines) {
    var index = 0
    while index + 1 < hunks.count {
      let current = hunks[index]
      let next = hunks[index + 1]
      let begin = current.i1 + current.chg1
      let end = next.i1
      if current.mode != .conflict || next.mode != .conflict
        || (end - begin > 3 && containsAlphanumeric(mine, begin..<end))
      {
        index += 1
      } else {
        hunks[index].chg1 = next.i1 + next.chg1 - current.i1
        hunks[index].chg2 = next.i2 + next.chg2 - current.i2
        hunks.remove(at: index + 1)
      }
    }
  }

  private static func containsAlphanumeric(_ lines: LineInterner.Lines, _ range: Range<Int>)
    -> Bool
  {
    lines.ranges[range].contains { line in
      lines.bytes[line].contains { byte in
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
          || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
          || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      }
    }
  }

  /// Writes the result: mine's lines, with theirs' changes in place and each conflict between
  /// markers.
  package static func fill(
    _ hunks: [Hunk], mine: LineInterner.Lines, theirs: LineInterner.Lines,
    labels: (mine: String, theirs: String)
  ) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(max(mine.bytes.count, theirs.bytes.count))
    var i = 0
    for hunk in hunks {
      switch hunk.mode {
      case .conflict:
        copy(mine, i..<hunk.i1, to: &out)
        out += Array(("<<<<<<< " + labels.mine + "\n").utf8)
        copy(mine, hunk.i1..<hunk.i1 + hunk.chg1, to: &out, endingLine: true)
        out += Array("=======\n".utf8)
        copy(theirs, hunk.i2..<hunk.i2 + hunk.chg2, to: &out, endingLine: true)
        out += Array((">>>>>>> " + labels.theirs + "\n").utf8)
      case .mine:
        copy(mine, i..<hunk.i1 + hunk.chg1, to: &out)
      case .theirs:
        let start = hunk.i2 - hunk.i1 + i
        copy(theirs, start..<start + hunk.i1 + hunk.chg2 - i, to: &out)
      case .identical:
        continue
      }
      i = hunk.i1 + hunk.chg1
    }
    copy(mine, i..<mine.ranges.count, to: &out)
    return out
  }

  private static func copy(
    _ lines: LineInterner.Lines, _ range: Range<Int>, to out: inout [UInt8],
    endingLine: Bool = false
  ) {
    guard !range.isEmpty else { return }
    let bytes =
      lines.ranges[range.lowerBound]
      .lowerBound..<lines.ranges[range.upperBound - 1]
      .upperBound
    out += lines.bytes[bytes]
    if endingLine, lines.bytes[bytes.upperBound - 1] != UInt8(ascii: "\n") {
      out.append(UInt8(ascii: "\n"))
    }
  }
}
