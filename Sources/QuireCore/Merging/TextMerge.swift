/// A three-way merge of text, line by line, with `diff3` semantics: the changes each side made
/// to the common base are combined when they touch different lines, and what both sides changed
/// differently is a conflict.
///
/// It follows `git merge-file` exactly: the same diff, the same rule that changes touching the
/// same or adjacent lines conflict unless they are identical, the same narrowing of a conflict
/// to the lines that really differ. Wherever git reports no conflict, ``text`` is byte for byte
/// what git writes; where it reports conflicts, ``text`` carries git's conflict markers. The
/// server merges concurrent edits of text documents and text members of packages with it, and
/// `quire merge` runs it on files.
///
/// ```swift
/// let merge = TextMerge(base: base, mine: mine, theirs: theirs)
/// if merge.isClean { try Data(merge.text).write(to: url) }
/// ```
///
/// The cost is O((N + M) · D) for D changed lines, in memory proportional to the three inputs.
public struct TextMerge: Sendable {
  /// The merged text; where a conflict remains, both sides between `<<<<<<<`, `=======` and
  /// `>>>>>>>` lines, as git writes them.
  public let text: [UInt8]
  /// How many conflicting regions remain (0: the merge is clean).
  public let conflicts: Int
  /// How many regions came from `theirs` (the changes of `mine` are already in place).
  public let changesFromTheirs: Int
  /// How many regions came from `mine`.
  public let changesFromMine: Int

  /// Whether everything merged without a conflict.
  public var isClean: Bool { conflicts == 0 }

  /// Merges what `mine` and `theirs` each changed in `base`; `labels` name the sides in
  /// conflict markers.
  public init(
    base: [UInt8], mine: [UInt8], theirs: [UInt8],
    labels: (mine: String, theirs: String) = ("mine", "theirs")
  ) {
    var interner = LineInterner()
    let baseLines = interner.lines(of: base)
    let mineLines = interner.lines(of: mine)
    let theirLines = interner.lines(of: theirs)
    let toMine = LineDiff(baseLines.ids, mineLines.ids).changes
    let toTheirs = LineDiff(baseLines.ids, theirLines.ids).changes
    if toMine.isEmpty {
      self.init(text: theirs, conflicts: 0, fromTheirs: toTheirs.count, fromMine: 0)
      return
    }
    if toTheirs.isEmpty {
      self.init(text: mine, conflicts: 0, fromTheirs: 0, fromMine: toMine.count)
      return
    }
    var hunks = Self.combine(
      toMine, toTheirs, mine: mineLines.ids, theirs: theirLines.ids,
      baseCount: baseLines.ids.count)
    Self.refine(&hunks, mine: mineLines.ids, theirs: theirLines.ids)
    Self.joinConflicts(&hunks, mine: mineLines)
    let text = Self.fill(hunks, mine: mineLines, theirs: theirLines, labels: labels)
    self.init(
      text: text, conflicts: hunks.filter { $0.mode == .conflict }.count,
      fromTheirs: hunks.filter { $0.mode == .theirs }.count,
      fromMine: hunks.filter { $0.mode == .mine }.count)
  }

  /// Whether a file named `name` holding `bytes` merges line by line: its type conforms to
  /// `public.plain-text`, or, its type unknown, its first 8000 bytes hold no NUL (git's test for
  /// a binary file).
  public static func isText(name: String, bytes: [UInt8], types: TypeRegistry) -> Bool {
    declaredText(name: name, types: types) ?? !bytes.prefix(8000).contains(0)
  }

  /// Whether the type of a file named `name` conforms to `public.plain-text`; nil when `types`
  /// knows no type for its extension.
  public static func declaredText(name: String, types: TypeRegistry) -> Bool? {
    guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/"),
      let type = types.type(forFilenameExtension: String(name[name.index(after: dot)...]))
    else { return nil }
    return type.conforms(to: "public.plain-text")
  }

  private init(text: [UInt8], conflicts: Int, fromTheirs: Int, fromMine: Int) {
    self.text = text
    self.conflicts = conflicts
    self.changesFromTheirs = fromTheirs
    self.changesFromMine = fromMine
  }
}

extension TextMerge {
  /// A region of the merge. `i0`/`chg0` are in the base, `i1`/`chg1` in mine, `i2`/`chg2` in
  /// theirs.
  package struct Hunk {
    package enum Mode { case conflict, mine, theirs, identical }
    var mode: Mode
    var i0: Int
    var chg0: Int
    var i1: Int
    var chg1: Int
    var i2: Int
    var chg2: Int
  }

  /// Walks both change lists in base order: a change clear of the other side's is taken; changes
  /// that overlap or touch conflict unless identical (xdiff's `xdl_do_merge`).
  package static func combine(
    _ first: [LineDiff.Change], _ second: [LineDiff.Change], mine: [Int], theirs: [Int],
    baseCount: Int
  ) -> [Hunk] {
    var hunks: [Hunk] = []
    var a = 0
    var b = 0
    while a < first.count, b < second.count {
      let x = first[a]
      let y = second[b]
      if x.i1 + x.chg1 < y.i1 {
        append(
          &hunks,
          Hunk(
            mode: .mine, i0: x.i1, chg0: x.chg1, i1: x.i2, chg1: x.chg2,
            i2: y.i2 - y.i1 + x.i1, chg2: x.chg1))
        a += 1
        continue
      }
      if y.i1 + y.chg1 < x.i1 {
        append(
          &hunks,
          Hunk(
            mode: .theirs, i0: y.i1, chg0: y.chg1, i1: x.i2 - x.i1 + y.i1, chg1: y.chg1,
            i2: y.i2, chg2: y.chg2))
        b += 1
        continue
      }
      let identical =
        x.i1 == y.i1 && x.chg1 == y.chg1 && x.chg2 == y.chg2
        && mine[x.i2..<x.i2 + x.chg2] == theirs[y.i2..<y.i2 + y.chg2]
      if !identical {
        let off = x.i1 - y.i1
        let ffo = off + x.chg1 - y.chg1
        var i0 = x.i1
        var i1 = x.i2
        var i2 = y.i2
        if off > 0 {
          i0 -= off
          i1 -= off
        } else {
          i2 += off
        }
        var chg0 = x.i1 + x.chg1 - i0
        var chg1 = x.i2 + x.chg2 - i1
        var chg2 = y.i2 + y.chg2 - i2
        if ffo < 0 {
          chg0 -= ffo
          chg1 -= ffo
        } else {
          chg2 += ffo
        }
        append(
          &hunks, Hunk(mode: .conflict, i0: i0, chg0: chg0, i1: i1, chg1: chg1, i2: i2, chg2: chg2))
      }
      let end1 = x.i1 + x.chg1
      let end2 = y.i1 + y.chg1
      if end1 >= end2 { b += 1 }
      if end2 >= end1 { a += 1 }
    }
    for x in first[a...] {
      append(
        &hunks,
        Hunk(
          mode: .mine, i0: x.i1, chg0: x.chg1, i1: x.i2, chg1: x.chg2,
          i2: x.i1 + theirs.count - baseCount, chg2: x.chg1))
    }
    for y in second[b...] {
      append(
        &hunks,
        Hunk(
          mode: .theirs, i0: y.i1, chg0: y.chg1, i1: y.i1 + mine.count - baseCount, chg1: y.chg1,
          i2: y.i2, chg2: y.chg2))
    }
    return hunks
  }

  /// Adds `hunk`, folding it into the previous one when they touch (a conflict if their sides
  /// differ).
  private static func append(_ hunks: inout [Hunk], _ hunk: Hunk) {
    if var last = hunks.last, hunk.i1 <= last.i1 + last.chg1 || hunk.i2 <= last.i2 + last.chg2 {
      if hunk.mode != last.mode { last.mode = .conflict }
      last.chg0 = hunk.i0 + hunk.chg0 - last.i0
      last.chg1 = hunk.i1 + hunk.chg1 - last.i1
      last.chg2 = hunk.i2 + hunk.chg2 - last.i2
      hunks[hunks.count - 1] = last
    } else {
      hunks.append(hunk)
    }
  }

  /// Narrows each conflict to the lines where the two sides really differ (git's "zealous"
  /// level); a conflict whose sides are equal is no conflict.
  package static func refine(_ hunks: inout [Hunk], mine: [Int], theirs: [Int]) {
    var refined: [Hunk] = []
    for hunk in hunks {
      guard hunk.mode == .conflict, hunk.chg1 > 0, hunk.chg2 > 0 else {
        refined.append(hunk)
        continue
      }
      let changes = LineDiff(
        Array(mine[hunk.i1..<hunk.i1 + hunk.chg1]), Array(theirs[hunk.i2..<hunk.i2 + hunk.chg2])
      ).changes
      if changes.isEmpty {
        var same = hunk
        same.mode = .identical
        refined.append(same)
        continue
      }
      for change in changes {
        var part = hunk
        part.i1 = hunk.i1 + change.i1
        part.chg1 = change.chg1
        part.i2 = hunk.i2 + change.i2
        part.chg2 = change.chg2
        refined.append(part)
      }
    }
    hunks = refined
  }
}
