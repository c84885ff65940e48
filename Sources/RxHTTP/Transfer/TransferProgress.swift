/// How far a download or an upload has got: bytes moved so far and, when known, how many there
/// are in all.
///
/// A transfer's progress is monotone (a download that starts over after the server changed the
/// file says nothing until it passes what it had reported) and its last value, on success, has
/// `bytes == expectedBytes` when the size was known.
///
/// - Note: A value type; `Sendable`.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes written to the file (a download) or sent (an upload) so far.
    public var bytes: Int64
    /// The whole size: from `Content-Length` or `Content-Range` (a download), the file's size (an
    /// upload); nil when unknown.
    public var expectedBytes: Int64?

    /// Creates a progress value.
    ///
    /// - Parameters:
    ///   - bytes: Bytes moved so far.
    ///   - expectedBytes: The whole size, if known.
    public init(bytes: Int64, expectedBytes: Int64?) {
        self.bytes = bytes
        self.expectedBytes = expectedBytes
    }

    /// The share done, 0...1, or nil when the size is unknown (or zero).
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, Double(bytes) / Double(expectedBytes))
    }

    /// `bytes/expectedBytes`, e.g. `65536/1048576 bytes`.
    public var description: String {
        "\(bytes)/\(expectedBytes.map(String.init) ?? "?") bytes"
    }
}
