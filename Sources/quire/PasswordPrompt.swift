import Foundation
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a password: from the terminal without echo, or the first line of standard input when it
/// is not a terminal (for scripts: `echo "$PASSWORD" | quire server add-user NAME`).
enum PasswordPrompt {
  static func read(_ prompt: String) throws(SyncError) -> String {
    let isTerminal = isatty(STDIN_FILENO) == 1
    var saved = termios()
    if isTerminal {
      FileHandle.standardError.write(Data(prompt.utf8))
      tcgetattr(STDIN_FILENO, &saved)
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
    }
    let line = readLine(strippingNewline: true)
    if isTerminal {
      tcsetattr(STDIN_FILENO, TCSANOW, &saved)
      FileHandle.standardError.write(Data("\n".utf8))
    }
    guard let line, !line.isEmpty else {
      throw SyncError(.malformed, "No password was given: type one, or pipe it on standard input.")
    }
    return line
  }
}
