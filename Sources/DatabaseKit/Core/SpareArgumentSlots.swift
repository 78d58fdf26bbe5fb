import Synchronization

// @exclusivity(unchecked), measured (Benchmarks/RESULTS.md, "Exclusivity checks"): with the column lookup's,
// the statement's, the lock's, the encoder's and the transaction statements' (removed together), fetch-name
// runs 28% more instructions, qi-fetch-id 3%.

/// One spare buffer of argument slots for the whole process.
///
/// An execution with an argument literal (`statement.execute(arguments:
/// [a, b, c])`) converts the literal into slots (see ``ArgumentValues``),
/// and the statement drops the slots of its previous execution. Allocating
/// the one and freeing the other cost about 480 instructions per execution,
/// more than binding ten values. So the statement leaves the buffer it drops
/// here, and the next literal takes it: a loop of executions allocates no
/// buffer of slots.
///
/// Taking or leaving the buffer swaps it with the caller's array under a
/// busy flag; a thread that finds the flag set (another thread is swapping)
/// does without. The buffer may still be shared with arguments that someone
/// kept: the arguments that take it write through `Array`'s copy on write,
/// which copies a shared buffer first.
final class SpareArgumentSlots: @unchecked Sendable {
    /// The process-wide spare buffer.
    static let shared = SpareArgumentSlots()

    /// A buffer larger than this is not kept: a rare execution with many
    /// arguments must not hold its memory for the life of the process.
    static let maximumCapacity = 64

    /// Set while a thread swaps ``slots``.
    private let isBusy = Atomic<Bool>(false)

    /// Only read or written by the thread that set ``isBusy``.
    @exclusivity(unchecked) private var slots: [ArgumentValues.Slot] = []

    private init() {}

    /// Swaps `other` with the spare buffer, unless another thread is doing
    /// so: `other` is then left as it is.
    @inline(__always)
    func swap(_ other: inout [ArgumentValues.Slot]) {
        guard isBusy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
        Swift.swap(&slots, &other)
        isBusy.store(false, ordering: .releasing)
    }
}
