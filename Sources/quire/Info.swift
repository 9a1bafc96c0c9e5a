import ArgumentParser
import Foundation
import Quire

/// `quire info PATH`: what a document is and holds.
struct Info: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a document's type, members and sizes, recovering an interrupted save first.")

  @Argument(help: "The document (a package or a file).") var path: String
  @Option(help: "List at most this many members (0: all).") var limit = 50
  @OptionGroup var types: TypeOptions

  func execute() throws {
    let url = URL(fileURLWithPath: path)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw QuireError(.notFound, "“\(url.path)” does not exist; check the path.", path: url.path)
    }
    // A coordinated read: a document open elsewhere saves its edits first, and no save of
    // another program is halfway done while the members are listed.
    let (recovery, wrapper) = try FileCoordinator().coordinate(readingItemAt: url) { url in
      let recovery: SaveRecovery =
        isDirectory.boolValue ? try SaveRecovery.recoverPackage(at: url) : .nothingToRecover
      let wrapper = try FileWrapper(url: url)
      return (recovery, wrapper)
    }
    let type = try types.registry().type(ofItemAt: url)
    var members: [(String, FileWrapper)] = []
    collect(wrapper, prefix: "", into: &members)
    let files = members.filter { $0.1.isRegularFile }
    let total = files.reduce(Int64(0)) { $0 + ($1.1.fileAttributes.size ?? 0) }

    print(url.lastPathComponent)
    let kind = wrapper.isDirectory ? (type?.isPackage == true ? "package" : "folder") : "file"
    print(
      "  type:     \(type.map { "\($0.identifier) (\($0.localizedDescription))" } ?? "unknown"), \(kind)"
    )
    if wrapper.isDirectory {
      let folders = members.count(where: { $0.1.isDirectory })
      let links = members.count(where: { $0.1.isSymbolicLink })
      print(
        "  members:  \(files.count) files, \(folders) folders, \(links) links, \(formatBytes(total))"
      )
    } else {
      print("  size:     \(formatBytes(total))")
    }
    print("  recovery: \(recovery)")
    let shown = limit == 0 ? members : Array(members.prefix(limit))
    let width = shown.map(\.0.count).max() ?? 0
    for (name, member) in shown {
      let detail =
        member.isDirectory
        ? "folder"
        : member.symbolicLinkDestination.map { "-> \($0)" }
          ?? formatBytes(member.fileAttributes.size ?? 0)
      print("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + detail)
    }
    if shown.count < members.count {
      print("  … and \(members.count - shown.count) more (--limit 0 lists all)")
    }
  }

  private func collect(
    _ wrapper: FileWrapper, prefix: String, into members: inout [(String, FileWrapper)]
  ) {
    guard let children = wrapper.fileWrappers else { return }
    for key in children.keys.sorted() {
      let child = children[key]!
      let name = prefix + key + (child.isDirectory ? "/" : "")
      members.append((name, child))
      collect(child, prefix: name, into: &members)
    }
  }
}
