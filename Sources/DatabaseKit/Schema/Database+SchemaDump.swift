extension Database {
    /// The SQL of the schema: every table, index, view and trigger, one
    /// statement per line, grouped by table (`sqlite_` internal objects
    /// excluded). Two databases with the same schema dump the same text.
    ///
    /// The [shadow tables](https://www.sqlite.org/vtab.html#xshadowname) of
    /// virtual tables (FTS5's `docs_data`, `docs_idx`...) are left out: their
    /// `CREATE VIRTUAL TABLE` creates them, so the text replays into an empty
    /// database.
    ///
    /// ```swift
    /// print(try db.schemaSQL())
    /// // CREATE TABLE "player" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL);
    /// // CREATE INDEX "player_on_name" ON "player"("name");
    /// ```
    public func schemaSQL() throws -> String {
        let statements = try String.fetchAll(
            self,
            sql: """
                SELECT sql || ';' FROM sqlite_master
                WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
                    AND name NOT IN (SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow')
                ORDER BY tbl_name COLLATE NOCASE,
                    CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END,
                    name COLLATE NOCASE
                """)
        return statements.map { $0 + "\n" }.joined()
    }
}
