#if canImport(Glibc)
    import Glibc
#endif
import Dispatch

/// A program dbtool runs and reads (a secret manager's command): started
/// without a shell, found on `PATH`, with default signal handling and no
/// blocked signal, its standard input and error shared with dbtool, its
/// standard output read through a pipe.
enum ChildProcess {
    /// How a program ended.
    struct Outcome {
        /// Its exit status, or 128 + the signal that killed it.
        var status: Int32
        /// What it wrote on its standard output (at most `limit` bytes and one more).
        var output: [UInt8]
    }

    /// Runs `arguments` (the program, then its arguments) to its end.
    /// SIGINT or SIGTERM to dbtool stops the program (SIGTERM) and throws 130.
    ///
    /// - throws: ``FileSystemError`` when the program can not be started
    ///   (`errno` says why: ENOENT for a program not found).
    static func run(_ arguments: [String], outputLimit limit: Int) throws -> Outcome {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw FileSystemError(operation: .createPipe, path: arguments[0], errno: .current) }
        // Neither end leaks into the program (its output is a dup2 of the write end).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let reader = FileDescriptor(rawValue: ends[0], path: arguments[0])
        var readerOpen = true
        defer { if readerOpen { reader.close() } }
        let pid: pid_t
        do {
            defer { _ = close(ends[1]) }
            pid = try spawn(arguments, output: ends[1])
        }
        let stopOnSignal = Interruption.register { kill(pid, SIGTERM) }
        defer { Interruption.unregister(stopOnSignal) }
        var output: [UInt8] = []
        var readError: FileSystemError?
        do {
            output = try reader.readToEnd(limit: limit)
        } catch {
            readError = error
        }
        // Closed before the wait: a program that prints more than the limit
        // then gets EPIPE (or SIGPIPE) instead of blocking on a full pipe.
        reader.close()
        readerOpen = false
        let status = wait(for: pid)
        try Interruption.check()
        if let readError { throw readError }
        let exit = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return Outcome(status: exit, output: output)
    }

    /// Waits for the program to end and returns its wait status. Once
    /// SIGINT or SIGTERM reached dbtool (and SIGTERM the program), a program
    /// that has not ended within 2 seconds is killed.
    private static func wait(for pid: pid_t) -> Int32 {
        var status: Int32 = 0
        var deadline: UInt64?
        while true {
            let result = waitpid(pid, &status, Interruption.isRequested ? WNOHANG : 0)
            if result == pid { return status }
            if result < 0 && errno != EINTR { return status }
            guard Interruption.isRequested else { continue }
            let now = DispatchTime.now().uptimeNanoseconds
            if deadline == nil { deadline = now + 2_000_000_000 }
            if let deadline, now >= deadline { kill(pid, SIGKILL) }
            usleep(20_000)
        }
    }

    /// Starts the program with `output` as its standard output.
    private static func spawn(_ arguments: [String], output: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // dbtool's threads block SIGINT and SIGTERM, and it catches them:
        // the program gets neither the mask nor the handlers.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGINT, SIGTERM, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard result == 0 else { throw FileSystemError(operation: .run, path: arguments[0], errno: Errno(result)) }
        return pid
    }
}
