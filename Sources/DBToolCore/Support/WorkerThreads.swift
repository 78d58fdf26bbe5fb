import Foundation

/// The threads dbtool starts besides the main one, all made here: named
/// (`dbtool-NAME-N`, as `top -H` and a core dump show them), with a 4 MiB
/// stack (SQLite, libarchive and libcurl run on them), and, unless asked,
/// with SIGINT and SIGTERM blocked: a signal then interrupts the thread
/// that waits for them (``Interruption``), not a worker in a system call.
enum WorkerThreads {
    /// Stack size of every worker.
    static let stackSize = 4 << 20

    /// Starts `count` threads, each running `body` with its index, and
    /// returns at once.
    static func start(
        _ count: Int = 1, name: String, receivesSignals: Bool = false, _ body: @escaping @Sendable (Int) -> Void
    ) {
        for index in 0..<count {
            let thread = Thread {
                if !receivesSignals { Interruption.blockInCurrentThread() }
                body(index)
            }
            thread.name = count == 1 ? "dbtool-\(name)" : "dbtool-\(name)-\(index + 1)"
            thread.stackSize = stackSize
            thread.start()
        }
    }

    /// Runs `body` on `count` threads, the calling thread among them (index
    /// 0, which keeps its signals), and returns once every one returned.
    static func run(_ count: Int, name: String, _ body: @escaping @Sendable (Int) -> Void) {
        let finished = DispatchGroup()
        if count > 1 {
            for _ in 1..<count { finished.enter() }
            start(count - 1, name: name, receivesSignals: true) { index in
                body(index + 1)
                finished.leave()
            }
        }
        body(0)
        finished.wait()
    }
}
