import Crypto
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The run that made a temp file: its host, boot, PID namespace and pid,
/// written into the temp file's name, so that a later run removes it only
/// when it can prove that run is gone.
///
/// A directory may be shared by hosts (NFS) or by containers (a volume):
/// a pid means nothing on another host, or in another PID namespace. A
/// temp file is stale only when it was made on this host, and either
/// during an earlier boot (every process of that boot is gone), or in this
/// boot and PID namespace by a process that no longer exists. Anything
/// else is left alone.
struct TemporaryOwner: Equatable {
    /// The host name, with every character but letters, digits, `-` and
    /// `_` written `_` (so that `.` separates the fields).
    var host: String
    /// The first 8 hex digits of `/proc/sys/kernel/random/boot_id`.
    var boot: String
    /// The inode of `/proc/self/ns/pid`.
    var namespace: String
    var pid: Int32

    /// This process.
    static let current: TemporaryOwner = {
        let hostName = SystemProcess.hostName
        let host = String(String.UnicodeScalarView(hostName.unicodeScalars.prefix(64).map(sanitized)))
        let bootID = (try? FileSystem.contents("/proc/sys/kernel/random/boot_id")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let boot = String(bootID.filter(\.isHexDigit).prefix(8)).lowercased()
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? ""
        let namespace = String(link.filter(\.isNumber))
        return TemporaryOwner(
            host: host.isEmpty ? "unknown" : host, boot: boot.count == 8 ? boot : "00000000", namespace: namespace.isEmpty ? "0" : namespace,
            pid: SystemProcess.currentID)
    }()

    private static func sanitized(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_": scalar
        default: "_"
        }
    }

    /// `host.boot.namespace.pid`, as written in names.
    var tag: String { "\(host).\(boot).\(namespace).\(pid)" }

    /// Parses the tag at the start of `text`; returns it and what follows
    /// the `-` after it.
    static func parse(_ text: Substring) -> (TemporaryOwner, Substring)? {
        let fields = text.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, !fields[0].isEmpty, fields[1].count == 8, fields[1].allSatisfy(\.isHexDigit),
            !fields[2].isEmpty, fields[2].allSatisfy(\.isNumber)
        else { return nil }
        let pidText = fields[3].prefix { $0.isNumber }
        let rest = fields[3].dropFirst(pidText.count)
        guard let pid = Int32(pidText), rest.first == "-" else { return nil }
        return (TemporaryOwner(host: String(fields[0]), boot: String(fields[1]), namespace: String(fields[2]), pid: pid), rest.dropFirst())
    }

    /// True only when the run is provably gone (see the type's documentation).
    var isProvablyGone: Bool {
        let current = Self.current
        guard host == current.host else { return false }
        if boot != current.boot { return true }
        return namespace == current.namespace && pid != current.pid && !SystemProcess.exists(pid)
    }
}

/// The name of a temp file or directory of this process:
/// `<prefix><host>.<boot>.<pidns>.<pid>-<name>` (see ``TemporaryOwner``),
/// `name` shortened when the whole would pass a file name's 255 bytes.
func tempName(prefix: String, for name: String, suffix: String = "") -> String {
    boundedFileName("\(prefix)\(TemporaryOwner.current.tag)-", name, suffix)
}

/// `prefix + name + suffix`, as one file name: when it would pass the 255
/// bytes a file name may have, `name` is cut (at a character) and followed
/// by `~` and 12 hex digits of its SHA-256, so that two long names stay
/// apart.
func boundedFileName(_ prefix: String, _ name: String, _ suffix: String) -> String {
    let limit = 255
    let whole = prefix + name + suffix
    guard whole.utf8.count > limit else { return whole }
    let digest = "~" + String(SHA256.hash(data: Data(name.utf8)).hexString.prefix(12))
    let room = max(0, limit - prefix.utf8.count - suffix.utf8.count - digest.utf8.count)
    var kept = ""
    for character in name where kept.utf8.count + character.utf8.count <= room { kept.append(character) }
    return prefix + kept + digest + suffix
}

/// Removes the temp files and directories named by ``tempName(prefix:for:suffix:)``
/// whose run is provably gone (killed by SIGKILL, or a crash), and that
/// belong to the user running dbtool. Never follows a link; never touches a
/// name it did not make (what dbtool tells an operator to keep is named
/// otherwise).
func removeStaleTempFiles(in directory: String, prefix: String) {
    guard let parent = try? DirectoryDescriptor.open(directory) else { return }
    defer { parent.close() }
    let user = SystemProcess.effectiveUserID
    for entry in (try? parent.entries()) ?? [] {
        guard let name = entry.name, name.hasPrefix(prefix), let (owner, _) = TemporaryOwner.parse(name.dropFirst(prefix.count)),
            owner.isProvablyGone, let info = (try? parent.status(of: name)) ?? nil, info.owner == user
        else { continue }
        parent.removeTree(name)
    }
}
