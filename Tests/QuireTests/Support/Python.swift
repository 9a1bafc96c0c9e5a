import Foundation
import Testing

/// Runs Python 3 (a real peer for ZIP interop) with a script and arguments.
enum Python {
  static let executable = Executables.which("python3")
  /// Whether the interop tests can run; when not, they are skipped with this reason shown.
  static let isAvailable = executable != nil
  static let missing: Comment =
    "python3 is not installed: it writes the archives these tests import"

  @discardableResult
  static func run(_ script: String, _ arguments: [String]) throws -> String {
    let python = try #require(executable, "python3 is needed for the ZIP interop tests")
    let output = try Executables.runCommand(python, ["-c", script] + arguments)
    try #require(output.status == 0, "python failed: \(output.stderr)")
    return output.stdout
  }

  /// Writes a ZIP at `path` from `entries`: (name, kind, data) with kind "file", "dir" or "link".
  static func makeZip(_ path: String, _ entries: [(String, String, String)], compress: Bool = true)
    throws
  {
    let spec = entries.map { "\($0.0)\u{1}\($0.1)\u{1}\($0.2)" }.joined(separator: "\u{2}")
    try run(
      """
      import sys, zipfile, warnings
      warnings.simplefilter("ignore")
      path, spec, compress = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
      with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
          for item in spec.split("\\x02"):
              name, kind, data = item.split("\\x01")
              info = zipfile.ZipInfo(name, (2024, 5, 6, 7, 8, 10))
              info.create_system = 3
              if kind == "dir":
                  info.external_attr = (0o40755 << 16) | 0x10
              elif kind == "link":
                  info.external_attr = 0o120777 << 16
              else:
                  info.external_attr = 0o100644 << 16
              if kind == "zeros":
                  data = "\\0" * int(data)
              z.writestr(info, data, zipfile.ZIP_DEFLATED if compress and kind in ("file", "zeros") else zipfile.ZIP_STORED)
      """, [path, spec, compress ? "1" : "0"])
  }
}
