import Foundation

/// Where an operation writes one file, and that file's whole life there:
/// the destination is resolved and checked, the file is written to a
/// private temp file beside it, fsynced, renamed, the directory fsynced, and
/// older files of a timestamped series are pruned with an honest report.
///
/// `backup`, `snapshot` and the pre-migration snapshot all write through it.
/// Object storage is meant to be one more kind of destination with the same
/// steps (check, write, publish, prune), not a copy of them.
struct FileDestination {
    /// What the operation asked for.
    enum Request: Equatable {
        /// One file at this path (`--output FILE`).
        case file(String)
        /// A timestamped name in this directory (`--output-dir DIR`), keeping
        /// the files of the series that `retention` keeps.
        case directory(String, retention: RetentionPolicy)

        /// `--output FILE` or `--output-dir DIR [--keep N]`.
        init(output: String?, outputDirectory: String?, keep: Int?) throws {
            try self.init(output: output, outputDirectory: outputDirectory, retention: RetentionPolicy(last: keep))
        }

        /// `--output FILE` or `--output-dir DIR [--keep N] [--keep-daily N]...`.
        init(output: String?, outputDirectory: String?, retention: RetentionPolicy) throws {
            if let output {
                self = .file(output)
            } else if let outputDirectory {
                self = .directory(outputDirectory, retention: retention)
            } else {
                throw DBToolError(.usage, "no destination: give --output FILE or --output-dir DIR")
            }
        }
    }

    /// The final path of the file.
    let path: String
    /// The directory that holds it (and the temp file, and the series).
    let directory: String
    /// The series pruned by `keep`: timestamped names with this stem and extension.
    let series: TimestampedName?
    let retention: RetentionPolicy
    /// Replace an existing file at ``path``.
    let force: Bool
    /// The prefix of this operation's temp files.
    let tempPrefix: String

    /// Resolves the request to a path. A missing `--output-dir` is created
    /// (private, when its parent exists) after `validate` accepts the
    /// directory and the path: nothing is created for a refused request.
    init(
        _ request: Request, stem: String, fileExtension: String, seriesExtensions: [String]? = nil, now: Date, force: Bool,
        tempPrefix: String, validate: (_ directory: String, _ path: String) throws -> Void = { _, _ in }
    ) throws {
        self.force = force
        self.tempPrefix = tempPrefix
        switch request {
        case .file(let output):
            path = URL(fileURLWithPath: output).standardizedFileURL.path
            directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
            series = nil
            retention = RetentionPolicy()
            try validate(directory, path)
        case .directory(let outputDirectory, let retention):
            directory = URL(fileURLWithPath: outputDirectory).standardizedFileURL.path
            let series = TimestampedName(stem: stem, fileExtension: fileExtension, seriesExtensions: seriesExtensions)
            path = directory + "/" + series.name(at: now)
            self.series = series
            self.retention = retention
            try validate(directory, path)
            try createOutputDirectory(directory)
        }
    }

    /// The file's name, for messages and temp names.
    var fileName: String { URL(fileURLWithPath: path).lastPathComponent }

    /// Before writing: refuses an existing file (unless `force`), a missing
    /// or read-only directory; then removes the temp files of killed runs.
    func prepare() throws {
        if FileSystem.exists(path) && !force {
            throw DBToolError(.cantCreate, "\(path) already exists", hint: "Choose another name, or pass --force to replace it.")
        }
        guard FileSystem.isDirectory(directory) else {
            throw DBToolError(
                .cantCreate, "can not write \(path): the directory \(directory) does not exist", hint: "Create it first (mkdir -p).")
        }
        guard FileSystem.isWritable(directory) else {
            throw DBToolError(
                .noPermission, "can not write \(path): the directory \(directory) is not writable",
                hint: "Check its permissions, or choose another destination.")
        }
        removeStaleTempFiles(in: directory, prefix: tempPrefix)
    }

    /// The path of a temp file (or directory) of this process beside the
    /// destination; `suffix` tells several apart.
    func tempPath(suffix: String = "") -> String {
        directory + "/" + tempName(prefix: tempPrefix, for: fileName + suffix)
    }

    /// Syncs the complete temp file and renames it to ``path``, then syncs
    /// the directory: the file appears whole under its name, or not at all.
    func publish(_ temp: String, what: String) throws {
        do {
            try FileSystem.sync(temp)
        } catch {
            throw error.reported(.ioError)
        }
        try DBToolCore.publish(temp, as: path, what: what)
    }

    /// What pruning did: the files it deleted, and those it could not.
    struct Pruning: Equatable {
        var deleted: [String] = []
        /// `path: reason` of each file that should have gone and is still there.
        var failures: [String] = []
    }

    /// The files of the series that the retention rules would delete once
    /// the new file is written (for `--dry-run`), oldest first.
    func expired() -> [String] {
        guard let series, !retention.isEmpty else { return [] }
        var names = (try? FileSystem.contentsOfDirectory(directory)) ?? []
        if !names.contains(fileName) { names.append(fileName) }
        return retention.expired(among: names, series: series).map { directory + "/" + $0 }.filter { $0 != path }
    }

    /// Deletes the files of the series that no retention rule keeps, never
    /// the new one. Only names of the series count; a file reported deleted
    /// is gone.
    func prune() -> Pruning {
        var pruning = Pruning()
        for path in expired() {
            do {
                // Gone already (another run pruned it): not ours to report.
                if try FileSystem.remove(path) { pruning.deleted.append(path) }
            } catch {
                pruning.failures.append("\(path): \(error.errno)")
            }
        }
        return pruning
    }
}
