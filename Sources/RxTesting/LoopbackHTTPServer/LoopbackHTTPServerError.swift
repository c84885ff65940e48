/// Why `LoopbackHTTPServer.start()` could not start the server.
///
/// - Note: A plain value; thread-safe.
public enum LoopbackHTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another socket is already listening on 127.0.0.1:`port`.
    case addressInUse(port: UInt16)
    /// A socket call failed; `operation` names the call and `errno` is the OS error number.
    case socketFailure(operation: String, errno: Int32)

    /// A one-line description for test failure messages.
    public var description: String {
        switch self {
        case .addressInUse(let port):
            return "LoopbackHTTPServer: port \(port) on 127.0.0.1 is already in use"
        case .socketFailure(let operation, let code):
            return "LoopbackHTTPServer: \(operation) failed with errno \(code)"
        }
    }
}
