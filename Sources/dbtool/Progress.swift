import Foundation

/// A progress line on stderr, redrawn at most ten times a second, shown only
/// once the work has lasted a second. Commands create it only when stderr is
/// a terminal.
final class ProgressLine: @unchecked Sendable {
    // Safe: `lastDraw` and `label` are only touched while holding `lock`.
    private let lock = NSLock()
    private var label: String
    private let start = Date()
    private var lastDraw = Date.distantPast

    init(label: String) { self.label = label }

    /// Pages done, for the SQLite backup API.
    func update(done: Int, total: Int) {
        draw(finished: done >= total) { percent in "\(percent(Int64(done), Int64(total)))% (\(done)/\(total) pages)" }
    }

    /// Bytes done with the rate; a new `label` starts a new line.
    func update(bytes done: Int64, total: Int64, label newLabel: String? = nil) {
        if let newLabel, newLabel != currentLabel {
            finishLine()
            setLabel(newLabel)
        }
        let elapsed = max(Date().timeIntervalSince(start), 0.001)
        draw(finished: false) { percent in
            "\(percent(done, total))% (\(Self.bytes(done)) of \(Self.bytes(total)), \(Self.bytes(Int64(Double(done) / elapsed)))/s)"
        }
    }

    /// Ends the current line, if one was drawn.
    func finishLine() {
        lock.lock()
        defer { lock.unlock() }
        if lastDraw != .distantPast {
            FileHandle.standardError.write(Data("\n".utf8))
            lastDraw = .distantPast
        }
    }

    private var currentLabel: String {
        lock.lock()
        defer { lock.unlock() }
        return label
    }

    private func setLabel(_ newLabel: String) {
        lock.lock()
        label = newLabel
        lock.unlock()
    }

    private func draw(finished: Bool, _ text: ((Int64, Int64) -> Int64) -> String) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(start) >= 1, finished || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = finished ? .distantPast : now
        let line = "\r\u{1B}[K\(label): " + text { done, total in total > 0 ? done * 100 / total : 100 } + (finished ? "\n" : "")
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// 1.5 GiB, 12.0 MiB, 512 B.
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
