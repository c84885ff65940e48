import Foundation

/// Which progress values of a transfer go out: monotone (a transfer that starts over says nothing
/// until it passes what it reported), at most every 64 KiB or 100 ms, and the last one always.
///
/// Not thread-safe: its owner calls it under its lock.
struct ProgressThrottle {
    /// Progress goes out at most every this many bytes or seconds (and at the end).
    static let bytesBetweenReports: Int64 = 64 << 10
    static let secondsBetweenReports: TimeInterval = 0.1

    private var reported: Int64 = -1
    private var reportedAt = Date.distantPast

    /// The progress to report for `bytes` moved at `now`, or nil when it is not time (or not more).
    mutating func next(_ bytes: Int64, expected: Int64?, now: Date) -> TransferProgress? {
        guard bytes > reported,
              bytes - max(0, reported) >= Self.bytesBetweenReports || now.timeIntervalSince(reportedAt) >= Self.secondsBetweenReports
        else { return nil }
        reported = bytes
        reportedAt = now
        return TransferProgress(bytes: bytes, expectedBytes: expected)
    }

    /// The transfer's last value: `bytes` of `expected`, whatever was reported before.
    mutating func last(_ bytes: Int64, expected: Int64?) -> TransferProgress {
        reported = max(reported, bytes)
        return TransferProgress(bytes: bytes, expectedBytes: expected)
    }
}
