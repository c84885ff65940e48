/// Randomisation of retry delays, so that many clients that failed together do not retry together.
///
/// The strategies are those of the well-known "exponential backoff and jitter" analysis:
/// `.full` waits a uniform random time in `[0, delay]`, `.equal` waits `delay/2` plus a uniform
/// random time in `[0, delay/2]`. `.none` keeps the delay as computed.
public enum Jitter: Sendable, Equatable {
    /// No randomisation.
    case none
    /// Uniform in `[0, delay]`.
    case full
    /// `delay/2` plus uniform in `[0, delay/2]`.
    case equal

    /// Applies the strategy to `delay` seconds; infinite or zero delays are returned unchanged.
    public func apply(to delay: Double, random: RandomSource) -> Double {
        guard delay.isFinite, delay > 0 else { return delay }
        switch self {
        case .none:
            return delay
        case .full:
            return delay * random.nextUnitInterval()
        case .equal:
            return delay / 2 + (delay / 2) * random.nextUnitInterval()
        }
    }
}
