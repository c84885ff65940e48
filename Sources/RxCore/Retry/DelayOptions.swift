import Foundation

/// How long to wait before each retry.
///
/// `make(_:)` gives the delay in seconds before retry number `attempt` (1-based: the wait after the
/// first failure is `make(1)`). Fractions are kept: `.constant(time: 0.5)` waits half a second.
///
/// - Note: `Sendable`, so that a retry policy can live in a client's configuration; a `.custom`
///   closure must therefore be `@Sendable`.
public enum DelayOptions: Sendable {
    /// Retry at once.
    case immediate
    /// Wait `time` seconds before every retry.
    case constant(time: Double)
    /// Wait `initial * multiplier^(attempt-1)` seconds, never more than `maxDelay`.
    case exponential(initial: Double, multiplier: Double, maxDelay: Double)
    /// Wait what `closure` returns for the attempt number.
    case custom(closure: @Sendable (Int) -> Double)

    /// The delay in seconds before retry number `attempt` (1-based); never negative or NaN.
    ///
    /// A result of `.infinity` means "never by timer": only a reachability signal restarts.
    public func make(_ attempt: Int) -> Double {
        let attempt = max(1, attempt)
        let delay: Double
        switch self {
        case .immediate:
            delay = 0
        case .constant(let time):
            delay = time
        case .exponential(let initial, let multiplier, let maxDelay):
            // pow overflows to +inf for large attempts, which min() then caps.
            delay = min(maxDelay, initial * pow(multiplier, Double(attempt - 1)))
        case .custom(let closure):
            delay = closure(attempt)
        }
        return delay.isNaN ? 0 : max(0, delay)
    }

    /// The delay before retry number `attempt`, randomised by `jitter` with numbers from `random`.
    public func make(_ attempt: Int, jitter: Jitter, random: RandomSource) -> Double {
        jitter.apply(to: make(attempt), random: random)
    }

    /// These options with `jitter` applied to every delay, drawing from `random`.
    public func jittered(_ jitter: Jitter, random: RandomSource = .system) -> DelayOptions {
        if case .none = jitter { return self }
        return .custom { attempt in self.make(attempt, jitter: jitter, random: random) }
    }
}
