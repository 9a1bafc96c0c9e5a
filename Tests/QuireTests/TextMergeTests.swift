import Foundation
import Quire
import Testing

@Suite("Three-way text merge")
struct TextMergeTests {
  private func merge(_ base: String, _ mine: String, _ theirs: String) -> (String, Int) {
    let result = TextMerge(
      base: Array(base.utf8), mine: Array(mine.utf8), theirs: Array(theirs.utf8))
    return (String(decoding: result.text, as: UTF8.self), result.conflicts)
  }

  @Test("Changes to different lines both apply")
  func separateChanges() {
    let (text, conflicts) = merge("a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n")
    #expect(text == "A\nb\nc\nd\nE\n")
    #expect(conflicts == 0)
  }

  @Test("The same change on both sides is no conflict")
  func identicalChanges() {
    let (text, conflicts) = merge("a\nb\nc\n", "a\nB\nc\nd\n", "a\nB\nc\nd\n")
    #expect(text == "a\nB\nc\nd\n")
    #expect(conflicts == 0)
  }

  @Test("Changes to the same line conflict, narrowed to the lines that differ")
  func overlappingChanges() {
    let (text, conflicts) = merge("a\nb\nc\n", "a\nx\nb1\nc\n", "a\nx\nb2\nc\n")
    #expect(conflicts == 1)
    #expect(text == "a\nx\n<<<<<<< mine\nb1\n=======\nb2\n>>>>>>> theirs\nc\n")
  }

  @Test("Changes to adjacent lines conflict, as git's do")
  func adjacentChanges() {
    let (_, conflicts) = merge("a\nb\nc\n", "A\nb\nc\n", "a\nB\nc\n")
    #expect(conflicts == 1)
  }

  @Test("One side unchanged gives the other side, byte for byte")
  func oneSide() {
    #expect(merge("a\nb", "a\nb", "a\nb\nc").0 == "a\nb\nc")
    #expect(merge("a\n", "", "a\n").0 == "")
  }

  /// The same three inputs through `git merge-file`: where git merges cleanly, the result must
  /// be git's byte for byte; where it conflicts, the same conflicts. Inputs are drawn from a
  /// small vocabulary (repeated lines, blank lines, braces) so the diffs have real ambiguity.
  @Test("Agrees with git merge-file on random edits", .timeLimit(.minutes(4)))
  func agreesWithGit() throws {
    let clean = try compareWithGit(rounds: 400, lines: 30, edits: 4, seed: 0x5157_1E55)
    // Enough of the rounds merge cleanly for the comparison to mean something.
    #expect(clean > 100)
  }

  /// Long texts with hundreds of edits take xdiff past its edit-cost heuristics (over 256).
  @Test("Agrees with git merge-file on long, heavily edited texts", .timeLimit(.minutes(2)))
  func agreesWithGitOnLongTexts() throws {
    _ = try compareWithGit(rounds: 6, lines: 3000, edits: 400, seed: 0x10_C0FFEE)
  }

  private func compareWithGit(rounds: Int, lines: Int, edits: Int, seed: UInt64) throws -> Int {
    let git = try #require(Executables.which("git"), "git is needed (scripts/test installs it)")
    let folder = try TemporaryDirectory()
    var random = SplitMix(seed: seed)
    var clean = 0
    for round in 0..<rounds {
      let base = RandomText.lines(&random, count: random.below(lines))
      let mine = RandomText.edit(base, &random, edits: edits)
      let theirs = RandomText.edit(base, &random, edits: edits)
      let files = ["base", "mine", "theirs"].map { folder.file("\(round)-\($0)") }
      for (file, lines) in zip(files, [base, mine, theirs]) {
        try Data(RandomText.join(lines, &random).utf8).write(to: file)
      }
      let texts = try files.map { try [UInt8](Data(contentsOf: $0)) }
      let ours = TextMerge(base: texts[0], mine: texts[1], theirs: texts[2])
      let git = try Executables.runCommand(
        git,
        ["merge-file", "-p", "-L", "mine", "-L", "base", "-L", "theirs"]
          + [files[1].path, files[0].path, files[2].path])
      let ourText = String(decoding: ours.text, as: UTF8.self)
      #expect(
        ourText == git.stdout && ours.conflicts == Int(git.status),
        "seed \(seed) round \(round): git \(git.status) conflicts, ours \(ours.conflicts); inputs in \(folder.path)"
      )
      if git.status == 0 { clean += 1 }
    }
    return clean
  }
}

/// A small deterministic random generator, so a failing round can be replayed.
struct SplitMix {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
}

/// Random text edits for merge tests.
enum RandomText {
  static let vocabulary = ["", "{", "}", "a", "b", "c", "return x", "  let y = 1", "// note"]

  static func lines(_ random: inout SplitMix, count: Int) -> [String] {
    (0..<count).map { _ in
      random.below(3) == 0
        ? "line \(random.below(1000))" : vocabulary[random.below(vocabulary.count)]
    }
  }

  /// A few insertions, deletions and replacements at random places.
  static func edit(_ lines: [String], _ random: inout SplitMix, edits: Int) -> [String] {
    var result = lines
    for _ in 0..<random.below(edits) {
      let at = random.below(result.count + 1)
      switch random.below(3) {
      case 0:
        result.insert(contentsOf: Self.lines(&random, count: 1 + random.below(3)), at: at)
      case 1 where at < result.count:
        result.removeSubrange(at..<min(result.count, at + 1 + random.below(2)))
      default:
        if at < result.count { result[at] = Self.lines(&random, count: 1)[0] }
      }
    }
    return result
  }

  /// The lines joined, usually with a final newline.
  static func join(_ lines: [String], _ random: inout SplitMix) -> String {
    let text = lines.joined(separator: "\n")
    return lines.isEmpty || random.below(5) == 0 ? text : text + "\n"
  }
}
