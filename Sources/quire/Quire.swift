import ArgumentParser

/// The `quire` command: the Quire app, documents, sync and sharing, and the sync server.
@main
struct QuireCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quire",
    abstract: "Document-based apps for Swift on Linux, with a drive that syncs them.",
    discussion: """
      Quire is Apple's document architecture for Linux: packages saved crash-safely, documents \
      that save themselves, coordination between processes, live queries, and a document browser \
      (the Quire app, the default command). Quire Sync keeps a drive in step across devices \
      through a server anyone can run.
      """,
    groupedSubcommands: [
      CommandGroup(
        name: "The app",
        subcommands: [App.self, Open.self, InstallDesktop.self, UninstallDesktop.self]),
      CommandGroup(
        name: "Documents",
        subcommands: [
          New.self, Show.self, Edit.self, Thumbnail.self, Info.self, Export.self, Import.self,
          Types.self, Watch.self, List.self, Tag.self, MakeBookmark.self, Resolve.self,
          Recent.self, Versions.self, Merge.self,
        ]),
      CommandGroup(
        name: "Sync and sharing",
        subcommands: [Sync.self, Share.self, Unshare.self, Shared.self]),
      CommandGroup(name: "The server", subcommands: [Server.self]),
    ],
    defaultSubcommand: App.self)
}
