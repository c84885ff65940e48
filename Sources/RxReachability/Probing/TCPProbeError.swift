/// Why a TCP probe found its host unreachable.
///
/// - Note: A value type; `Sendable`, safe to pass between threads.
public struct TCPProbeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Hashable, Sendable {
        /// The host name did not resolve (`systemError` is the `getaddrinfo` code, or the `errno`
        /// when that code was `EAI_SYSTEM`), or resolved to no IPv4/IPv6 address.
        case resolutionFailed
        /// Every address refused or failed the connection (`systemError` is the last `errno`,
        /// e.g. `ECONNREFUSED`, `ENETUNREACH`).
        case connectFailed
        /// No address connected within the timeout (`systemError` is `ETIMEDOUT`).
        case timedOut
        /// A socket could not be created (`systemError` is the `errno`, e.g. `EMFILE`).
        case socketFailed
    }

    /// The kind of failure.
    public let code: Code
    /// The `errno` (or resolver code) behind the failure; 0 if there is none.
    public let systemError: Int32
    /// A human-readable explanation naming the host or address.
    public let message: String

    /// Creates an error; public so that custom `TCPProbing` implementations and test doubles can
    /// report the same failures.
    public init(code: Code, systemError: Int32 = 0, message: String) {
        self.code = code
        self.systemError = systemError
        self.message = message
    }

    /// The message.
    public var description: String {
        message
    }

    /// A probe that did not finish within `timeout` seconds.
    static func timedOut(host: String, port: UInt16, after timeout: Double) -> TCPProbeError {
        TCPProbeError(
            code: .timedOut, systemError: SocketCalls.timedOutErrno,
            message: "no connection to \(host):\(port) within \(timeout) s"
        )
    }
}
