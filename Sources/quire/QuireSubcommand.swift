import ArgumentParser
import Foundation
import Quire
import QuireApp
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A subcommand whose failures print one clear line on stderr and exit non-zero.
protocol QuireSubcommand: ParsableCommand {
  func execute() throws
}

extension QuireSubcommand {
  func run() throws {
    do {
      try execute()
    } catch let error as QuireError {
      fail(error.message)
    } catch let error as SyncError {
      fail(error.message)
    } catch let error as ExitCode {
      throw error
    } catch {
      fail("\(error)")
    }
  }

  private func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("quire: \(message)\n".utf8))
    Glibc.exit(1)
  }
}

/// A subcommand that works with documents on the main actor; failures print one line.
protocol QuireDocumentSubcommand: AsyncParsableCommand, Sendable {
  @MainActor func execute() async throws
}

extension QuireDocumentSubcommand {
  func run() async throws {
    do {
      try await execute()
    } catch let error as QuireError {
      FileHandle.standardError.write(Data("quire: \(error.message)\n".utf8))
      Glibc.exit(1)
    } catch let error as SyncError {
      FileHandle.standardError.write(Data("quire: \(error.message)\n".utf8))
      Glibc.exit(1)
    }
  }
}

/// The type declarations options every command that resolves types shares.
struct TypeOptions: ParsableArguments {
  @Option(
    name: .customLong("declarations"),
    help: "A type declarations file (JSON or plist with Info.plist keys) to add; repeatable.")
  var declarationFiles: [String] = []

  /// The system types, Quire's sample document types, the files named with --declarations, and
  /// those in $QUIRE_DECLARATIONS (colon-separated paths).
  func registry() throws -> TypeRegistry {
    let registry = TypeRegistry()
    try registry.register(SampleTypes.declarations)
    let fromEnvironment =
      ProcessInfo.processInfo.environment["QUIRE_DECLARATIONS"]?
      .split(separator: ":").map(String.init) ?? []
    for file in fromEnvironment + declarationFiles {
      try registry.register(TypeDeclarations(contentsOf: URL(fileURLWithPath: file)))
    }
    return registry
  }
}

/// Byte counts for people: `12.3 KB`.
func formatBytes(_ bytes: Int64) -> String {
  let units = ["bytes", "KB", "MB", "GB", "TB"]
  var value = Double(bytes)
  var unit = 0
  while value >= 1000 && unit < units.count - 1 {
    value /= 1000
    unit += 1
  }
  return unit == 0 ? "\(bytes) bytes" : String(format: "%.1f %@", value, units[unit])
}
