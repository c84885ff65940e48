import Foundation

/// The bounds on every time-out, delay and deadline a caller or a server gives the HTTP client:
/// one place that turns NaN, negative, infinite and absurd values into either "invalid" or a
/// documented clamp, so that no conversion further down (Dispatch, Foundation's integer
/// milliseconds) can trap. Shared with sibling transports through `@_spi(TransportSupport)`.
@_spi(TransportSupport)
public enum TimeoutBounds {
    /// The longest interval kept as given: 10^9 s (about 31.7 years). Longer ones, infinity
    /// included, are clamped to it — in practice "never".
    public static let maximum: TimeInterval = 1_000_000_000

    /// The time-out used when a configuration gives none that is valid.
    public static let defaultTimeout: TimeInterval = 15

    /// A positive time-out clamped to `maximum`; nil for NaN, zero or negative.
    public static func clamped(_ seconds: TimeInterval) -> TimeInterval? {
        guard !seconds.isNaN, seconds > 0 else { return nil }
        return min(seconds, maximum)
    }

    /// A wait: NaN and negative count as 0, anything over `maximum` (infinity too) as `maximum`.
    public static func clampedWait(_ seconds: TimeInterval) -> TimeInterval {
        guard !seconds.isNaN else { return 0 }
        return min(max(0, seconds), maximum)
    }
}
