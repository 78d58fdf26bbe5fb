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
}
