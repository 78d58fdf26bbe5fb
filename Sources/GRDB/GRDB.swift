// DatabaseKit under GRDB's name, for code written against GRDB: with this
// module, `import GRDB` compiles unchanged, and so do the qualified names
// (`GRDB.Database`, `GRDB.Column`) that an application with a `Database`
// type of its own writes. Everything comes from DatabaseKit.
@_exported import DatabaseKit
