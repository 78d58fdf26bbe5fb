import Foundation

/// A replica in a local directory (or a mounted one): Litestream's `file`
/// replica. Each file is written to a private temp file beside its place,
/// synced, given its header's time as modification time, and renamed in.
final class DirectoryReplicaStore: ReplicaStore {
    let path: String

    init(_ path: String) {
        self.path = path
    }

    var description: String { path }

    private func levelDirectory(_ level: Int) -> String { path + "/ltx/\(level)" }

    func files(level: Int, firstTXIDs: ClosedRange<UInt64>) throws -> [ReplicaFile] {
        let directory = levelDirectory(level)
        guard FileSystem.isDirectory(directory) else { return [] }
        let names: [String]
        do {
            names = try FileSystem.contentsOfDirectory(directory)
        } catch {
            throw error.reported(.noInput, hint: "Check the permissions of \(directory).")
        }
        return try names.compactMap { fileName -> ReplicaFile? in
            guard let name = LTXFileName(level: level, fileName: fileName), firstTXIDs.contains(name.minTXID),
                let info = try FileSystem.status(directory + "/" + fileName, followingLinks: false), info.kind == .regular
            else { return nil }
            return ReplicaFile(name: name, size: info.size, createdAt: info.modificationDate)
        }.sorted { $0.name < $1.name }
    }

    func write(_ name: LTXFileName, from source: String, timestamp: Date) throws {
        let directory = levelDirectory(name.level)
        do {
            for folder in [path, path + "/ltx", directory] where !FileSystem.isDirectory(folder) {
                try FileSystem.createDirectory(folder)
            }
            let final = directory + "/" + name.fileName
            let temporary = directory + "/." + name.fileName + ".tmp"
            _ = try? FileSystem.remove(temporary)
            let input = try FileDescriptor.open(source, .readOnly)
            defer { input.close() }
            let output = try FileDescriptor.createNew(temporary)
            do {
                var offset: Int64 = 0
                while try output.copy(from: input, offset: &offset, count: 1 << 30) > 0 {}
                try output.sync()
                output.close()
                try FileSystem.setTimes(temporary, date: timestamp)
                try FileSystem.rename(temporary, to: final)
                try FileSystem.sync(directory)
            } catch {
                output.close()
                _ = try? FileSystem.remove(temporary)
                throw error
            }
        } catch let error as FileSystemError {
            throw error.reported(.cantCreate, hint: "Check the replica directory \(path).")
        }
    }

    func open(_ name: LTXFileName) throws -> LTXDecoder.Source {
        let file = levelDirectory(name.level) + "/" + name.fileName
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(file, .readOnly)
        } catch {
            throw error.reported(.noInput, hint: "The replica lost a file: run `dbtool replicate verify`.")
        }
        return { buffer in
            let count = try descriptor.read(into: buffer)
            if count == 0 { descriptor.close() }
            return count
        }
    }

    func delete(_ name: LTXFileName) throws {
        do {
            _ = try FileSystem.remove(levelDirectory(name.level) + "/" + name.fileName)
        } catch {
            throw error.reported(.cantCreate, hint: "Check the permissions of \(path).")
        }
    }
}
