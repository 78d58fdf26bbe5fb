extension Database {
    /// Runs `block`, and adds to `region` what the statements it executes
    /// read: their tables and columns.
    ///
    /// ``ValueObservation/tracking(_:)`` records the region of each fetch
    /// this way. Recordings nest: an outer recording also gets what an inner
    /// one recorded.
    ///
    /// ```swift
    /// var region = DatabaseRegion()
    /// let players = try db.recordingSelection(&region) {
    ///     try Player.fetchAll(db)
    /// }
    /// print(region) // "player(*)"
    /// ```
    public func recordingSelection<T>(_ region: inout DatabaseRegion, _ block: () throws -> T) rethrows -> T {
        let outer = recordedSelection
        recordedSelection = DatabaseRegion()
        defer {
            let recorded = recordedSelection ?? DatabaseRegion()
            region.formUnion(recorded)
            recordedSelection = outer.map { $0.union(recorded) }
        }
        return try block()
    }

    /// Runs `block` without recording what its statements read: the
    /// queries of the schema that a recorded fetch needs.
    func withoutRecordingSelection<T>(_ block: () throws -> T) rethrows -> T {
        guard let recorded = recordedSelection else { return try block() }
        recordedSelection = nil
        defer { recordedSelection = recorded }
        return try block()
    }
}
