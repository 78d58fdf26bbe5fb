#ifndef DATABASEKIT_SQLITE_SHIM_H
#define DATABASEKIT_SQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro that casts -1 to a function pointer: Swift cannot
// import it, so the binds that need SQLite to copy their buffer live here.

static inline int dbkit_bind_text_transient(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

static inline int dbkit_bind_blob_transient(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}

static inline int dbkit_result_text_transient(sqlite3_context *context, const char *text, int length) {
    sqlite3_result_text(context, text, length, SQLITE_TRANSIENT);
    return SQLITE_OK;
}

static inline void dbkit_result_blob_transient(sqlite3_context *context, const void *bytes, int length) {
    sqlite3_result_blob(context, bytes, length, SQLITE_TRANSIENT);
}

#endif
