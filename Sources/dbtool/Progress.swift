import DatabaseKit
import DBToolCore
import FoundationEssentials

/// A progress line on stderr, redrawn at most ten times a second, shown only
/// once the work has lasted a second. Commands create it only when stderr is
/// a terminal.
final class ProgressLine: Sendable {
    /// What the progress callbacks, called from the operation's threads, share.
    private struct State {
        var label: String
        var lastDraw = Date.distantPast
        /// Bytes uploaded so far, shown after the line's own progress.
        var uploaded: Int64 = 0
    }

    private let state: Locked<State>
    private let start = Date()

    init(label: String) { state = Locked(State(label: label)) }

    /// Draws an operation's progress: counts (pages, databases) under the
    /// line's own label; bytes under the phase's, with their rate (a new
    /// phase starts a new line); bytes of unknown total (an upload) after
    /// the line, on its next drawing.
    func update(_ progress: OperationProgress) {
        switch progress.unit {
        case .pages, .databases: update(done: progress.done, total: progress.total, unit: progress.unit.rawValue)
        case .bytes where progress.total == 0: note(uploaded: progress.done)
        case .bytes: update(bytes: progress.done, total: progress.total, label: progress.phase)
        }
    }

    /// Counted things done: pages of the SQLite backup API, databases of a fleet.
    private func update(done: Int64, total: Int64, unit: String) {
        draw(finished: done >= total) { percent in "\(percent(done, total))% (\(done)/\(total) \(unit))" }
    }

    /// Bytes done with the rate; a new `label` starts a new line.
    private func update(bytes done: Int64, total: Int64, label newLabel: String? = nil) {
        if let newLabel {
            state.withLock { state in
                guard newLabel != state.label else { return }
                Self.finishLine(&state)
                state.label = newLabel
            }
        }
        let elapsed = max(Date().timeIntervalSince(start), 0.001)
        draw(finished: false) { percent in
            "\(percent(done, total))% (\(ByteCount.text(done)) of \(ByteCount.text(total)), \(ByteCount.text(Int64(Double(done) / elapsed)))/s)"
        }
    }

    /// Records the bytes uploaded so far (shown on the next update).
    private func note(uploaded: Int64) {
        state.withLock { $0.uploaded = max($0.uploaded, uploaded) }
    }

    /// Ends the current line, if one was drawn.
    func finishLine() {
        state.withLock { Self.finishLine(&$0) }
    }

    private static func finishLine(_ state: inout State) {
        if state.lastDraw != .distantPast {
            StandardStreams.writeError("\n")
            state.lastDraw = .distantPast
        }
    }

    private func draw(finished: Bool, _ text: ((Int64, Int64) -> Int64) -> String) {
        state.withLock { state in
            let now = Date()
            guard now.timeIntervalSince(start) >= 1, finished || now.timeIntervalSince(state.lastDraw) >= 0.1 else { return }
            state.lastDraw = finished ? .distantPast : now
            let rate = Int64(Double(state.uploaded) / max(now.timeIntervalSince(start), 0.001))
            let uploaded = state.uploaded > 0 ? ", \(ByteCount.text(state.uploaded)) uploaded (\(ByteCount.text(rate))/s)" : ""
            let line =
                "\r\u{1B}[K\(state.label): " + text { done, total in total > 0 ? done * 100 / total : 100 } + uploaded + (finished ? "\n" : "")
            StandardStreams.writeError(line)
        }
    }
}
