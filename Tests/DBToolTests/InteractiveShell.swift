import Foundation
import Testing

/// A real interactive bash, zsh or fish in a tmux session of its own, with
/// dbtool's committed completion script loaded and the built dbtool on its
/// PATH: the tests type a command line, press TAB, and read the screen as
/// a user would.
final class InteractiveShell {
    enum Kind: String, CaseIterable, CustomStringConvertible {
        case bash, zsh, fish
        var description: String { rawValue }
    }

    static let prompt = "READY> "
    /// The repository's completions/ directory.
    static let completions = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("completions").path

    let kind: Kind
    private let socket = "dbtool-tests-\(getpid())-\(UUID().uuidString.prefix(8))"

    /// Starts the shell in `directory`; throws when tmux or the shell is missing
    /// (`make test` installs them) or the shell never shows its prompt.
    init(_ kind: Kind, in directory: String) throws {
        self.kind = kind
        let path = toolURL.deletingLastPathComponent().path + ":/usr/local/bin:/usr/bin:/bin"
        let environment = "env -i HOME=\(directory) PATH=\(path) TERM=xterm-256color LANG=C.UTF-8"
        let shell: String
        let setup: String
        switch kind {
        case .bash:
            shell = "bash --norc --noprofile"
            setup = """
                PS1='\(Self.prompt)'; bind 'set show-all-if-ambiguous on'; bind 'set completion-query-items 0'; \
                bind 'set page-completions off'; source \(Self.completions)/dbtool.bash
                """
        case .zsh:
            shell = "zsh -f"
            // List the candidates at the first TAB, even when it also inserts their common prefix.
            setup = """
                PS1='\(Self.prompt)'; unsetopt listambiguous; autoload -U compinit; compinit -u; \
                source \(Self.completions)/dbtool.zsh
                """
        case .fish:
            shell = "fish --no-config"
            setup = """
                set -g fish_greeting ''; function fish_prompt; printf '\(Self.prompt)'; end; \
                source \(Self.completions)/dbtool.fish
                """
        }
        // The server outlives the client, so it must inherit no descriptor of
        // this process: Foundation's Process learns that a child exited when
        // a socket it passes down closes, and a server holding it would hang
        // the wait forever. bash closes every descriptor above 2 first. It
        // must not inherit the test runner's blocked signals either: it and
        // its shell would then ignore SIGTERM and SIGHUP, and outlive
        // kill-server (exec-unblocked clears them).
        let start = try dbtool(
            [
                "bash", "-c",
                """
                for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done 2>/dev/null
                exec "$3" exec-unblocked tmux -L "$0" -f /dev/null new-session -d -s main -x 200 -y 50 -c "$1" "$2" </dev/null >/dev/null 2>&1
                """,
                socket, directory, "\(environment) \(shell)", workloadURL.path,
            ], executable: "/usr/bin/env")
        guard start.status == 0 else { throw ShellError(message: "tmux could not start \(kind) (\(start.status))") }
        serverPID = Int32(try tmux(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        shellPID = Int32(try tmux(["display-message", "-p", "-t", "main", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        try type(setup, then: "Enter")
        try clear()
    }

    /// The tmux server and the shell in its pane, ended by ``stop()``.
    private var serverPID: Int32?
    private var shellPID: Int32?

    /// Ends the shell and the server and waits for them (SIGKILL after two
    /// seconds), whatever happened in the test.
    func stop() {
        _ = try? tmux(["kill-server"])
        for pid in [shellPID, serverPID].compactMap({ $0 }) {
            let deadline = Date(timeIntervalSinceNow: 2)
            while kill(pid, 0) == 0 && Date() < deadline { usleep(20_000) }
            if kill(pid, 0) == 0 {
                kill(pid, SIGKILL)
                while kill(pid, 0) == 0 { usleep(10_000) }
            }
        }
        shellPID = nil
        serverPID = nil
    }

    deinit { stop() }

    /// Types `line`, presses TAB, and returns the screen once it settles.
    func complete(_ line: String) throws -> String {
        try clear()
        // What TAB changes is measured from the typed line, once it shows:
        // the line itself appearing is not the answer.
        try tmux(["send-keys", "-t", "main", "-l", line])
        try waitFor { $0.contains(line.trimmingCharacters(in: .whitespaces)) }
        let before = try screen()
        try tmux(["send-keys", "-t", "main", "Tab"])
        return try settledScreen(changedFrom: before)
    }

    // MARK: - tmux

    private func clear() throws {
        // End of line, then kill it: the same keys in the three shells.
        try tmux(["send-keys", "-t", "main", "C-e", "C-u"])
        try type("clear", then: "Enter")
        try waitFor { $0.trimmingCharacters(in: .whitespacesAndNewlines) == Self.prompt.trimmingCharacters(in: .whitespaces) }
    }

    private func type(_ text: String, then key: String) throws {
        try tmux(["send-keys", "-t", "main", "-l", text])
        try tmux(["send-keys", "-t", "main", key])
    }

    private func screen() throws -> String {
        try tmux(["capture-pane", "-p", "-t", "main"])
    }

    /// The screen once it differs from `before` and stays the same for 0.5 s
    /// (completion runs dbtool, which takes a few milliseconds).
    private func settledScreen(changedFrom before: String) throws -> String {
        var last = before
        var stableSince = Date()
        let deadline = Date(timeIntervalSinceNow: 20)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            let current = try screen()
            if current != last {
                last = current
                stableSince = Date()
            } else if current != before, Date().timeIntervalSince(stableSince) > 0.5 {
                return current
            }
        }
        return last
    }

    private func waitFor(_ condition: (String) -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: 20)
        var current = ""
        while Date() < deadline {
            current = try screen()
            if condition(current) { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        throw ShellError(message: "\(kind) never showed what was expected; the screen:\n\(current)")
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let result = try dbtool(["tmux", "-L", socket, "-f", "/dev/null"] + arguments, executable: "/usr/bin/env")
        guard result.status == 0 else {
            throw ShellError(message: "tmux \(arguments.first ?? "") failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    struct ShellError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
