import Dispatch

/// A span of time for schedulers and time-based operators, in (possibly fractional) seconds.
///
/// Spelled as RxSwift's `DispatchTimeInterval` cases are — `.seconds(2)`, `.milliseconds(300)` —
/// but `.seconds(0.5)` is half a second: nothing here truncates to whole seconds.
public struct RxTimeInterval: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The length in seconds.
    public let timeInterval: Double

    /// A span of `seconds` seconds; negative values count as zero when scheduling.
    public init(timeInterval seconds: Double) {
        self.timeInterval = seconds
    }

    /// Converts a Dispatch interval; `.never` becomes `RxTimeInterval.never`.
    public init(_ interval: DispatchTimeInterval) {
        switch interval {
        case .seconds(let value): timeInterval = Double(value)
        case .milliseconds(let value): timeInterval = Double(value) / 1_000
        case .microseconds(let value): timeInterval = Double(value) / 1_000_000
        case .nanoseconds(let value): timeInterval = Double(value) / 1_000_000_000
        case .never: timeInterval = .infinity
        @unknown default: timeInterval = .infinity
        }
    }

    /// `value` seconds.
    public static func seconds(_ value: Double) -> RxTimeInterval { RxTimeInterval(timeInterval: value) }
    /// `value` milliseconds.
    public static func milliseconds(_ value: Double) -> RxTimeInterval { RxTimeInterval(timeInterval: value / 1_000) }
    /// `value` microseconds.
    public static func microseconds(_ value: Double) -> RxTimeInterval {
        RxTimeInterval(timeInterval: value / 1_000_000)
    }
    /// `value` nanoseconds.
    public static func nanoseconds(_ value: Double) -> RxTimeInterval {
        RxTimeInterval(timeInterval: value / 1_000_000_000)
    }

    /// No time at all.
    public static let zero = RxTimeInterval(timeInterval: 0)
    /// An interval that never elapses.
    public static let never = RxTimeInterval(timeInterval: .infinity)

    /// The interval as a Dispatch interval, to nanosecond precision: zero if negative (minus infinity
    /// included), `.never` if +infinity or NaN.
    public var dispatchInterval: DispatchTimeInterval {
        // Any past due time, minus infinity included, is now; NaN and +infinity are never.
        if timeInterval <= 0 { return .nanoseconds(0) }
        guard timeInterval.isFinite else { return .never }
        let nanoseconds = (max(0, timeInterval) * 1_000_000_000).rounded()
        guard nanoseconds < Double(Int.max) else { return .never }
        return .nanoseconds(Int(nanoseconds))
    }

    /// Whether `lhs` is shorter; `.never` is longer than every finite interval.
    public static func < (lhs: RxTimeInterval, rhs: RxTimeInterval) -> Bool {
        lhs.timeInterval < rhs.timeInterval
    }

    /// The sum; `.never` if either is.
    public static func + (lhs: RxTimeInterval, rhs: RxTimeInterval) -> RxTimeInterval {
        RxTimeInterval(timeInterval: lhs.timeInterval + rhs.timeInterval)
    }

    /// The interval scaled by `rhs`.
    public static func * (lhs: RxTimeInterval, rhs: Double) -> RxTimeInterval {
        RxTimeInterval(timeInterval: lhs.timeInterval * rhs)
    }

    /// The interval in seconds, as `1.5s`.
    public var description: String {
        "\(timeInterval)s"
    }
}
