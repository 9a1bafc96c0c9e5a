import ArgumentParser
import Foundation
import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// `quire merge BASE MINE THEIRS [--output PATH]`: the sync server's merge, on two text files or
/// two packages.
struct Merge: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Merge two changed copies of a document (text files or packages) against their base.",
    discussion: """
      Member by member, as the sync server merges concurrent edits: a change on one side is \
      taken, the same change on both is fine, a change beats a removal, and text both sides \
      changed is merged line by line as git merge-file does. What still conflicts keeps MINE's \
      contents (text gets git's conflict markers), is listed, and makes the exit status \
      non-zero (the number of conflicts). The result replaces MINE unless --output is given.
      """)

  @Argument(help: "The common ancestor.") var base: String
  @Argument(help: "Your copy (replaced by the result unless --output is given).") var mine: String
  @Argument(help: "Their copy.") var theirs: String
  @Option(help: "Where to write the result (default: MINE).") var output: String?

  func execute() throws {
    let urls = [base, mine, theirs].map { URL(fileURLWithPath: $0).standardizedFileURL }
    let merge = try PackageMerge(base: urls[0], mine: urls[1], theirs: urls[2])
    try merge.write(to: output.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? urls[1])
    for (path, resolution) in merge.changes {
      let name = path.isEmpty ? urls[1].lastPathComponent : path
      let note =
        resolution == .conflict ? "  (changed on both sides: mine kept)" : ""
      print(
        "\(resolution.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))\(name)\(note)")
    }
    let conflicts = merge.conflicts.count
    if conflicts > 0 {
      FileHandle.standardError.write(
        Data("quire: \(conflicts) conflict\(conflicts == 1 ? "" : "s") left in the merge.\n".utf8))
      throw ExitCode(Int32(min(conflicts, 127)))
    }
  }
}
