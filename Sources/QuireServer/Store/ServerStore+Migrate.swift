import Foundation
import QuireSyncProtocol

extension ServerStore {
  /// The tables in the order they are copied, with their columns.
  private static var tables: [(name: String, columns: [String])] {
    ServerSchema.aggregates.flatMap { $0.columns }
  }

  /// Copies every row of this store's metadata into the empty PostgreSQL database at `target`
  /// in one transaction (all or nothing), keeping every id, revision and journal sequence, so
  /// devices carry on from their cursors; the blob storage setting comes along. Chunk bytes stay
  /// where they are: start the PostgreSQL server with the same `--data` (or the same bucket).
  ///
  /// Stop the embedded server first: a commit made during the copy would not be in it.
  /// Returns how many rows were copied.
  public func migrate(to target: URL) throws(SyncError) -> Int {
    let destination: PostgresMetadata
    do {
      destination = try PostgresMetadata(url: target)
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable,
        "Could not open the PostgreSQL database \(PostgresMetadata.redacted(target)): \(String(reflecting: error)).",
        cause: error)
    }
    do {
      let copied = try database.read { source in
        try destination.write { target in
          let existing = try target.value(Int.self, "SELECT count(*) FROM users") ?? 0
          guard existing == 0 else {
            throw SyncError(
              .alreadyExists,
              "The PostgreSQL database already holds \(existing) accounts; migrate into an empty database."
            )
          }
          return try Self.copy(from: source, to: target)
        }
      }
      if let blobs = try database.setting("blobs") {
        try destination.setSetting("blobs", blobs)
      }
      return copied
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable,
        "The migration to \(PostgresMetadata.redacted(target)) failed, and nothing was stored there: \(String(reflecting: error)).",
        cause: error)
    }
  }

  private static func copy(from source: any SQLSession, to target: any SQLSession) throws -> Int {
    var count = 0
    for table in tables {
      let columns = table.columns.joined(separator: ", ")
      let marks = Array(repeating: "?", count: table.columns.count).joined(separator: ", ")
      let insert = "INSERT INTO \(table.name)(\(columns)) VALUES (\(marks))"
      try source.forEach("SELECT \(columns) FROM \(table.name)", []) { row in
        try target.execute(insert, try table.columns.map { try row.value($0) })
        count += 1
      }
    }
    // New rows continue after the copied ids.
    for (table, column) in [
      ("users", "id"), ("containers", "id"), ("revisions", "id"), ("journal", "sequence"),
    ] {
      try target.execute(
        "SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), COALESCE(max(\(column)), 0) + 1, false) FROM \(table)"
      )
    }
    return count
  }
}
