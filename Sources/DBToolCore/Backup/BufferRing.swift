import DatabaseKit
import Foundation

/// A ring of three 1 MiB buffers handed between a caller and one thread of
/// its own: the shared part of ``HashingReader`` and ``BackgroundWriter``.
///
/// `free` counts the buffers the producing side may fill, `filled` the ones
/// the consuming side may take; a buffer and its count are touched by one
/// side at a time, handed over by those semaphores. `finished` is signalled
/// once by the thread when it ends. What else the two sides share is
/// `Shared`, only reached through ``shared``'s lock: `@unchecked Sendable`
/// rests on that, and on the semaphores' hand-over of the buffers.
class BufferRing<Shared>: @unchecked Sendable {
    static var slots: Int { 3 }
    let buffers: [UnsafeMutableRawPointer]
    /// The byte count of each buffer; 0 ends the stream.
    let counts: UnsafeMutablePointer<Int>
    // Created at 0 and signalled up to `slots`: libdispatch traps when a
    // semaphore is freed below its initial value, which `free` may end at.
    let free = DispatchSemaphore(value: 0)
    let filled = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    /// The state both sides read and write, under its lock.
    let shared: Locked<Shared>

    init(shared: Shared) {
        self.shared = Locked(shared)
        buffers = (0..<Self.slots).map { _ in UnsafeMutableRawPointer.allocate(byteCount: ArchiveWriter.bufferSize, alignment: 16) }
        counts = UnsafeMutablePointer<Int>.allocate(capacity: Self.slots)
        counts.initialize(repeating: 0, count: Self.slots)
        for _ in 0..<Self.slots { free.signal() }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
        counts.deallocate()
    }

}
