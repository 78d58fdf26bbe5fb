import DatabaseKit
import FoundationEssentials

/// A ring of three 1 MiB buffers handed between a caller and one thread of
/// its own: the shared part of ``HashingReader`` and ``BackgroundWriter``.
///
/// `free` counts the buffers the producing side may fill, `filled` the ones
/// the consuming side may take; a buffer and its count are touched by one
/// side at a time, handed over by those counts. `finished` is signalled
/// once by the thread when it ends. What else the two sides share is
/// `Shared`, only reached through ``shared``'s lock: `@unchecked Sendable`
/// rests on that, and on the counts' hand-over of the buffers (each a
/// `Locked`, the package's one lock, which ThreadSanitizer understands).
class BufferRing<Shared>: @unchecked Sendable {
    static var slots: Int { 3 }
    let buffers: [UnsafeMutableRawPointer]
    /// The byte count of each buffer; 0 ends the stream.
    let counts: UnsafeMutablePointer<Int>
    let free = Tally()
    let filled = Tally()
    let finished = Tally()
    /// The state both sides read and write, under its lock.
    let shared: Locked<Shared>

    init(shared: Shared) {
        self.shared = Locked(shared)
        buffers = (0..<Self.slots).map { _ in UnsafeMutableRawPointer.allocate(byteCount: StreamBuffer.size, alignment: 16) }
        counts = UnsafeMutablePointer<Int>.allocate(capacity: Self.slots)
        counts.initialize(repeating: 0, count: Self.slots)
        for _ in 0..<Self.slots { free.signal() }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
        counts.deallocate()
    }

    /// The consuming thread's loop: gives `body` each filled buffer in turn
    /// (its slot and byte count), frees it, and returns at the end of the
    /// stream, signalling `finished`.
    func consumeUntilEnd(_ body: (_ slot: Int, _ count: Int) -> Void) {
        var slot = 0
        defer { finished.signal() }
        while true {
            filled.wait()
            let count = counts[slot]
            if count == 0 { return }
            body(slot, count)
            free.signal()
            slot = (slot + 1) % Self.slots
        }
    }
}

/// A count that one side raises and the other waits for (a counting
/// semaphore), on `Locked`'s mutex and condition.
final class Tally: Sendable {
    private let count = Locked(0)

    /// Adds one, waking a waiter.
    func signal() {
        count.withLock { $0 += 1 }
        count.broadcast()
    }

    /// Waits until the count is positive, then takes one.
    func wait() {
        count.withLock(waitingUntil: { $0 > 0 }) { $0 -= 1 }
    }
}
