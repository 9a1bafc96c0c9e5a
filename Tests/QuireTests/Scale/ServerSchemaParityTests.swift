import Foundation
import Testing

@testable import QuireServer

/// The server's schema is written twice, once per engine (`ServerSchema` for SQLite,
/// `PostgresSchema` for PostgreSQL). Read back from two real databases, both must have the
/// same tables, columns (type, nullability, default), keys, unique constraints, foreign keys and
/// indexes (with their predicates), so a server moved from one to the other behaves the same.
@Suite("Server schema parity between SQLite and PostgreSQL", .timeLimit(.minutes(3)))
struct ServerSchemaParityTests {
  /// One table's shape, in words both engines share.
  struct Table: Equatable, CustomStringConvertible {
    var columns: [String: String] = [:]
    var primaryKey: [String] = []
    var unique: Set<[String]> = []
    var foreignKeys: Set<String> = []
    var indexes: [String: String] = [:]

    var description: String {
      "columns \(columns.sorted { $0.key < $1.key }), key \(primaryKey), unique \(unique.sorted { "\($0)" < "\($1)" }), references \(foreignKeys.sorted()), indexes \(indexes.sorted { $0.key < $1.key })"
    }
  }

  /// A type as both engines understand it.
  static func type(_ declared: String) -> String {
    switch declared.lowercased() {
    case "integer", "bigint": "integer"
    case "real", "double precision": "real"
    case "blob", "bytea": "blob"
    default: declared.lowercased()
    }
  }

  /// An index's columns and predicate, with case, spaces and parentheses dropped (PostgreSQL
  /// prints `WHERE ((a = 1) AND (b = 0))` for SQLite's `WHERE a = 1 AND b = 0`).
  static func normalised(_ text: String) -> String {
    // PostgreSQL's byte-order collation is SQLite's default: the same index.
    text.lowercased().replacingOccurrences(of: #" collate "c""#, with: "").filter {
      !" ()\"".contains($0)
    }
  }

  static func sqliteSchema(_ store: ServerStore) throws -> [String: Table] {
    try store.backend.read { db in
      var tables: [String: Table] = [:]
      let names: [String] = try db.values(
        String.self,
        """
        SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
          AND name NOT LIKE 'grdb_%'
        """)
      for name in names {
        var table = Table()
        var key: [(Int64, String)] = []
        for column in try db.rows("SELECT * FROM pragma_table_info(?)", [name]) {
          let columnName = (try column["name"] as String).lowercased()
          let pk: Int64 = try column["pk"]
          let notNull = (try column["notnull"] as Int64) == 1 || pk > 0
          let defaultValue: String? = try? column["dflt_value"]
          table.columns[columnName] =
            "\(Self.type(try column["type"])) \(notNull ? "not null" : "null") default \(defaultValue ?? "none")"
          if pk > 0 { key.append((pk, columnName)) }
        }
        table.primaryKey = key.sorted { $0.0 < $1.0 }.map(\.1)
        for index in try db.rows("SELECT * FROM pragma_index_list(?)", [name]) {
          let indexName: String = try index["name"]
          let columns = try db.values(
            String.self, "SELECT name FROM pragma_index_info(?) ORDER BY seqno", [indexName]
          ).map { $0.lowercased() }
          switch try index["origin"] as String {
          case "pk": break
          case "u": table.unique.insert(columns)
          default:
            let sql =
              try db.value(
                String.self, "SELECT sql FROM sqlite_master WHERE name = ?", [indexName]) ?? ""
            let predicate = sql.range(of: " WHERE ").map { String(sql[$0.upperBound...]) } ?? ""
            table.indexes[indexName.lowercased()] = Self.normalised(
              columns.joined(separator: ",") + " where " + predicate)
          }
        }
        for reference in try db.rows("SELECT * FROM pragma_foreign_key_list(?)", [name]) {
          table.foreignKeys.insert(
            "\((try reference["from"] as String).lowercased()) → \(try reference["table"] as String).\(try reference["to"] as String)"
              .lowercased())
        }
        tables[name.lowercased()] = table
      }
      return tables
    }
  }

  static func postgresSchema(_ store: ServerStore) throws -> [String: Table] {
    try store.backend.read { db in
      var tables: [String: Table] = [:]
      let names = try db.values(
        String.self,
        """
        SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_name <> 'schema_version'
        """)
      for name in names {
        var table = Table()
        for column in try db.rows(
          """
          SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns
          WHERE table_schema = 'public' AND table_name = ?
          """, [name])
        {
          let defaultValue: String? = try? column["column_default"]
          table.columns[try column["column_name"]] =
            "\(Self.type(try column["data_type"])) \((try column["is_nullable"] as String) == "NO" ? "not null" : "null") default \(defaultValue ?? "none")"
        }
        let constraints = try db.rows(
          """
          SELECT tc.constraint_name, tc.constraint_type, kcu.column_name,
            ccu.table_name AS referenced_table, ccu.column_name AS referenced_column
          FROM information_schema.table_constraints tc
          JOIN information_schema.key_column_usage kcu
            ON kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name
          LEFT JOIN information_schema.constraint_column_usage ccu
            ON ccu.constraint_name = tc.constraint_name AND tc.constraint_type = 'FOREIGN KEY'
          WHERE tc.table_schema = 'public' AND tc.table_name = ?
          ORDER BY tc.constraint_name, kcu.ordinal_position
          """, [name])
        var unique: [String: [String]] = [:]
        for row in constraints {
          let column: String = try row["column_name"]
          switch try row["constraint_type"] as String {
          case "PRIMARY KEY": table.primaryKey.append(column)
          case "UNIQUE": unique[try row["constraint_name"], default: []].append(column)
          case "FOREIGN KEY":
            table.foreignKeys.insert(
              "\(column) → \(try row["referenced_table"] as String).\(try row["referenced_column"] as String)"
            )
          default: break
          }
        }
        table.unique = Set(unique.values)
        for index in try db.rows(
          "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = ?",
          [name])
        {
          let indexName: String = try index["indexname"]
          let definition: String = try index["indexdef"]
          // Indexes that back a key or a unique constraint are compared as those.
          guard !indexName.hasSuffix("_pkey"), !indexName.hasSuffix("_key"),
            let open = definition.firstIndex(of: "("),
            let close = definition[open...].firstIndex(of: ")")
          else { continue }
          let columns = definition[definition.index(after: open)..<close]
          let predicate =
            definition.range(of: " WHERE ").map { String(definition[$0.upperBound...]) } ?? ""
          table.indexes[indexName] = Self.normalised("\(columns) where \(predicate)")
        }
        tables[name] = table
      }
      return tables
    }
  }

  @Test("both engines have the same tables, columns, keys, constraints and indexes")
  func sameSchema() async throws {
    let folder = try TemporaryDirectory()
    let sqlite = try Self.sqliteSchema(try ServerStore(folder: folder.file("sqlite")))
    var postgres = try Self.postgresSchema(
      try ServerStore(
        folder: folder.file("postgres"), postgres: try await PostgresCluster.shared.database()))
    // The one difference by design: with SQLite, settings (where chunk bytes live) are files
    // beside the database, as they always were; replicas on PostgreSQL share no folder.
    #expect(postgres.removeValue(forKey: "settings")?.columns.keys.sorted() == ["key", "value"])
    #expect(sqlite.keys.sorted() == postgres.keys.sorted(), "the same tables")
    #expect(sqlite.count >= 11, "every table was read: \(sqlite.keys.sorted())")
    // Each part was read, not just found empty on both sides.
    #expect(sqlite["devices"]?.foreignKeys == ["account → users.id"])
    #expect(sqlite["items"]?.primaryKey == ["container", "item"])
    #expect(sqlite["users"]?.unique == [["name"]])
    #expect(sqlite["members"]?.indexes["memberslive"] == "container,item,pathwhereuntilisnull")
    for name in Set(sqlite.keys).intersection(postgres.keys).sorted() {
      #expect(
        sqlite[name] == postgres[name],
        "\(name): SQLite \(sqlite[name]!) | PostgreSQL \(postgres[name]!)")
    }
  }

  @Test("a commit's name-clash check searches the live-path index, not the whole container")
  func nameCheckUsesIndex() throws {
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    let plan = try store.backend.read { db in
      try db.rows(
        """
        EXPLAIN QUERY PLAN
        SELECT 1 FROM items WHERE container = ? AND path = ? AND deleted = 0 AND item != ?
        """, [Int64(1), "Documents/a.txt", "x"]
      ).map { try $0["detail"] as String }
    }
    // Searching the primary key (container=?) read every item of the container on every commit:
    // over half the server's time in a first sync of 10 000 files.
    #expect(plan.contains { $0.contains("itemsLiveByPath") }, "\(plan)")
  }
}
