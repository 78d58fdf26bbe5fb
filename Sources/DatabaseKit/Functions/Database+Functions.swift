internal import DatabaseKitSQLite
import FoundationEssentials

extension Database {
    /// Adds a custom SQL function to this connection, replacing any function
    /// with the same name and number of arguments.
    ///
    /// SQLite refuses a name longer than 255 bytes or more than 127
    /// arguments: the function is then not added, and calling it fails with
    /// SQLite's "no such function" error (the refusal is sent to
    /// ``Database/logError``).
    public func add(function: DatabaseFunction) {
        let box = Unmanaged.passRetained(FunctionBox(function)).toOpaque()
        let code: CInt
        switch function.kind {
        case .scalar:
            code = sqlite3_create_function_v2(
                sqliteConnection, function.name, function.id.argumentCount, function.textEncodingFlags, box,
                callScalar, nil, nil, releaseBox)
        case .aggregate:
            code = sqlite3_create_function_v2(
                sqliteConnection, function.name, function.id.argumentCount, function.textEncodingFlags, box,
                nil, stepAggregate, finalizeAggregate, releaseBox)
        }
        // SQLite calls xDestroy (releasing the box) itself when it fails.
        if code == SQLITE_OK {
            functions[function.id] = function
        } else {
            Database.log(ResultCode(rawValue: code), "could not add function \(function.name): \(lastErrorMessage ?? "")")
        }
    }

    /// Removes a custom SQL function from this connection.
    public func remove(function: DatabaseFunction) {
        functions.removeValue(forKey: function.id)
        sqlite3_create_function_v2(
            sqliteConnection, function.name, function.id.argumentCount, function.textEncodingFlags, nil, nil, nil,
            nil, nil)
    }
}

/// The function, kept alive by SQLite (its `pApp`) until the function is
/// replaced, removed, or the connection closes.
private final class FunctionBox {
    let function: DatabaseFunction
    init(_ function: DatabaseFunction) { self.function = function }
}

/// The state of one running aggregate, in SQLite's aggregate context.
private final class AggregateBox {
    var aggregate: any DatabaseAggregate
    /// Set when a step threw: the statement fails, and the aggregate gives
    /// no result.
    var hasFailed = false
    init(_ aggregate: any DatabaseAggregate) { self.aggregate = aggregate }
}

private func functionBox(_ context: OpaquePointer?) -> FunctionBox? {
    sqlite3_user_data(context).map { Unmanaged<FunctionBox>.fromOpaque($0).takeUnretainedValue() }
}

private func arguments(_ count: CInt, _ values: UnsafeMutablePointer<OpaquePointer?>?) -> [DatabaseValue] {
    guard let values, count > 0 else { return [] }
    return (0..<Int(count)).map { index in
        values[index].map { DatabaseValue(sqliteValue: $0) } ?? .null
    }
}

private let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { box in
    if let box { Unmanaged<FunctionBox>.fromOpaque(box).release() }
}

private let callScalar: @convention(c) (OpaquePointer?, CInt, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard case .scalar(let function) = functionBox(context)?.function.kind else { return }
    do {
        setResult(try function(arguments(count, values))?.databaseValue ?? .null, context)
    } catch {
        setError(error, context)
    }
}

/// The aggregate of the current group: created on the group's first row, and
/// kept in the aggregate context as a retained pointer.
private func aggregateBox(_ context: OpaquePointer?) -> AggregateBox? {
    let size = CInt(MemoryLayout<UnsafeMutableRawPointer?>.size)
    guard let slot = sqlite3_aggregate_context(context, size) else { return nil }
    let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    if let existing = pointer.pointee {
        return Unmanaged<AggregateBox>.fromOpaque(existing).takeUnretainedValue()
    }
    guard case .aggregate(let make) = functionBox(context)?.function.kind else { return nil }
    let box = AggregateBox(make())
    pointer.pointee = Unmanaged.passRetained(box).toOpaque()
    return box
}

private let stepAggregate: @convention(c) (OpaquePointer?, CInt, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, count, values in
    guard let box = aggregateBox(context) else {
        sqlite3_result_error_nomem(context)
        return
    }
    // SQLite stops stepping after an error; the guard is cheap insurance.
    guard !box.hasFailed else { return }
    do {
        try box.aggregate.step(arguments(count, values))
    } catch {
        box.hasFailed = true
        setError(error, context)
    }
}

private let finalizeAggregate: @convention(c) (OpaquePointer?) -> Void = { context in
    // SQLite calls xFinal once per group, after an error too: the box is
    // released here in every case. No row at all: SQLite never allocated
    // the context; the result is the one of an empty aggregate.
    let box: AggregateBox
    if let slot = sqlite3_aggregate_context(context, 0),
        let pointer = slot.assumingMemoryBound(to: UnsafeMutableRawPointer?.self).pointee
    {
        box = Unmanaged<AggregateBox>.fromOpaque(pointer).takeRetainedValue()
    } else if case .aggregate(let make) = functionBox(context)?.function.kind {
        box = AggregateBox(make())
    } else {
        return
    }
    guard !box.hasFailed else { return }
    do {
        setResult(try box.aggregate.finalize()?.databaseValue ?? .null, context)
    } catch {
        setError(error, context)
    }
}

private func setResult(_ value: DatabaseValue, _ context: OpaquePointer?) {
    switch value.storage {
    case .null:
        sqlite3_result_null(context)
    case .int64(let int64):
        sqlite3_result_int64(context, int64)
    case .double(let double):
        sqlite3_result_double(context, double)
    case .string(let string):
        var string = string
        string.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                if let base = chars.baseAddress {
                    _ = dbkit_result_text_transient(context, base, CInt(clamping: chars.count))
                } else {
                    _ = dbkit_result_text_transient(context, "", 0)
                }
            }
        }
    case .blob(let data):
        if data.isEmpty {
            sqlite3_result_zeroblob(context, 0)  // a NULL pointer would give SQL NULL
        } else {
            data.withUnsafeBytes { dbkit_result_blob_transient(context, $0.baseAddress, CInt(clamping: $0.count)) }
        }
    }
}

private func setError(_ error: any Error, _ context: OpaquePointer?) {
    if let error = error as? DatabaseError {
        if let message = error.message { sqlite3_result_error(context, message, -1) }
        sqlite3_result_error_code(context, error.extendedResultCode.rawValue)
    } else {
        sqlite3_result_error(context, "\(error)", -1)
    }
}
