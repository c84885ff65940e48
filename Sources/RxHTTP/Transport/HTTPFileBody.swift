import Foundation

/// A request body read from a file as it is sent (`HTTPTransportRequest.Body.file`): its path, its
/// length when the request was built (sent as `Content-Length`), and who hears how far sending got.
///
/// A transport reads the file from its start on every attempt, in chunks, and calls
/// `didSend(_:)` with the bytes sent so far (URLSession's `didSendBodyData`, the AsyncHTTPClient
/// transport as it writes), so that an upload's progress follows the socket, not the disk.
///
/// - Note: A value type; `Sendable`. Two bodies are equal when they name the same file and length
///   (the progress observer is not compared).
public struct HTTPFileBody: Sendable, Hashable {
    /// The file.
    public let url: URL
    /// Its length in bytes.
    public let length: Int64
    private let progress: (@Sendable (Int64) -> Void)?

    /// Creates a file body.
    ///
    /// - Parameters:
    ///   - url: A file URL.
    ///   - length: The file's length, sent as `Content-Length`.
    ///   - progress: Told the bytes sent so far, from the transport's thread; nil for nobody.
    public init(url: URL, length: Int64, progress: (@Sendable (Int64) -> Void)? = nil) {
        self.url = url
        self.length = length
        self.progress = progress
    }

    /// Reports `bytesSent` (since the attempt began) to the observer, if any.
    ///
    /// - Parameter bytesSent: Bytes of the body handed to the network so far in this attempt.
    public func didSend(_ bytesSent: Int64) {
        progress?(bytesSent)
    }

    /// Same file, same length.
    public static func == (lhs: HTTPFileBody, rhs: HTTPFileBody) -> Bool {
        lhs.url == rhs.url && lhs.length == rhs.length
    }

    /// Hashes the file and the length.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(length)
    }
}
