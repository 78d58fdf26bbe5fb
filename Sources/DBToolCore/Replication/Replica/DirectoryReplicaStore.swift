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

    func readRecord() throws -> Data? {
        guard let directory = try? DirectoryDescriptor.open(path) else { return nil }
        defer { directory.close() }
        let file: FileDescriptor
        do {
            guard try directory.status(of: ReplicaRecord.name) != nil else { return nil }
            (file, _) = try directory.openRegularFile(ReplicaRecord.name)
        } catch let error as FileSystemError {
            throw error.reported(.dataError, hint: "The replica's record must be the file dbtool wrote.")
        }
        defer { file.close() }
        do {
            return Data(try file.readToEnd(limit: ReplicaRecord.sizeLimit))
        } catch {
            throw error.reported(.noInput)
        }
    }

    func createRecord(_ data: Data) throws -> Bool {
        do {
            if !FileSystem.isDirectory(path) { try FileSystem.createDirectory(path) }
            let directory = try DirectoryDescriptor.open(path, followingLinks: false)
            defer { directory.close() }
            // Written whole under a temp name, then linked: the name appears complete, once.
            let temp = tempName(prefix: ".dbtool-replica-", for: ReplicaRecord.name)
            let file = try directory.createFile(temp, permissions: 0o644)
            defer { _ = try? directory.removeFile(temp) }
            do {
                defer { file.close() }
                try file.writeAll(Array(data))
                try file.sync()
            }
            do {
                try directory.link(temp, as: ReplicaRecord.name)
            } catch where error.errno == .fileExists {
                return false
            }
            try directory.sync()
            return true
        } catch {
            throw error.reported(.cantCreate, hint: "Check the replica directory \(path).")
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
