import Dispatch
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The threads dbtool starts besides the main one, all made here: named
/// (`dbtool-NAME-N`, as `top -H` and a core dump show them), with a 4 MiB
/// stack (SQLite, libarchive and libcurl run on them), and, unless asked,
/// with SIGINT and SIGTERM blocked: a signal then interrupts the thread
/// that waits for them (``Interruption``), not a worker in a system call.
enum WorkerThreads {
    /// Stack size of every worker.
    static let stackSize = 4 << 20

    /// How much CPU time a thread gets beside the others.
    enum Priority {
        /// The process's own.
        case normal
        /// Ten nice steps lower: work that must not slow down the rest
        /// (a snapshot beside level-0 shipping, beside the application).
        /// The threads it starts inherit it.
        case background
    }

    /// Starts `count` threads, each running `body` with its index, and
    /// returns at once.
    static func start(
        _ count: Int = 1, name: String, receivesSignals: Bool = false, priority: Priority = .normal,
        _ body: @escaping @Sendable (Int) -> Void
    ) {
        for index in 0..<count {
            let threadName = count == 1 ? "dbtool-\(name)" : "dbtool-\(name)-\(index + 1)"
            spawn(name: threadName, priority: priority) {
                if !receivesSignals { Interruption.blockInCurrentThread() }
                body(index)
            }
        }
    }

    /// Lowers the calling thread's priority by ten nice steps (19 at most).
    /// Linux keeps a nice value per thread, and `setpriority` of
    /// `PRIO_PROCESS` 0 sets the calling thread's; lowering it needs no
    /// privilege. A failure leaves the thread as it was.
    static func lowerCurrentThreadPriority() {
        #if canImport(Glibc)
            let process = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(process, 0)
            guard current != -1 || errno == 0 else { return }
            _ = setpriority(process, 0, min(19, current + 10))
        #endif
    }

    /// One detached POSIX thread (Foundation's `Thread` would link the part
    /// of Foundation that carries ICU). When the system refuses a thread
    /// (EAGAIN at its process limit), `body` runs on Dispatch's pool instead:
    /// late, never lost, and at the pool's priority (a pool thread lowered
    /// would stay lowered for the work it runs next).
    private static func spawn(name: String, priority: Priority, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadBody(name: name, priority: priority, body: body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(&thread, &attributes, runThreadBody, context)
        if started != 0 {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            DispatchQueue.global().async(execute: body)
        }
    }

    /// Suspends the calling thread for `seconds` (a signal does not cut the
    /// pause short; ``Interruption/sleep(seconds:)`` is the interruptible one).
    static func pause(seconds: Double) {
        guard seconds > 0 else { return }  // NaN too
        let nanoseconds = UInt64(max(0, min(seconds, 86_400)) * 1e9)
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
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

/// What a new thread runs, passed through `pthread_create`'s context.
private final class ThreadBody: Sendable {
    let name: String
    let priority: WorkerThreads.Priority
    let body: @Sendable () -> Void

    init(name: String, priority: WorkerThreads.Priority, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.priority = priority
        self.body = body
    }
}

/// The entry point of every worker thread.
private func runThreadBody(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let context else { return nil }
    let threadBody = Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue()
    nameCurrentThread(threadBody.name)
    if threadBody.priority == .background { WorkerThreads.lowerCurrentThreadPriority() }
    threadBody.body()
    return nil
}

/// What `pthread_setname_np` does, which Swift's Glibc module does not
/// declare: the kernel keeps the first 15 bytes of the name.
private func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}
