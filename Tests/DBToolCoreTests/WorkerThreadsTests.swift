import Dispatch
import Foundation
import Testing

@testable import DBToolCore

@Suite("Worker threads: names and priorities")
struct WorkerThreadsTests {
    /// The nice value of the calling thread, from the kernel's own account.
    static func currentThreadNice() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)
        // The fields after the name, which is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        // Field 19 of stat(5) is the nice value; the name was field 2.
        return try #require(Int(fields[19 - 3]))
    }

    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var nice: [String: Int] = [:]
        var names: [String: String] = [:]
    }

    @Test("a background thread runs ten nice steps below the process, and so do the threads it starts; a normal one does not")
    func backgroundPriority() throws {
        let base = try Self.currentThreadNice()
        let seen = Seen()
        let done = DispatchGroup()
        @Sendable func record(_ key: String) {
            let nice = try? Self.currentThreadNice()
            let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
            seen.lock.withLock {
                seen.nice[key] = nice
                seen.names[key] = name?.trimmingCharacters(in: .newlines)
            }
        }
        done.enter()
        done.enter()
        done.enter()
        WorkerThreads.start(name: "test-normal") { _ in
            record("normal")
            done.leave()
        }
        WorkerThreads.start(name: "test-background", priority: .background) { _ in
            record("background")
            WorkerThreads.start(name: "test-child") { _ in
                record("child")
                done.leave()
            }
            done.leave()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        seen.lock.withLock {
            #expect(seen.nice["normal"] == base)
            #expect(seen.nice["background"] == min(19, base + 10))
            #expect(seen.nice["child"] == min(19, base + 10))
            #expect(seen.names["background"] == "dbtool-test-bac")
        }
        // The calling thread keeps its own.
        #expect(try Self.currentThreadNice() == base)
    }
}
