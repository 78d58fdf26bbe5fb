// GRDB names that DatabaseKit does not have yet: each is declared
// unavailable, so that GRDB code gets a compiler error that says why and
// where to look, rather than "cannot find 'ValueObservation' in scope".
// Compatibility.md lists them. The bodies can never run (the compiler refuses
// every call); they return a value of the type rather than trap.

extension TableRecord {
    @available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): use MATCH in SQL")
    public static func matching<P>(_ pattern: P?) -> QueryInterfaceRequest<Self> { all() }
}

extension QueryInterfaceRequest {
    @available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): use MATCH in SQL")
    public func matching<P>(_ pattern: P?) -> Self { self }
}

// MARK: - Full-text search, JSON columns

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE ... USING fts5 in SQL")
public struct FTS3 {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE ... USING fts4 in SQL")
public struct FTS4 {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE ... USING fts5 in SQL")
public struct FTS5 {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): write the MATCH pattern in SQL")
public struct FTS3Pattern {}

@available(*, unavailable, message: "full-text search is not in DatabaseKit (see Compatibility.md): write the MATCH pattern in SQL")
public struct FTS5Pattern {}

@available(*, unavailable, message: "virtual table modules are not in DatabaseKit (see Compatibility.md): CREATE VIRTUAL TABLE in SQL")
public protocol VirtualTableModule {}

@available(*, unavailable, message: "JSONColumn is not in DatabaseKit (see Compatibility.md): use SQLite's json functions in SQL")
public struct JSONColumn {}
