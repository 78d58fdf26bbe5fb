#ifndef DATABASEKIT_SQLITE_SHIM_H
#define DATABASEKIT_SQLITE_SHIM_H

#include <sqlite3.h>
#include <dlfcn.h>
#include <stddef.h>

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

// sqlite3_config and sqlite3_db_config are variadic: Swift cannot call them.

typedef void (*dbkit_log_callback)(void *, int, const char *);

/// Installs SQLite's error log callback; SQLite accepts it only before it is
/// initialized (the first connection).
static inline int dbkit_config_log(dbkit_log_callback callback, void *context) {
    return sqlite3_config(SQLITE_CONFIG_LOG, callback, context);
}

/// `sqlite3_db_config` with an integer setting, such as SQLITE_DBCONFIG_DQS_DML.
static inline int dbkit_db_config_int(sqlite3 *db, int option, int value) {
    return sqlite3_db_config(db, option, value, (int *)0);
}

// The pre-update hook only exists in an SQLite compiled with
// SQLITE_ENABLE_PREUPDATE_HOOK (Debian's is), and <sqlite3.h> only declares it
// then: its functions are looked up at run time, so that DatabaseKit links
// against any SQLite, and reports changes before they happen where it can.

typedef void (*dbkit_preupdate_callback)(void *, sqlite3 *, int, char const *, char const *, sqlite3_int64, sqlite3_int64);

static inline void *dbkit_sqlite_symbol(const char *name) {
    // The global scope (the program and the libraries it loaded, SQLite's
    // among them), opened once; atomics keep two first calls race-free.
    static void *global = NULL;
    void *handle = __atomic_load_n(&global, __ATOMIC_ACQUIRE);
    if (handle == NULL) {
        handle = dlopen(NULL, RTLD_LAZY);
        __atomic_store_n(&global, handle, __ATOMIC_RELEASE);
    }
    return handle ? dlsym(handle, name) : NULL;
}

/// Installs `callback` as the pre-update hook (removes the hook when it is
/// NULL); returns 0 when this SQLite has no pre-update hook.
static inline int dbkit_preupdate_hook(sqlite3 *db, dbkit_preupdate_callback callback, void *context) {
    void *(*function)(sqlite3 *, dbkit_preupdate_callback, void *) =
        (void *(*)(sqlite3 *, dbkit_preupdate_callback, void *))dbkit_sqlite_symbol("sqlite3_preupdate_hook");
    if (function == NULL) return 0;
    function(db, callback, context);
    return 1;
}

/// True when SQLite has the pre-update hook (SQLITE_ENABLE_PREUPDATE_HOOK).
static inline int dbkit_has_preupdate_hook(void) {
    return dbkit_sqlite_symbol("sqlite3_preupdate_hook") != NULL;
}

static inline int dbkit_preupdate_count(sqlite3 *db) {
    int (*function)(sqlite3 *) = (int (*)(sqlite3 *))dbkit_sqlite_symbol("sqlite3_preupdate_count");
    return function ? function(db) : 0;
}

static inline int dbkit_preupdate_depth(sqlite3 *db) {
    int (*function)(sqlite3 *) = (int (*)(sqlite3 *))dbkit_sqlite_symbol("sqlite3_preupdate_depth");
    return function ? function(db) : 0;
}

static inline int dbkit_preupdate_old(sqlite3 *db, int column, sqlite3_value **value) {
    int (*function)(sqlite3 *, int, sqlite3_value **) =
        (int (*)(sqlite3 *, int, sqlite3_value **))dbkit_sqlite_symbol("sqlite3_preupdate_old");
    return function ? function(db, column, value) : SQLITE_MISUSE;
}

static inline int dbkit_preupdate_new(sqlite3 *db, int column, sqlite3_value **value) {
    int (*function)(sqlite3 *, int, sqlite3_value **) =
        (int (*)(sqlite3 *, int, sqlite3_value **))dbkit_sqlite_symbol("sqlite3_preupdate_new");
    return function ? function(db, column, value) : SQLITE_MISUSE;
}

#endif
