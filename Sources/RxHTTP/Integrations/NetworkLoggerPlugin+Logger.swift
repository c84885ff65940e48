// Compiled with the package trait `Logging` only.
#if Logging
import Foundation
import Logging

extension NetworkLoggerPlugin {
    /// A logger that writes to a swift-log `Logger`, as the swift-server guidelines for libraries
    /// ask: `.debug`, one line per call when it ends (its outcome, duration and attempts); `.trace`,
    /// each attempt sent and answered, with headers and bodies if asked. Structured metadata, not
    /// interpolated text: `http.request.id`, `http.request.method`, `url.full` (redacted),
    /// `http.response.status_code`, `duration_ms`, `http.request.resend_count`, `error.type`.
    /// The same redaction as the sink-based logger: no secret reaches the log.
    ///
    /// ```swift
    /// let client = HTTPClient(baseURL: api, plugins: [NetworkLoggerPlugin(logger: Logger(label: "api"))])
    /// ```
    ///
    /// - Parameters:
    ///   - logger: Where the lines go; its level decides what is built at all.
    ///   - logsHeaders: Whether `.trace` lines carry the headers (redacted); default false.
    ///   - logsBodies: Whether `.trace` lines carry form and JSON bodies (redacted); default false.
    ///   - maxLoggedBodyCharacters: The longest body text logged; clamped to 0...65,536.
    ///   - redactedHeaders: Header names redacted besides the rule and the default list.
    ///   - redactedQueryParameters: Field names redacted besides the rule and the default list.
    public convenience init(
        logger: Logger,
        logsHeaders: Bool = false,
        logsBodies: Bool = false,
        maxLoggedBodyCharacters: Int = 1_024,
        redactedHeaders: Set<String> = [],
        redactedQueryParameters: Set<String> = []
    ) {
        self.init(
            output: .logger(LoggerOutput(logger)), logsHeaders: logsHeaders, logsBodies: logsBodies,
            maxLoggedBodyCharacters: maxLoggedBodyCharacters, redactedHeaders: redactedHeaders,
            redactedQueryParameters: redactedQueryParameters
        )
    }
}

/// The swift-log side of `NetworkLoggerPlugin`: what it writes, at which level, with which metadata.
struct LoggerOutput: Sendable {
    let logger: Logger

    init(_ logger: Logger) {
        self.logger = logger
    }

    var tracesAttempts: Bool {
        logger.logLevel <= .trace
    }

    var logsCalls: Bool {
        logger.logLevel <= .debug
    }

    func attempt(_ message: String, _ metadata: [String: String]) {
        logger.trace(Logger.Message(stringLiteral: message), metadata: metadata.mapValues { .string($0) })
    }

    func call(_ message: String, _ metadata: [String: String]) {
        logger.debug(Logger.Message(stringLiteral: message), metadata: metadata.mapValues { .string($0) })
    }
}
#endif
