import ArgumentParser
import DBToolCore

extension ServerSideEncryption: ExpressibleByArgument {}

/// How `backup --to` uploads: part size and concurrency, storage class and
/// server-side encryption of the objects.
struct UploadOptions: ParsableArguments {
    @Option(
        name: .long, parsing: .unconditional,
        help: ArgumentHelp("With --to: the upload's part size in MiB, 5 to 5120 (default 16).", valueName: "mib"))
    var partSize: Int = 16

    @Option(name: .long, parsing: .unconditional, help: "With --to: parts uploaded at once; memory holds one part more (default 4).")
    var uploadThreads: Int = 4

    @Option(name: .long, help: "With --to: the objects' storage class (STANDARD_IA, GLACIER_IR...; default: the bucket's).")
    var storageClass: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --to: server-side encryption of every object written: AES256, or aws:kms with the account's S3 key (default: the bucket's).",
            valueName: "algorithm"))
    var sse: ServerSideEncryption?

    @Option(
        name: .customLong("sse-kms-key-id"),
        help: ArgumentHelp("With --sse aws:kms: the KMS key (id, ARN or alias) instead of the account's S3 key.", valueName: "key"))
    var sseKMSKeyID: String?

    func validate() throws {
        if let sseKMSKeyID {
            if sse != .kms { throw ValidationError("--sse-kms-key-id works with --sse aws:kms") }
            if sseKMSKeyID.isEmpty || sseKMSKeyID.contains(where: { $0.isWhitespace || $0.isNewline }) {
                throw ValidationError("--sse-kms-key-id: not a KMS key id, ARN or alias: \(sseKMSKeyID.debugDescription)")
            }
        }
        if !(5...5120).contains(partSize) { throw ValidationError("--part-size must be from 5 to 5120 MiB (got \(partSize))") }
        if !(1...64).contains(uploadThreads) { throw ValidationError("--upload-threads must be from 1 to 64 (got \(uploadThreads))") }
    }
}
