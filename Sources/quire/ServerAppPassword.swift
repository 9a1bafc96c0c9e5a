import ArgumentParser
import Foundation

/// `quire server app-password NAME [--label LABEL]`.
struct AppPassword: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "app-password",
    abstract: "Make a password for a WebDAV client (a file manager, rclone) of an account.",
    discussion: """
      The client signs in to http(s)://HOST:PORT/dav/ with the account's name and this \
      password, never the account's own. The password is printed once, alone on the last line. \
      It is listed by `quire server devices NAME` and revoked with `quire server revoke ID`.
      """)

  @OptionGroup var data: ServerDataOption
  @Argument(help: "The account name.") var name: String
  @Option(help: "What it is for, shown in the list of devices.") var label = "WebDAV"

  func execute() throws {
    let answer = try data.store().accounts.addAppPassword(user: name, label: label)
    print("App password \(answer.device) for \(name) (\(label)); it is not shown again:")
    print(answer.token)
  }
}
