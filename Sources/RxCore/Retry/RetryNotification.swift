/// What ended a wait between two attempts of a retry.
public enum RetryTrigger: String, Sendable, Hashable, CaseIterable {
    /// The delay elapsed.
    case timer
    /// The network came back (`didBecomeReachable` fired) before the delay elapsed.
    case reachability
    /// There was no wait: the delay was zero.
    case immediate
}

/// One retry, as told to an `onRetry` hook just before the new attempt starts.
///
/// - Note: A value type; `Sendable`.
public struct RetryNotification<Failure: Error>: Sendable {
    /// The number of the attempt about to start: 2 for the first retry.
    public let attempt: Int
    /// The failure of the previous attempt.
    public let error: Failure
    /// The wait that was planned before this attempt, in seconds (infinite: reachability only).
    public let delay: Double
    /// What ended the wait.
    public let trigger: RetryTrigger
    /// How long the wait actually lasted, in seconds of the scheduler's clock.
    public let waited: Double

    /// Creates a notification.
    public init(attempt: Int, error: Failure, delay: Double, trigger: RetryTrigger, waited: Double) {
        self.attempt = attempt
        self.error = error
        self.delay = delay
        self.trigger = trigger
        self.waited = waited
    }
}
