import Foundation

/// What the soak's API does at a given moment: a pure function of the wall-clock time since the
/// run's start (`t0`, handed to each API child at start), so that a restarted child carries on
/// where the killed one was, and the parent knows at every moment which failures to expect.
///
/// Every `cycle` seconds: normal, a burst of 5xx, normal, a 429 storm with `Retry-After`, normal,
/// a spell of announced rate limits (`RateLimit-Limit/-Remaining/-Reset`, a 429 past the quota),
/// normal. Independently, the parent kills the API child (SIGKILL) every `restartEvery` seconds
/// and starts it again on the same port `downtime` seconds later, so that outages fall into
/// every phase over a long run.
struct DaemonSchedule: Sendable {
    enum Phase: String, Sendable, CaseIterable {
        case normal
        case serverErrors = "5xx burst"
        case tooManyRequests = "429 storm"
        case rateLimited = "rate limits"
    }

    /// The length of one round of phases, in seconds.
    static let cycle: TimeInterval = 60
    /// The abnormal phases, as offsets into the cycle.
    static let phases: [(offsets: Range<TimeInterval>, phase: Phase)] = [
        (12..<16, .serverErrors),
        (24..<28, .tooManyRequests),
        (36..<48, .rateLimited),
    ]
    /// The `Retry-After` of the 429 storm, in seconds.
    static let stormRetryAfter = 1
    /// The API's quota while it announces rate limits: `quota` requests per `quotaWindow` seconds.
    static let quota = 20
    static let quotaWindow: TimeInterval = 5
    /// Items change version this often (so that revalidations sometimes get a new body).
    static let itemVersionPeriod: TimeInterval = 20
    /// How long items are fresh (`Cache-Control: max-age`).
    static let itemMaxAge = 5
    /// The API is killed this often, and stays down this long.
    static let restartEvery: TimeInterval = 45
    static let downtime: TimeInterval = 1.5
    /// No kill in the run's last seconds: every outage is recovered before the drain.
    static let quietEnd: TimeInterval = 15

    /// The run's start, shared by the parent and the API children.
    let t0: Date

    func elapsed(at date: Date) -> TimeInterval {
        date.timeIntervalSince(t0)
    }

    /// The phase at `date`.
    func phase(at date: Date) -> Phase {
        let offset = elapsed(at: date).truncatingRemainder(dividingBy: Self.cycle)
        return Self.phases.first { $0.offsets.contains(offset) }?.phase ?? .normal
    }

    /// The abnormal phases that overlap `interval`, each as its absolute interval.
    func windows(overlapping interval: ClosedRange<Date>) -> [(interval: ClosedRange<Date>, phase: Phase)] {
        let first = Int((elapsed(at: interval.lowerBound) / Self.cycle).rounded(.down)) - 1
        let last = Int((elapsed(at: interval.upperBound) / Self.cycle).rounded(.down))
        var found: [(ClosedRange<Date>, Phase)] = []
        for cycle in max(0, first)...max(0, last) {
            let base = Double(cycle) * Self.cycle
            for (offsets, phase) in Self.phases {
                let window = t0.addingTimeInterval(base + offsets.lowerBound)...t0.addingTimeInterval(base + offsets.upperBound)
                if window.overlaps(interval) { found.append((window, phase)) }
            }
        }
        return found
    }

    /// The version of every item at `date`.
    func itemVersion(at date: Date) -> Int {
        Int((elapsed(at: date) / Self.itemVersionPeriod).rounded(.down))
    }

    /// The quota window at `date`: its number, and the seconds left in it.
    func quotaWindow(at date: Date) -> (index: Int, secondsLeft: TimeInterval) {
        let elapsed = elapsed(at: date)
        let index = Int((elapsed / Self.quotaWindow).rounded(.down))
        return (index, Double(index + 1) * Self.quotaWindow - elapsed)
    }

    /// The seconds after `t0` at which the API is killed in a run of `duration` seconds.
    static func restarts(duration: TimeInterval) -> [TimeInterval] {
        stride(from: restartEvery, through: duration - quietEnd, by: restartEvery).map { $0 }
    }
}
