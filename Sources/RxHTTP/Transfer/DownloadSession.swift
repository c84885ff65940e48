import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One download across its connections: what the file holds, the validator that lets a later
/// connection resume it (RFC 9110 §13.1.5, §14), what each answer means for the file, when to
/// report progress and whether a failure is worth resuming.
///
/// Resuming sends `Range: bytes=N-` with `If-Range` (a strong ETag, else `Last-Modified`); a 206
/// whose `Content-Range` starts at N appends; a 200 (range ignored, or the validator changed)
/// starts the file over; a 416 means the file is whole when the server's length is N, and starts
/// over otherwise. Without a validator there is no resuming: the next connection starts over, so
/// that two versions are never spliced.
final class DownloadSession: Sendable {
    /// What lets a resumed request ask for "the rest of the same representation".
    enum Validator: Equatable {
        case etag(String)
        case lastModified(String)

        var value: String {
            switch self {
            case .etag(let value), .lastModified(let value): value
            }
        }
    }

    /// A connection ended before the body was whole: the next one resumes (a short body, a 206 that
    /// did not fit).
    struct Incomplete: Error, CustomStringConvertible {
        let description: String

        /// The failure as the client reports it when the policy gives up.
        var error: HTTPClientError {
            HTTPClientError(.invalidResponse, message: description, phase: .responded)
        }
    }

    private struct State {
        var file: DownloadFile
        var written: Int64 = 0
        var validator: Validator?
        var expected: Int64?
        /// The offset the current connection asked to resume from (nil: from the start).
        var requestedOffset: Int64?
        /// The current connection's head was accepted (a failure after it is the body's).
        var headAccepted = false
        var wroteThisConnection = false
        var failuresInARow = 0
        var progress = ProgressThrottle()
        var isFinished = false
    }

    private let maxFileSize: Int64
    private let scheduler: SchedulerType
    private let startedAt: Date
    private let state: LockedState<State>

    init(destination: URL, maxFileSize: Int64, scheduler: SchedulerType) {
        self.maxFileSize = maxFileSize
        self.scheduler = scheduler
        self.startedAt = scheduler.now
        self.state = LockedState<State>.make(State(file: DownloadFile(destination: destination)))
    }

    // MARK: Each connection

    /// The headers of the next connection: a range from what the file holds when a validator allows
    /// resuming; otherwise none, and the file starts over.
    ///
    /// - Throws: `.fileSystem` when the file cannot be emptied.
    func nextRequestHeaders() throws -> [String: String] {
        try state.withLock { state throws -> [String: String] in
            state.headAccepted = false
            state.wroteThisConnection = false
            guard state.written > 0 else {
                state.requestedOffset = nil
                return [:]
            }
            guard let validator = state.validator else {
                try Self.startOver(&state)
                return [:]
            }
            state.requestedOffset = state.written
            return ["Range": "bytes=\(state.written)-", "If-Range": validator.value]
        }
    }

    /// Decides about an accepted head: nil to read its body into the file, or why not.
    func accept(_ head: HTTPResponseHead) -> HTTPClientError? {
        state.withLock { state -> HTTPClientError? in
            if head.statusCode == 206 {
                let contentRange = head.headers["Content-Range"].flatMap(ContentRange.init)
                guard let offset = state.requestedOffset, let range = contentRange?.range, range.lowerBound == offset else {
                    // Not the rest of what the file holds: never spliced; the next connection starts over.
                    try? Self.startOver(&state)
                    return HTTPClientError(
                        .invalidResponse, message: "a 206 whose Content-Range does not continue the file",
                        statusCode: 206, url: head.url, headers: head.headers, phase: .responded
                    )
                }
                state.expected = contentRange?.completeLength ?? (range.upperBound + 1)
            } else {
                // A whole representation (a 200: no range asked, the range ignored, or the file changed).
                if state.written > 0 {
                    do throws(HTTPClientError) {
                        try Self.startOver(&state)
                    } catch {
                        return error
                    }
                }
                state.validator = Self.validator(of: head.headers)
                state.expected = head.headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
                    .flatMap { $0 >= 0 ? $0 : nil }
            }
            if let expected = state.expected, expected > maxFileSize {
                return HTTPClientError(
                    .fileSystem, message: "the download's \(expected) bytes pass the limit of \(maxFileSize)",
                    statusCode: head.statusCode, url: head.url, phase: .responded
                )
            }
            state.headAccepted = true
            return nil
        }
    }

    /// Writes a chunk of the body; returns the progress to report, if it is time.
    ///
    /// - Throws: `.fileSystem` when the file cannot be written or passes `maxFileSize`.
    func write(_ chunk: Data) throws -> TransferProgress? {
        try state.withLock { state throws -> TransferProgress? in
            let size = Int64(chunk.count)
            guard state.written + size <= maxFileSize else {
                throw HTTPClientError(.fileSystem, message: "the download passed the limit of \(maxFileSize) bytes", phase: .responded)
            }
            try state.file.append(chunk)
            state.written += size
            if size > 0 { state.wroteThisConnection = true }
            return state.progress.next(state.written, expected: state.expected, now: scheduler.now)
        }
    }

    /// The body ended: checks it is whole, then moves the file into place. Returns the last progress
    /// (nil when the last chunk reported it already).
    ///
    /// - Throws: `Incomplete` (resumable) for a body shorter than announced; `.fileSystem`.
    func finish() throws -> TransferProgress? {
        try state.withLock { state throws -> TransferProgress? in
            if let expected = state.expected, state.written != expected {
                throw Incomplete(description: "the body ended at \(state.written) of \(expected) bytes")
            }
            try state.file.commit()
            state.isFinished = true
            return state.progress.last(state.written, expected: state.expected ?? state.written)
        }
    }

    /// A 416 to a resumed request whose `Content-Range: bytes */N` says the file is already whole.
    func isWholeAfter(_ error: HTTPClientError) -> Bool {
        guard error.statusCode == 416 else { return false }
        return state.withLock { state in
            guard let offset = state.requestedOffset,
                  let length = error.headers?["Content-Range"].flatMap(ContentRange.init)?.completeLength
            else { return false }
            return length == offset
        }
    }

    /// Removes the temporary file (a download that failed or was disposed); nothing at the
    /// destination is touched.
    func discard() {
        state.withLock { state in
            guard !state.isFinished else { return }
            state.file.discard()
        }
    }

    // MARK: Between connections

    /// The seconds to wait before the next connection after `failure`, or nil to fail the download:
    /// the client's retry policy decides (`shouldRetry`, its delays, `maxAttempts` counting
    /// connections in a row that wrote nothing, its deadline over the whole download). A failure
    /// before the head is the call's, which already retried under the same policy; a 416 that does
    /// not say the file is whole starts over at once.
    func resumeWait(after failure: Error, policy: RetryPolicy, method: HTTPMethod) -> TimeInterval? {
        let now = scheduler.now
        return state.withLock { state -> TimeInterval? in
            let error: HTTPClientError
            switch failure {
            case let incomplete as Incomplete:
                error = incomplete.error
            case let failure as HTTPClientError:
                error = failure
            default:
                return nil
            }
            let resumable: Bool
            if error.statusCode == 416, state.requestedOffset != nil {
                resumable = (try? Self.startOver(&state)) != nil
            } else if error.code == .bufferOverflow || failure is Incomplete {
                resumable = true
            } else if error.code == .invalidResponse, error.statusCode == 206 {
                resumable = true
            } else {
                resumable = state.headAccepted && policy.shouldRetry(error, method: method)
            }
            guard resumable else { return nil }
            state.failuresInARow = state.wroteThisConnection ? 1 : state.failuresInARow + 1
            guard state.failuresInARow < max(1, policy.maxAttempts) else { return nil }
            let wait = policy.delay(beforeRetry: state.failuresInARow, after: error, now: now)
            if let deadline = policy.deadline, now.timeIntervalSince(startedAt) + wait > deadline { return nil }
            return wait
        }
    }

    // MARK: Rules

    private static func startOver(_ state: inout State) throws(HTTPClientError) {
        try state.file.truncate()
        state.written = 0
        state.validator = nil
        state.expected = nil
        state.requestedOffset = nil
    }

    /// A strong ETag (a weak one cannot ask for a range, §13.1.5), else `Last-Modified`.
    static func validator(of headers: HTTPHeaders) -> Validator? {
        if let etag = headers["ETag"]?.trimmingCharacters(in: .whitespaces), etag.hasPrefix("\""), etag.count >= 2,
           HeaderValidation.isValidValue(etag) {
            return .etag(etag)
        }
        if let modified = headers["Last-Modified"]?.trimmingCharacters(in: .whitespaces), !modified.isEmpty,
           HeaderValidation.isValidValue(modified) {
            return .lastModified(modified)
        }
        return nil
    }
}
