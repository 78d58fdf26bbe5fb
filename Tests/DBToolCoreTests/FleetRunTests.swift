import DatabaseKit
import Foundation
import Testing

@testable import DBToolCore

/// The fleet runner's threads: every database once, outcomes in order, the
/// failures kept, `failFast` stopping new starts. Run under ThreadSanitizer.
@Suite("Fleet runner")
struct FleetRunTests {
    struct Done: Codable, Sendable, Equatable { var index: Int }

    @Test("every database runs once, on up to --jobs threads; the outcomes keep their order and their errors", arguments: [1, 3, 8])
    func everyOnce(jobs: Int) {
        let names = (0..<200).map { "db\($0)" }
        let runs = Locked([Int](repeating: 0, count: names.count))
        let running = Locked((now: 0, most: 0))
        let progress = Locked([Int]())
        var fleet = Fleet(names: names, jobs: jobs)
        fleet.progress = { step in
            progress.withLock { $0.append(Int(step.done)) }
            #expect(step.total == 200 && step.unit == .databases)
        }
        let outcomes = fleet.run { index -> Done in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            defer { running.withLock { $0.now -= 1 } }
            runs.withLock { $0[index] += 1 }
            usleep(100)
            if index % 7 == 0 { throw DBToolError(.dataError, "database \(index) is damaged") }
            return Done(index: index)
        }
        #expect(runs.withLock { $0 } == [Int](repeating: 1, count: names.count))
        #expect(running.withLock { $0.most } <= jobs)
        #expect(outcomes.map(\.database) == names)
        for (index, outcome) in outcomes.enumerated() {
            if index % 7 == 0 {
                #expect(outcome.status == 65 && outcome.error?.message == "database \(index) is damaged" && outcome.report == nil)
            } else {
                #expect(outcome.status == 0 && outcome.report == Done(index: index))
            }
        }
        #expect(progress.withLock { $0.sorted() } == Array(1...200))
    }

    @Test("failFast: no database starts after the first failure; the others are skipped")
    func failFast() {
        var fleet = Fleet(names: (0..<50).map { "db\($0)" }, jobs: 1)
        fleet.failFast = true
        let outcomes = fleet.run { index -> Done in
            if index == 4 { throw DBToolError(.tempFail, "busy") }
            return Done(index: index)
        }
        #expect(outcomes.prefix(4).allSatisfy { $0.status == 0 && !$0.skipped })
        #expect(outcomes[4].status == 75)
        #expect(outcomes.dropFirst(5).allSatisfy { $0.skipped && $0.report == nil })
    }
}
