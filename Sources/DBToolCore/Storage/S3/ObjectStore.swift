import Crypto
import FoundationEssentials

/// A client of one S3-compatible object store: the requests dbtool makes
/// (list, head, ranged get, multipart upload, copy, delete), each retried
/// with backoff on network errors, 5xx and SlowDown, and each failure
/// turned into a ``DBToolError`` that names the endpoint and the S3 error
/// code (never a credential).
///
/// Owns one ``HTTPConnection``: confined to one thread. Upload workers
/// each make their own from its ``configuration``.
final class ObjectStore {
    /// What a store needs to make its requests: sent to other threads,
    /// which make stores of their own from it.
    struct Configuration: Sendable {
        var endpoint: ObjectEndpoint
        /// The key of each request, refreshed ahead of its expiry; shared
        /// by the stores of every thread.
        var credentials: CredentialProvider
        var retries: Int
        /// The PEM file TLS endpoints are checked against, or nil for the system's.
        var caBundle: String? = nil
    }

    let configuration: Configuration
    private let connection: HTTPConnection
    var endpoint: ObjectEndpoint { configuration.endpoint }
    private var credentials: CredentialProvider { configuration.credentials }
    private var retries: Int { configuration.retries }

    /// Resolves the credentials and the endpoint (no request is made).
    convenience init(_ options: ObjectStoreOptions) throws {
        let profile = try AWSProfile(option: options.profile, environment: options.environment)
        let endpoint = try ObjectEndpoint(options, profile: profile)
        let caBundle = try Self.caBundle(options, profile: profile)
        let credentials = try CredentialChain.provider(options, profile: profile, caBundle: caBundle)
        try self.init(Configuration(endpoint: endpoint, credentials: credentials, retries: max(0, options.retries), caBundle: caBundle))
    }

    /// A store on a connection of its own.
    init(_ configuration: Configuration) throws {
        self.configuration = configuration
        connection = try HTTPConnection(caBundle: configuration.caBundle)
    }

    /// `--ca-bundle`, else `AWS_CA_BUNDLE`, else the profile's `ca_bundle`,
    /// checked to be a file dbtool can read (66 or 77 naming it and its source).
    static func caBundle(_ options: ObjectStoreOptions, profile: AWSProfile) throws -> String? {
        let variable = options.environment.awsVariable("AWS_CA_BUNDLE")
        let found: (path: String, source: String)? =
            options.caBundle.map { ($0, "--ca-bundle") } ?? variable.map { ($0, "AWS_CA_BUNDLE") }
            ?? profile.config?["ca_bundle"].map { ($0, "ca_bundle of the \(profile.description)") }
        guard let found else { return nil }
        do {
            let (descriptor, _) = try FileDescriptor.openRegularFile(found.path)
            descriptor.close()
        } catch let error as FileSystemError {
            throw DBToolError(
                error.errno == .noSuchFileOrDirectory ? .noInput : .noPermission,
                "can not read the CA bundle \(found.path) (from \(found.source)): \(error.errno)",
                hint: "Give the PEM file of the certificates that sign the endpoint's.")
        }
        return found.path
    }

    /// Seconds before the first retry; doubled at each, up to ``maximumBackoff``.
    static let initialBackoff = 0.25
    static let maximumBackoff = 8.0

    // MARK: - Requests

    /// An object of a listing.
    struct ListedObject: Equatable {
        var key: String
        var size: Int64
        var lastModified: String
    }

    /// The objects whose key starts with `prefix`, in key order
    /// (ListObjectsV2, page after page): only the keys after `startAfter`
    /// when given, and only those before `endBefore`, where paging stops.
    func list(bucket: String, prefix: String, startAfter: String? = nil, endBefore: String? = nil) throws -> [ListedObject] {
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix)]
            if let token {
                query.append(("continuation-token", token))
            } else if let startAfter {
                query.append(("start-after", startAfter))
            }
            let response = try send("listing s3://\(bucket)/\(prefix)", "GET", bucket: bucket, key: "", query: query)
            guard let root = XMLNode.parse(response.body), root.name == "ListBucketResult" else {
                throw unreadable("the listing of s3://\(bucket)/\(prefix)")
            }
            for content in root.all("Contents") {
                guard let key = content["Key"] else { continue }
                // S3 orders keys by their UTF-8 bytes.
                if let endBefore, !key.utf8.lexicographicallyPrecedes(endBefore.utf8) { return objects }
                objects.append(ListedObject(key: key, size: Int64(content["Size"] ?? "") ?? 0, lastModified: content["LastModified"] ?? ""))
            }
            token = root["IsTruncated"] == "true" ? root["NextContinuationToken"] : nil
        } while token != nil
        return objects
    }

    /// An object's size, entity tag, time and user metadata (`x-amz-meta-*`,
    /// without the prefix), or nil when there is no such object.
    struct ObjectInfo {
        var size: Int64
        var etag: String
        var metadata: [String: String]
        /// `Last-Modified`, as the store gives it (an HTTP date).
        var lastModified: String = ""
    }

    func head(_ location: ObjectLocation) throws -> ObjectInfo? {
        let response = try send("reading \(location)", "HEAD", bucket: location.bucket, key: location.key, accept: [404])
        if response.status == 404 { return nil }
        var metadata: [String: String] = [:]
        for (name, value) in response.headers where name.hasPrefix("x-amz-meta-") {
            metadata[String(name.dropFirst("x-amz-meta-".count))] = value
        }
        return ObjectInfo(
            size: Int64(response.headers["content-length"] ?? "") ?? 0, etag: response.headers["etag"] ?? "", metadata: metadata,
            lastModified: response.headers["last-modified"] ?? "")
    }

    /// The bytes `range` of an object, as long as its entity tag is `etag`.
    func get(_ location: ObjectLocation, range: Range<Int64>, etag: String) throws -> Data {
        let response = try send(
            "reading \(location)", "GET", bucket: location.bucket, key: location.key,
            headers: ["Range: bytes=\(range.lowerBound)-\(range.upperBound - 1)", "If-Match: \(etag)"], accept: [412])
        if response.status == 412 {
            throw DBToolError(
                .dataError, "\(location) was replaced while it was being read", hint: "Run the command again: it reads the new object.")
        }
        guard response.body.count == range.count else {
            throw DBToolError(.tempFail, "reading \(location) returned \(response.body.count) bytes instead of \(range.count)")
        }
        return response.body
    }

    /// The first `length` bytes of an object, with its size and entity tag
    /// (from `Content-Range` and `ETag`): a reading that needs no HEAD.
    ///
    /// - throws: ``DBToolError`` 66 when there is no such object.
    func getFirst(_ location: ObjectLocation, length: Int) throws -> (data: Data, size: Int64, etag: String) {
        let response = try send(
            "reading \(location)", "GET", bucket: location.bucket, key: location.key, headers: ["Range: bytes=0-\(length - 1)"],
            accept: [404, 416])
        if response.status == 404 { throw DBToolError(.noInput, "no object \(location)") }
        let etag = response.headers["etag"] ?? ""
        if response.status == 416 { return (Data(), 0, etag) }  // an empty object
        // `bytes 0-1023/2048`; a server that ignores the range sends the whole object.
        let total = response.headers["content-range"].flatMap { $0.split(separator: "/").last.flatMap { Int64($0) } }
        return (response.body, total ?? Int64(response.body.count), etag)
    }

    /// Writes a whole object in one request (an archive smaller than a
    /// part, a record); the store checks its SHA-256. A write that is not
    /// `interruptible` (it publishes a complete archive, or its record) goes
    /// on through SIGINT and SIGTERM, bounded.
    func putObject(_ location: ObjectLocation, body: UnsafeRawBufferPointer, headers: [String] = [], interruptible: Bool = true) throws {
        let digest = SHA256.hash(data: body)
        let contentType = headers.contains { $0.lowercased().hasPrefix("content-type:") } ? [] : ["Content-Type: application/octet-stream"]
        _ = try send(
            "writing \(location)", "PUT", bucket: location.bucket, key: location.key,
            headers: headers + contentType + ["x-amz-checksum-sha256: \(Data(digest).base64EncodedString())"], body: body,
            payloadHash: digest.hexString, interruptible: interruptible)
    }

    /// Writes a whole object unless one exists under its key (`If-None-Match:
    /// *`): the store decides, so that of two writers racing only one
    /// succeeds. Returns false when an object was already there.
    func putObjectIfAbsent(_ location: ObjectLocation, body: UnsafeRawBufferPointer, headers: [String] = []) throws -> Bool {
        let digest = SHA256.hash(data: body)
        let response = try send(
            "writing \(location)", "PUT", bucket: location.bucket, key: location.key,
            headers: headers + ["If-None-Match: *", "x-amz-checksum-sha256: \(Data(digest).base64EncodedString())"], body: body,
            payloadHash: digest.hexString, accept: [409, 412], interruptible: false)
        // 412: an object is there; 409: another conditional write of the key is under way.
        return !(response.status == 412 || response.status == 409)
    }

    /// The whole of a small object, at most `limit` bytes; nil when there is
    /// no such object.
    func getSmall(_ location: ObjectLocation, limit: Int) throws -> Data? {
        let response = try send("reading \(location)", "GET", bucket: location.bucket, key: location.key, accept: [404])
        if response.status == 404 { return nil }
        guard response.body.count <= limit else { return nil }
        return response.body
    }

    /// Copies an object to another key of its bucket (CopyObject: objects
    /// up to ``singleCopyLimit``), with `headers` added to the request.
    func copy(_ source: ObjectLocation, to destination: ObjectLocation, headers: [String] = [], interruptible: Bool = true) throws {
        let path = source.key.split(separator: "/").map { ObjectEndpoint.encode(String($0)) }.joined(separator: "/")
        let response = try send(
            "copying \(source) to \(destination)", "PUT", bucket: destination.bucket, key: destination.key,
            headers: ["x-amz-copy-source: /\(source.bucket)/\(path)"] + headers, interruptible: interruptible)
        if let root = XMLNode.parse(response.body), root.name == "Error" {
            throw failure(HTTPResponse(status: 500, body: response.body), "copying \(source) to \(destination)")
        }
    }

    func delete(_ location: ObjectLocation, interruptible: Bool = true) throws {
        _ = try send("deleting \(location)", "DELETE", bucket: location.bucket, key: location.key, interruptible: interruptible)
    }

    /// Starts a multipart upload whose parts carry SHA-256 checksums.
    func createMultipartUpload(_ location: ObjectLocation, headers: [String]) throws -> String {
        let response = try send(
            "starting the upload of \(location)", "POST", bucket: location.bucket, key: location.key, query: [("uploads", "")],
            headers: headers + ["x-amz-checksum-algorithm: SHA256"]
                + (headers.contains { $0.lowercased().hasPrefix("content-type:") } ? [] : ["Content-Type: application/octet-stream"]))
        guard let root = XMLNode.parse(response.body), let id = root["UploadId"], !id.isEmpty else {
            throw unreadable("the reply to the start of the upload of \(location)")
        }
        return id
    }

    /// A part uploaded: its number, entity tag and SHA-256 (base64).
    struct UploadedPart: Sendable {
        var number: Int
        var etag: String
        var checksum: String
    }

    /// Uploads part `number` (from 1); the store checks its SHA-256.
    func uploadPart(_ location: ObjectLocation, uploadId: String, number: Int, body: UnsafeRawBufferPointer) throws -> UploadedPart {
        let digest = SHA256.hash(data: body)
        let checksum = Data(digest).base64EncodedString()
        let response = try send(
            "uploading part \(number) of \(location)", "PUT", bucket: location.bucket, key: location.key,
            query: [("partNumber", String(number)), ("uploadId", uploadId)],
            headers: ["x-amz-checksum-sha256: \(checksum)", "Content-Type: application/octet-stream"], body: body, payloadHash: digest.hexString)
        guard let etag = response.headers["etag"] else { throw unreadable("the reply to part \(number) of \(location)") }
        return UploadedPart(number: number, etag: etag, checksum: checksum)
    }

    /// Makes the object whole under its key: before this, it does not exist.
    /// Not stopped by SIGINT or SIGTERM (bounded once one arrived): an
    /// interrupted completion would leave it unknown whether the object exists.
    func completeMultipartUpload(_ location: ObjectLocation, uploadId: String, parts: [UploadedPart]) throws {
        var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts.sorted(by: { $0.number < $1.number }) {
            xml += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(Self.escape(part.etag))</ETag>"
            xml += "<ChecksumSHA256>\(part.checksum)</ChecksumSHA256></Part>"
        }
        xml += "</CompleteMultipartUpload>"
        let response = try Data(xml.utf8).withUnsafeBytes { body in
            try send(
                "completing the upload of \(location)", "POST", bucket: location.bucket, key: location.key, query: [("uploadId", uploadId)],
                headers: ["Content-Type: application/xml"], body: body, interruptible: false)
        }
        // S3 can answer 200 with an error document, once the work took long.
        if let root = XMLNode.parse(response.body), root.name == "Error" {
            throw failure(HTTPResponse(status: 500, body: response.body), "completing the upload of \(location)")
        }
    }

    /// Cancels an upload: the store drops its parts. After SIGINT or
    /// SIGTERM the request is still sent, but bounded: at most
    /// ``cleanupTimeout`` seconds, one retry.
    func abortMultipartUpload(_ location: ObjectLocation, uploadId: String) throws {
        _ = try send(
            "aborting the upload of \(location)", "DELETE", bucket: location.bucket, key: location.key, query: [("uploadId", uploadId)],
            accept: [404], cleanup: Interruption.isRequested)
    }

    /// The longest a clean-up request made after an interruption takes.
    static let cleanupTimeout = 5

    /// The multipart uploads in progress (or abandoned) under `prefix`.
    func multipartUploads(bucket: String, prefix: String) throws -> [(key: String, uploadId: String)] {
        var uploads: [(String, String)] = []
        var markers: (key: String, id: String)?
        repeat {
            var query = [("uploads", ""), ("prefix", prefix)]
            if let markers { query += [("key-marker", markers.key), ("upload-id-marker", markers.id)] }
            let response = try send("listing the uploads under s3://\(bucket)/\(prefix)", "GET", bucket: bucket, key: "", query: query)
            guard let root = XMLNode.parse(response.body) else { throw unreadable("the list of uploads under s3://\(bucket)/\(prefix)") }
            for upload in root.all("Upload") {
                if let key = upload["Key"], let id = upload["UploadId"] { uploads.append((key, id)) }
            }
            if root["IsTruncated"] == "true", let key = root["NextKeyMarker"], let id = root["NextUploadIdMarker"] {
                markers = (key, id)
            } else {
                markers = nil
            }
        } while markers != nil
        return uploads
    }

    /// The largest object a single CopyObject copies: 5 GiB.
    static let singleCopyLimit: Int64 = 5 << 30

    // MARK: - Sending, retrying, reporting

    /// Sends one request, retrying what is worth retrying; returns a 2xx
    /// response, or one whose status is in `accept`.
    ///
    /// A `cleanup` request (sent after SIGINT or SIGTERM, to leave nothing
    /// behind) is not itself stopped by the interruption, but is bounded:
    /// ``cleanupTimeout`` seconds, one retry. A request that is not
    /// `interruptible` (one that publishes an object: its outcome must be
    /// known) is not stopped by an interruption either; once one arrived, its
    /// retries are bounded as a clean-up's.
    /// A streamed read that broke after some bytes came: the caller goes
    /// on from where it stopped (``read(_:from:etag:begin:receive:)``).
    struct TransferBroken: Error {
        var error: HTTPTransportError
    }

    /// Reads the object from byte `offset` to its end in one request,
    /// streaming it into `receive`: `begin` gets the object's size and
    /// entity tag before the first byte. `etag` (when known) makes the store
    /// refuse an object replaced meanwhile. Failures before the first byte
    /// are retried here; a transfer broken midway throws ``TransferBroken``,
    /// for the caller to go on from where it stopped.
    ///
    /// - throws: ``DBToolError`` 66 when there is no such object, 65 when it
    ///   was replaced.
    func read(
        _ location: ObjectLocation, from offset: Int64, etag: String?, begin: (Int64, String) throws -> Void,
        receive: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        // The closures live only as long as the request.
        try withoutActuallyEscaping(begin) { begin in
            try withoutActuallyEscaping(receive) { receive in
                try read(location, from: offset, etag: etag, escapingBegin: begin, escapingReceive: receive)
            }
        }
    }

    private func read(
        _ location: ObjectLocation, from offset: Int64, etag: String?, escapingBegin begin: @escaping (Int64, String) throws -> Void,
        escapingReceive receive: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var headers: [String] = []
        if offset > 0 { headers.append("Range: bytes=\(offset)-") }
        if let etag { headers.append("If-Match: \(etag)") }
        // A store that ignores the range sends the whole object: skip what we have.
        var skip: Int64 = 0
        var began = false
        let started = { (status: Int, headers: [String: String]) throws in
            began = true
            let tag = headers["etag"] ?? ""
            if status == 206, let total = headers["content-range"]?.split(separator: "/").last.flatMap({ Int64($0) }) {
                try begin(total, tag)
            } else {
                skip = offset
                try begin(headers["content-length"].flatMap { Int64($0) } ?? 0, tag)
            }
        }
        let response = try send(
            "reading \(location)", "GET", bucket: location.bucket, key: location.key, headers: headers, accept: [404, 412, 416],
            begin: started,
            receive: { bytes in
                if skip >= Int64(bytes.count) {
                    skip -= Int64(bytes.count)
                    return
                }
                try receive(UnsafeRawBufferPointer(rebasing: bytes[Int(skip)...]))
                skip = 0
            })
        switch response.status {
        case 404: throw DBToolError(.noInput, "no object \(location)")
        case 412: throw DBToolError(.dataError, "\(location) was replaced while it was being read", hint: "Run the command again: it reads the new object.")
        default:
            // No byte came (an empty object, or none from `offset` on: 416):
            // `begin` still learns where the object ends.
            if !began { try begin(offset, response.headers["etag"] ?? etag ?? "") }
        }
    }

    private func send(
        _ what: String, _ method: String, bucket: String, key: String, query: [(String, String)] = [], headers: [String] = [],
        body: UnsafeRawBufferPointer? = nil, payloadHash: String? = nil, accept: Set<Int> = [], cleanup: Bool = false,
        interruptible: Bool = true, begin: ((Int, [String: String]) throws -> Void)? = nil,
        receive: ((UnsafeRawBufferPointer) throws -> Void)? = nil
    ) throws -> HTTPResponse {
        var request = HTTPRequest(method: method, url: endpoint.url(bucket: bucket, key: key, query: query))
        let cleanup = cleanup || (!interruptible && Interruption.isRequested)
        if cleanup || !interruptible { request.isInterruptible = false }
        if cleanup { request.timeout = Self.cleanupTimeout }
        let retries = cleanup ? min(self.retries, 1) : self.retries
        let hash = payloadHash ?? SHA256.hash(data: body ?? UnsafeRawBufferPointer(start: nil, count: 0)).hexString
        var attempt = 0
        var refreshed = false
        while true {
            if !cleanup && interruptible { try Interruption.check() }
            let signer = try credentials.current()
            request.headers = headers + ["x-amz-content-sha256: \(hash)"]
            if let token = signer.sessionToken { request.headers.append("x-amz-security-token: \(token)") }
            request.signing = SignatureV4(
                region: endpoint.region, service: "s3", accessKeyId: signer.accessKeyId, secretAccessKey: signer.secretAccessKey)
            let outcome: Result<HTTPResponse, HTTPTransportError>
            var delivered = false
            do {
                if let receive {
                    outcome = .success(
                        try connection.perform(
                            request, body: body, begin: begin,
                            receive: { bytes in
                                delivered = true
                                try receive(bytes)
                            }))
                } else {
                    outcome = .success(try connection.perform(request, body: body))
                }
            } catch let error as HTTPTransportError {
                // Bytes already went to the receiver: the caller goes on from there.
                if delivered { throw TransferBroken(error: error) }
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let response) where (200..<300).contains(response.status) || accept.contains(response.status):
                return response
            case .success(let response) where !refreshed && Self.refusesKey(response) && credentials.discard(signer):
                // A temporary key expired early (a clock off) or was revoked: once, with a new one.
                refreshed = true
                continue
            case .success(let response) where !Self.isRetryable(response) || attempt >= retries:
                throw failure(response, what, attempts: attempt + 1)
            case .failure(let error) where error.isUntrustedCertificate:
                throw DBToolError(
                    .noPermission, "\(what) failed: the certificate of \(endpoint.base) is not trusted (\(error))",
                    hint: "If the endpoint's certificate is signed by a private CA, pass its PEM file with --ca-bundle (or AWS_CA_BUNDLE).")
            case .failure(let error) where attempt >= retries:
                throw DBToolError(
                    .tempFail, "\(what) failed: no answer from the object store at \(endpoint.base) after \(attempt + 1) attempts (\(error))",
                    hint: "Check the endpoint, the network and the store, then run the command again.")
            default:
                attempt += 1
                let delay = min(Self.maximumBackoff, Self.initialBackoff * Double(1 << min(attempt - 1, 10)))
                if cleanup {
                    WorkerThreads.pause(seconds: min(delay, 0.5))
                } else if !interruptible {
                    WorkerThreads.pause(seconds: delay * Double.random(in: 0.5...1))
                } else {
                    try Interruption.sleep(seconds: delay * Double.random(in: 0.5...1))
                }
            }
        }
    }

    /// Whether the store refused the key itself as expired or unknown.
    private static func refusesKey(_ response: HTTPResponse) -> Bool {
        guard response.status == 400 || response.status == 403 else { return false }
        let code = XMLNode.parse(response.body)?["Code"]
        return code == "ExpiredToken" || code == "TokenRefreshRequired" || code == "InvalidAccessKeyId" || code == "InvalidToken"
    }

    private static func isRetryable(_ response: HTTPResponse) -> Bool {
        if response.status >= 500 || response.status == 429 { return true }
        let code = XMLNode.parse(response.body)?["Code"]
        return code == "SlowDown" || code == "RequestTimeout"
    }

    /// The error for a response that is not a success.
    private func failure(_ response: HTTPResponse, _ what: String, attempts: Int = 1) -> DBToolError {
        let document = XMLNode.parse(response.body)
        let code = document?["Code"] ?? "HTTP \(response.status)"
        let message = document?["Message"].map { ": \($0)" } ?? ""
        let said = "the object store at \(endpoint.base) answered \(code)\(message)"
        switch code {
        case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired",
            "AllAccessDisabled", "AccountProblem":
            return DBToolError(
                .noPermission, "\(what) was refused: \(said)",
                hint: "Check the credentials (\(credentials)) and that the key may use this bucket (docs/off-site.md: the IAM policy).")
        case "NoSuchBucket":
            return DBToolError(.noInput, "\(what) failed: \(said)", hint: "Create the bucket, or check the URL and --endpoint.")
        case "NoSuchKey":
            return DBToolError(.noInput, "\(what) failed: no such object", hint: "List the archives with `dbtool backup list`.")
        case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException":
            return DBToolError(
                .usage, "\(what) failed: \(said)", hint: "The bucket is in another region: pass its region with --region (or AWS_REGION).")
        case "InvalidStorageClass", "InvalidArgument", "InvalidBucketName", "KeyTooLongError":
            return DBToolError(.usage, "\(what) failed: \(said)")
        default:
            if response.status == 403 {
                return DBToolError(.noPermission, "\(what) was refused: \(said)", hint: "Check the credentials (\(credentials)).")
            }
            if response.status == 404 && response.body.isEmpty {
                return DBToolError(.noInput, "\(what) failed: not found at \(endpoint.base)")
            }
            if response.status >= 500 || response.status == 429 || code == "SlowDown" {
                return DBToolError(
                    .tempFail, "\(what) failed after \(attempts) attempts: \(said)", hint: "The store is busy or failing: run the command again later.")
            }
            // Retried by a service: a store that answers out of turn may come right.
            return DBToolError(.ioError, "\(what) failed: \(said)", transient: true)
        }
    }

    private func unreadable(_ what: String) -> DBToolError {
        DBToolError(.tempFail, "\(what) from \(endpoint.base) is not the XML document S3 sends", hint: "Check --endpoint: is it an S3 API?")
    }

    private static func escape(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("\"", with: "&quot;")
            .replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}
