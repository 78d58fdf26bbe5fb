import Foundation

/// A finished child process (with the children it waited for): wall time,
/// CPU time (user + system) and peak resident set size.
struct Measured {
    var seconds: Double
    var cpuSeconds: Double
    var maxRSSKiB: Int
}

/// Runs a command with posix_spawn, stdout to /dev/null, and reaps it with
/// wait4 for its rusage; a non-zero exit is an error.
func measure(_ executable: String, _ arguments: [String]) throws -> Measured {
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    let start = DispatchTime.now().uptimeNanoseconds
    let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard code == 0 else { throw BenchmarkError(description: "can not run \(executable): \(String(cString: strerror(code)))") }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let end = DispatchTime.now().uptimeNanoseconds
    guard status == 0 else {
        throw BenchmarkError(description: "\(executable) \(arguments.joined(separator: " ")) failed with status \(status)")
    }
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return Measured(
        seconds: Double(end - start) / 1e9, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), maxRSSKiB: usage.ru_maxrss)
}
