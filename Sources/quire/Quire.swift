import ArgumentParser

/// The `quire` command: document packages, types and archives from the shell.
@main
struct QuireCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quire",
    abstract: "Document packages, types and portable archives for Swift on Linux.",
    discussion: """
      A package is a folder that behaves as one document (Report.mydoc/ holding image.png and \
      text.txt). Quire creates them, saves them crash-safely, and moves them as single ZIP files.
      """,
    subcommands: [
      New.self, Show.self, Edit.self, Thumbnail.self, Info.self, Export.self, Import.self,
      Types.self, Watch.self, List.self, Tag.self, MakeBookmark.self, Resolve.self, Recent.self,
      Versions.self, Merge.self, Share.self, Unshare.self, Shared.self,
      App.self, Open.self, InstallDesktop.self, UninstallDesktop.self, Server.self, Sync.self,
    ],
    defaultSubcommand: App.self)
}
