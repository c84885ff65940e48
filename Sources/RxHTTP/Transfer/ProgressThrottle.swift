import Foundation

/// Which progress values of a transfer go out: monotone (a transfer that starts over says nothing
/// until it passes what it reported), at most every 64 KiB or 100 ms, and the last one always —
/// once: never the same value twice.
///
/// Not thread-safe: its owner calls it under its lock.
struct ProgressThrottle {
    /// Progress goes out at most every this many bytes or seconds (and at the end).
    static let bytesBetweenReports: Int64 = 64 << 10
    static let secondsBetweenReports: TimeInterval = 0.1

    private var reported: Int64 = -1
    private var reportedAt = Date.distantPast
    /// The value that went out last, which the transfer's end does not repeat.
    private var reportedValue: TransferProgress?

    /// The progress to report for `bytes` moved at `now`, or nil when it is not time (or not more).
    mutating func next(_ bytes: Int64, expected: Int64?, now: Date) -> TransferProgress? {
        guard bytes > reported,
              bytes - max(0, reported) >= Self.bytesBetweenReports || now.timeIntervalSince(reportedAt) >= Self.secondsBetweenReports
        else { return nil }
        reported = bytes
        reportedAt = now
        let progress = TransferProgress(bytes: bytes, expectedBytes: expected)
        reportedValue = progress
        return progress
    }

    /// The transfer's last value: `bytes` of `expected`, whatever was reported before; nil when
    /// exactly that value went out already (the last chunk's report, 100 ms after the one before).
    mutating func last(_ bytes: Int64, expected: Int64?) -> TransferProgress? {
        reported = max(reported, bytes)
        let progress = TransferProgress(bytes: bytes, expectedBytes: expected)
        guard progress != reportedValue else { return nil }
        reportedValue = progress
        return progress
    }
}
