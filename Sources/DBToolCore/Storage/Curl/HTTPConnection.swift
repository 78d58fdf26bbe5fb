internal import DBToolCurl
import FoundationEssentials

/// One HTTP request, as the object store client builds it.
struct HTTPRequest {
    var method: String
    var url: String
    /// Extra headers (`Name: value`), signed with the request.
    var headers: [String] = []
    /// The scope and key of its AWS signature; nil sends the request unsigned.
    var signing: SignatureV4?
    /// Stop the transfer (within about a second) once SIGINT or SIGTERM
    /// was received; false for the requests that clean up after one.
    var isInterruptible = true
    /// The longest the whole request may take, in seconds (nil: no limit
    /// but the stall timeout).
    var timeout: Int?
}

/// What came back: the status, the headers (names lowercased) and, unless
/// the caller streamed it, the body.
struct HTTPResponse {
    var status: Int
    var headers: [String: String] = [:]
    var body = Data()
}

/// A transfer that failed before an HTTP status came back: DNS, connection,
/// TLS, timeout. Always worth retrying.
struct HTTPTransportError: Error, CustomStringConvertible {
    var message: String
    /// The peer's TLS certificate was not trusted: retrying changes nothing.
    var isUntrustedCertificate = false
    var description: String { message }
}

/// The owner of one libcurl easy handle: the only type that calls `curl_*`.
///
/// The handle keeps its connection alive between requests (libcurl reuses
/// it), so a client makes one per thread and reuses it. A request with
/// ``HTTPRequest/signing`` gets its AWS Signature V4 headers here, at the
/// time it is sent (``SignatureV4``). Not thread-safe: a connection belongs
/// to one thread at a time.
final class HTTPConnection {
    private let handle: UnsafeMutableRawPointer

    /// `curl_global_init`, once per process, before the first handle.
    /// (3: CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32, CURL_GLOBAL_DEFAULT, a macro Swift does not import.)
    private static let globalInit: CURLcode = curl_global_init(3)

    /// The certificates TLS peers are checked against instead of the
    /// system's (`AWS_CA_BUNDLE`), or nil.
    private let caBundle: String?

    /// A connection checking TLS peers against `caBundle` (a PEM file), or
    /// against the system's certificates when nil.
    init(caBundle: String? = nil) throws {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw DBToolError(.software, "libcurl could not be initialized")
        }
        self.handle = handle
        self.caBundle = caBundle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    /// Seconds to wait for a connection, and for a stalled transfer to move.
    static let connectTimeout = 15
    static let stallTimeout = 60
    /// Bodies from this size wait for the server's "100 Continue" before
    /// they go (a refusal then costs no upload): parts and large objects.
    static let expectContinueSize = 1 << 20

    /// Sends `request` with `body` (nil: none) and returns the response. The
    /// body is collected in memory unless `receive` is given: it then gets
    /// the body of a 2xx response, chunk by chunk, and may throw to stop;
    /// the status and headers of that response come first, to `begin`.
    ///
    /// - throws: ``HTTPTransportError`` when no response came back, or what
    ///   `begin` or `receive` threw.
    func perform(
        _ request: HTTPRequest, body: UnsafeRawBufferPointer? = nil,
        begin: ((Int, [String: String]) throws -> Void)? = nil, receive: ((UnsafeRawBufferPointer) throws -> Void)? = nil
    ) throws -> HTTPResponse {
        curl_easy_reset(handle)
        let transfer = Transfer(body: body, begin: begin, receive: receive)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var headers = request.headers
        if let signing = request.signing { headers += signing.headers(for: request, time: time(nil)) }
        // A small body goes with its headers: libcurl would wait a round
        // trip (up to a second from a busy server) for "100 Continue" first.
        if (request.method == "PUT" || request.method == "POST") && (body?.count ?? 0) < Self.expectContinueSize {
            headers.append("Expect:")
        }
        for header in headers {
            guard let appended = curl_slist_append(headerList, header) else {
                throw DBToolError(.software, "libcurl could not allocate a header")
            }
            headerList = appended
        }
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_CONNECTTIMEOUT, Self.connectTimeout)
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, Self.stallTimeout)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        if let caBundle { try set(CURLOPT_CAINFO, caBundle) }
        if let timeout = request.timeout { try set(CURLOPT_TIMEOUT, timeout) }
        if request.isInterruptible {
            // libcurl calls it about once a second, and more often while data moves.
            try set(CURLOPT_NOPROGRESS, 0)
            try check(dbtool_curl_set_progress_callback(handle) { _, _, _, _, _ in Interruption.isRequested ? 1 : 0 })
        }
        try check(dbtool_curl_set_list(handle, CURLOPT_HTTPHEADER, headerList))
        switch request.method {
        case "GET": break
        case "HEAD": try set(CURLOPT_NOBODY, 1)
        case "PUT":
            try set(CURLOPT_UPLOAD, 1)
            try check(dbtool_curl_set_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(body?.count ?? 0)))
        case "POST":
            try set(CURLOPT_POST, 1)
            try check(dbtool_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body?.count ?? 0)))
        default: try set(CURLOPT_CUSTOMREQUEST, request.method)
        }
        if request.method == "PUT" || request.method == "POST" {
            try check(dbtool_curl_set_pointer(handle, CURLOPT_READDATA, context))
            try check(
                dbtool_curl_set_callback(handle, CURLOPT_READFUNCTION) { buffer, size, count, context in
                    guard let buffer, let context else { return 0 }
                    return Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().send(into: buffer, capacity: size * count)
                })
        }
        try check(dbtool_curl_set_pointer(handle, CURLOPT_HEADERDATA, context))
        try check(
            dbtool_curl_set_callback(handle, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
                guard let buffer, let context else { return 0 }
                Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue().header(UnsafeRawBufferPointer(start: buffer, count: size * count))
                return size * count
            })
        try check(dbtool_curl_set_pointer(handle, CURLOPT_WRITEDATA, context))
        try check(
            dbtool_curl_set_callback(handle, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
                guard let buffer, let context else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receive(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
            })
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            _ = dbtool_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            defer { _ = dbtool_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil) }
            return curl_easy_perform(handle)
        }
        if let failure = transfer.failure { throw failure }
        if code == CURLE_ABORTED_BY_CALLBACK && Interruption.isRequested { throw Interruption.error }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let summary = String(cString: curl_easy_strerror(code))
            throw HTTPTransportError(message: detail.isEmpty ? summary : detail, isUntrustedCertificate: code == CURLE_PEER_FAILED_VERIFICATION)
        }
        var status = 0
        try check(dbtool_curl_response_code(handle, &status))
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.collected)
    }

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(dbtool_curl_set_long(handle, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws {
        // libcurl copies string options (since 7.17).
        try check(value.withCString { dbtool_curl_set_string(handle, option, $0) })
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else {
            throw DBToolError(.software, "libcurl refused an option: \(String(cString: curl_easy_strerror(code)))")
        }
    }

    /// The state of one transfer, reached from libcurl's callbacks.
    private final class Transfer {
        let body: UnsafeRawBufferPointer?
        let begin: ((Int, [String: String]) throws -> Void)?
        let receiver: ((UnsafeRawBufferPointer) throws -> Void)?
        var began = false
        var sent = 0
        var headers: [String: String] = [:]
        var collected = Data()
        var status = 0
        var failure: (any Error)?

        init(body: UnsafeRawBufferPointer?, begin: ((Int, [String: String]) throws -> Void)?, receive: ((UnsafeRawBufferPointer) throws -> Void)?) {
            self.body = body
            self.begin = begin
            self.receiver = receive
        }

        func send(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
            guard let body, let base = body.baseAddress, sent < body.count else { return 0 }
            let count = min(capacity, body.count - sent)
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + sent, byteCount: count)
            sent += count
            return count
        }

        func header(_ line: UnsafeRawBufferPointer) {
            let text = String(decoding: line, as: UTF8.self).trimmingWhitespace()
            if text.hasPrefix("HTTP/") {
                // A new response (after a redirect or 100 Continue): start over.
                headers = [:]
                status = Int(text.split(separator: " ").dropFirst().first ?? "") ?? 0
            } else if let colon = text.firstIndex(of: ":") {
                let name = text[..<colon].lowercased()
                headers[name] = text[text.index(after: colon)...].trimmingSpaces()
            }
        }

        /// Streams a success's body to the receiver; collects anything else
        /// (error replies are small XML documents).
        func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
            guard let receiver, (200..<300).contains(status) else {
                collected.append(contentsOf: chunk)
                return collected.count <= 64 << 20
            }
            do {
                if !began {
                    began = true
                    try begin?(status, headers)
                }
                try receiver(chunk)
                return true
            } catch {
                failure = error
                return false
            }
        }
    }
}
