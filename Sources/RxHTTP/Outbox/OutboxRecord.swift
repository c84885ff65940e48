import Foundation

/// The bytes of one outbox file: an entry (the request to deliver) or the outcome recorded for one.
///
/// Layout: the magic `RXNKOBX` (7 bytes), the format version (1 byte), the kind (1 byte: 1 an entry,
/// 2 an outcome), the payload's length (4 bytes, big-endian, at most `maxPayloadBytes`), the payload
/// (JSON), and an FNV-1a 64-bit checksum of everything before it (8 bytes, big-endian). A file is
/// written whole or not at all (`AtomicFile`), so a short, altered or foreign file is never one the
/// outbox wrote completely: `decode` names what is wrong with it and the outbox sets it aside.
enum OutboxRecord: Equatable {
    case entry(StoredEntry)
    case outcome(StoredOutcome)

    static let magic = Array("RXNKOBX".utf8)
    static let version: UInt8 = 1
    /// The largest payload: an entry's body (base64 in the JSON) and headers, with room to spare.
    static let maxPayloadBytes = 96 << 20
    static let headerBytes = magic.count + 1 + 1 + 4
    static let checksumBytes = 8

    /// Why a file is not a record the outbox wrote.
    enum Defect: Error, Equatable, CustomStringConvertible {
        /// Shorter than a record's frame, or shorter than its length says (a torn write).
        case truncated
        /// Not an outbox file: the magic is missing.
        case foreign
        /// Written by a newer (or unknown) version of the format.
        case unsupportedVersion(UInt8)
        /// A kind byte the format does not define.
        case unknownKind(UInt8)
        /// The length field passes `maxPayloadBytes`, or bytes follow the checksum.
        case badLength
        /// The checksum does not match: a flipped bit, an overwritten block.
        case checksumMismatch
        /// The frame is intact but the payload is not a valid entry or outcome.
        case malformed(String)

        var description: String {
            switch self {
            case .truncated: return "truncated (a torn write)"
            case .foreign: return "not an outbox record"
            case .unsupportedVersion(let version): return "format version \(version) is not supported"
            case .unknownKind(let kind): return "unknown record kind \(kind)"
            case .badLength: return "its length field does not match the file"
            case .checksumMismatch: return "checksum mismatch"
            case .malformed(let why): return "malformed payload: \(why)"
            }
        }
    }

    /// The file's bytes.
    ///
    /// - Throws: `malformed` when the payload passes `maxPayloadBytes` (nothing is written).
    func encoded() throws(Defect) -> Data {
        let kind: UInt8
        let json: Data
        do {
            switch self {
            case .entry(let entry):
                kind = 1
                json = try JSONEncoder().encode(entry)
            case .outcome(let outcome):
                kind = 2
                json = try JSONEncoder().encode(outcome)
            }
        } catch {
            throw .malformed("cannot be encoded")
        }
        guard json.count <= Self.maxPayloadBytes, let length = UInt32(exactly: json.count) else {
            throw .malformed("\(json.count) bytes pass the limit of \(Self.maxPayloadBytes)")
        }
        var bytes = Self.magic
        bytes.reserveCapacity(Self.headerBytes + json.count + Self.checksumBytes)
        bytes.append(Self.version)
        bytes.append(kind)
        for shift in stride(from: 24, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: length >> UInt32(shift)))
        }
        bytes += json
        let checksum = DiskCacheStore.fnv1a(bytes[...], basis: Self.checksumBasis)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: checksum >> UInt64(shift)))
        }
        return Data(bytes)
    }

    /// The record in `data`, checked: frame, version, length, checksum, then every field.
    static func decode(_ data: Data) throws(Defect) -> OutboxRecord {
        let bytes = [UInt8](data)
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else {
            throw bytes.count < magic.count && magic.starts(with: bytes) ? .truncated : .foreign
        }
        guard bytes.count >= headerBytes + checksumBytes else { throw .truncated }
        let version = bytes[magic.count]
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let kind = bytes[magic.count + 1]
        guard kind == 1 || kind == 2 else { throw .unknownKind(kind) }
        let length = bytes[(magic.count + 2)..<headerBytes].reduce(0) { $0 << 8 | Int($1) }
        guard length <= maxPayloadBytes else { throw .badLength }
        let end = headerBytes + length
        guard bytes.count >= end + checksumBytes else { throw .truncated }
        guard bytes.count == end + checksumBytes else { throw .badLength }
        let stored = bytes[end...].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard DiskCacheStore.fnv1a(bytes[0..<end], basis: checksumBasis) == stored else { throw .checksumMismatch }
        let payload = Data(bytes[headerBytes..<end])
        if kind == 1 {
            guard let entry = try? JSONDecoder().decode(StoredEntry.self, from: payload) else {
                throw .malformed("not an entry")
            }
            try entry.validate()
            return .entry(entry)
        }
        guard let outcome = try? JSONDecoder().decode(StoredOutcome.self, from: payload) else {
            throw .malformed("not an outcome")
        }
        try outcome.validate()
        return .outcome(outcome)
    }

    private static let checksumBasis: UInt64 = 0xcbf2_9ce4_8422_2325
}

/// An entry as the outbox keeps it: the request as the client built it (before the interceptors:
/// no credential an authenticator adds), its key, and what the call needs to send it again.
struct StoredEntry: Codable, Equatable {
    var id: UUID
    /// The order of enqueueing, across restarts: the FIFO of each host.
    var sequence: UInt64
    var idempotencyKey: String
    var enqueuedAt: Double
    var method: String
    var url: String
    /// The header lines in order, each `[name, value]`; the `Idempotency-Key` among them.
    var headers: [[String]]
    var body: Data
    var timeout: Double
    var path: String
    var requestName: String
    /// `basic`, `bearer` or `custom:<scheme>`; nil when the request declares none.
    var authorization: String?
    var declaresAuthorization: Bool
    var requiresAuthentication: Bool
    var bypassesSuspension: Bool

    /// Every field a delivery relies on, checked as a request from a caller would be.
    func validate() throws(OutboxRecord.Defect) {
        guard HeaderValidation.isValidToken(method) else { throw .malformed("method is not an HTTP token") }
        guard let url = URL(string: url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              url.host?.isEmpty == false else { throw .malformed("URL is not an absolute http(s) URL") }
        guard headers.allSatisfy({ $0.count == 2 }) else { throw .malformed("a header line is not a name and a value") }
        do {
            try HeaderValidation.validate(headerFields, url: nil)
        } catch {
            throw .malformed("a header is not valid")
        }
        guard headerFields[Idempotency.keyHeader] == idempotencyKey, !idempotencyKey.isEmpty else {
            throw .malformed("the Idempotency-Key header does not match the entry's key")
        }
        guard TimeoutBounds.clamped(timeout) == timeout, enqueuedAt.isFinite else { throw .malformed("a time is out of range") }
        if let authorization, authorizationType(authorization) == nil { throw .malformed("unknown authorization type") }
    }

    var headerFields: HTTPHeaders {
        HTTPHeaders(headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
    }

    var authorizationType: AuthorizationType? {
        authorization.flatMap(authorizationType)
    }

    private func authorizationType(_ text: String) -> AuthorizationType? {
        switch text {
        case "basic": return .basic
        case "bearer": return .bearer
        default:
            guard text.hasPrefix("custom:") else { return nil }
            let scheme = String(text.dropFirst("custom:".count))
            return HeaderValidation.isValidToken(scheme) ? .custom(scheme) : nil
        }
    }

    static func text(for authorization: AuthorizationType) -> String {
        switch authorization {
        case .basic: return "basic"
        case .bearer: return "bearer"
        case .custom(let scheme): return "custom:" + scheme
        }
    }
}

/// The outcome of an entry, recorded before the subscriber sees it: an answer (status, headers,
/// body) or a failure that ends the entry.
struct StoredOutcome: Codable, Equatable {
    struct Failure: Codable, Equatable {
        var code: String
        var message: String?
        var phase: String
        var attempts: Int
    }

    var id: UUID
    var statusCode: Int?
    var headers: [[String]]
    var body: Data
    var url: String?
    var failure: Failure?

    init(id: UUID, result: Result<HTTPResponse, HTTPClientError>) {
        self.id = id
        switch result {
        case .success(let response):
            statusCode = response.statusCode
            headers = response.headers.map { [$0.name, $0.value] }
            body = response.body
            url = response.url?.absoluteString
            failure = nil
        case .failure(let error):
            statusCode = error.statusCode
            headers = error.headers.map { $0.map { [$0.name, $0.value] } } ?? []
            body = error.body ?? Data()
            url = error.url?.absoluteString
            failure = Failure(code: error.code.rawValue, message: error.message, phase: error.phase.rawValue, attempts: error.attempts)
        }
    }

    func validate() throws(OutboxRecord.Defect) {
        if let statusCode, !(100...599).contains(statusCode) { throw .malformed("status code out of range") }
        guard headers.allSatisfy({ $0.count == 2 }) else { throw .malformed("a header line is not a name and a value") }
        if let failure {
            guard HTTPClientError.Code(rawValue: failure.code) != nil, HTTPClientError.Phase(rawValue: failure.phase) != nil,
                  failure.attempts >= 0 else { throw .malformed("unknown failure") }
        } else {
            guard statusCode != nil else { throw .malformed("an answer without a status") }
        }
    }

    /// The result it records.
    var result: Result<HTTPResponse, HTTPClientError> {
        let fields = HTTPHeaders(headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        let url = url.flatMap(URL.init(string:))
        guard let failure, let code = HTTPClientError.Code(rawValue: failure.code) else {
            return .success(HTTPResponse(statusCode: statusCode ?? 200, headers: fields, body: body, url: url))
        }
        var error = HTTPClientError(
            code, message: failure.message, statusCode: statusCode, body: statusCode == nil ? nil : body, url: url,
            headers: statusCode == nil ? nil : fields, phase: HTTPClientError.Phase(rawValue: failure.phase)
        )
        error.attempts = failure.attempts
        return .failure(error)
    }
}
