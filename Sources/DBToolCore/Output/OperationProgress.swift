/// How far a long operation is, as every operation reports it: what it
/// does now, how much of how much, in what. The command line draws it
/// (a line on a terminal); a fleet reports databases the same way.
public struct OperationProgress: Sendable, Equatable {
    /// What is counted.
    public enum Unit: String, Sendable {
        case bytes, pages, databases
    }

    /// What is being done: "copying", "archiving", "uploading", "restoring",
    /// "snapshot", "databases". A new phase starts a new line.
    public var phase: String
    /// How much is done.
    public var done: Int64
    /// How much there is to do; 0 when not known (an upload's total).
    public var total: Int64
    public var unit: Unit

    public init(_ phase: String, done: Int64, total: Int64, unit: Unit) {
        self.phase = phase
        self.done = done
        self.total = total
        self.unit = unit
    }
}

/// Receives the progress of an operation, on any of its threads.
public typealias ProgressHandler = @Sendable (OperationProgress) -> Void
