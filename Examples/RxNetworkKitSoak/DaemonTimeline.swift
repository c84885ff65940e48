import Foundation
import Synchronization
import RxNetworkKit

/// What happened to the API during the daemon soak, as the parent saw it — outages (kill to
/// restart), the client's circuit breaker for the API, the drain — and, from the shared
/// `DaemonSchedule`, what the API was doing: together they say which failures a call may end in.
///
/// - Note: Thread-safe.
final class DaemonTimeline: Sendable {
    private struct State {
        var outages: [(down: Date, up: Date?)] = []
        /// The breaker not closed: from its first open or half-open to the next close.
        var breaker: [(from: Date, to: Date?)] = []
        /// When the client opened the circuit of another host (the hostile server's), by origin.
        var otherOpenings: [String: [Date]] = [:]
        var drainStart: Date?
    }

    /// Slack around each interval: the two processes share a clock, but a call's start and end are
    /// taken on other threads than the events that decide.
    static let margin: TimeInterval = 0.3

    let schedule: DaemonSchedule
    private let state = Mutex(State())

    init(schedule: DaemonSchedule) {
        self.schedule = schedule
    }

    func apiWentDown(at date: Date) {
        state.withLock { $0.outages.append((date, nil)) }
    }

    func apiCameBack(at date: Date) {
        state.withLock { state in
            if let last = state.outages.indices.last { state.outages[last].up = date }
        }
    }

    /// The client opened the circuit of a host other than the API (from `client.events`).
    func otherCircuitOpened(url: String, at date: Date) {
        guard let origin = URL(string: url).flatMap({ url in url.host.map { "\(url.scheme ?? "http")://\($0):\(url.port ?? 80)" } }) else { return }
        state.withLock { state in
            // Only the latest few: a round asks about the last seconds.
            state.otherOpenings[origin, default: []].append(date)
            if state.otherOpenings[origin, default: []].count > 16 { state.otherOpenings[origin]?.removeFirst() }
        }
    }

    /// Whether the client opened the circuit of `baseURL`'s host since `date`.
    func circuitOpened(for baseURL: URL, since date: Date) -> Bool {
        guard let host = baseURL.host else { return false }
        let origin = "\(baseURL.scheme ?? "http")://\(host):\(baseURL.port ?? 80)"
        return state.withLock { $0.otherOpenings[origin]?.contains { $0 >= date } ?? false }
    }

    /// A change of the API's circuit breaker (from `client.events`).
    func circuit(_ circuit: CircuitState, at date: Date) {
        state.withLock { state in
            let isOpen = state.breaker.last.map { $0.to == nil } ?? false
            switch circuit {
            case .open, .halfOpen:
                if !isOpen { state.breaker.append((date, nil)) }
            case .closed:
                if isOpen, let last = state.breaker.indices.last { state.breaker[last].to = date }
            }
        }
    }

    func drainBegan(at date: Date) {
        state.withLock { $0.drainStart = $0.drainStart ?? date }
    }

    var drainStart: Date? {
        state.withLock { $0.drainStart }
    }

    var outages: [(down: Date, up: Date?)] {
        state.withLock { $0.outages }
    }

    /// When the breaker opened, each time.
    var breakerOpenings: [Date] {
        state.withLock { $0.breaker.map(\.from) }
    }

    /// Whether an outage (widened by `after` seconds past the restart) overlaps `span`.
    func outage(overlapping span: ClosedRange<Date>, after: TimeInterval = 1) -> Bool {
        state.withLock { state in
            state.outages.contains { outage in
                let end = (outage.up ?? .distantFuture).addingTimeInterval(after)
                return (outage.down.addingTimeInterval(-Self.margin)...max(end, outage.down)).overlaps(span)
            }
        }
    }

    /// Whether the breaker was not closed at some moment of `span`.
    func breakerOpen(overlapping span: ClosedRange<Date>) -> Bool {
        state.withLock { state in
            state.breaker.contains { interval in
                let end = (interval.to ?? .distantFuture).addingTimeInterval(Self.margin)
                return (interval.from.addingTimeInterval(-Self.margin)...max(interval.from, end)).overlaps(span)
            }
        }
    }

    /// Whether `error`, ending a call of the API that ran from `start` to `end`, is one the
    /// moment explains; nil if it is, else why not.
    func unexplained(_ error: HTTPClientError, from start: Date, to end: Date) -> String? {
        let span = start.addingTimeInterval(-Self.margin)...max(start, end).addingTimeInterval(Self.margin)
        let phases = Set(schedule.windows(overlapping: span).map(\.phase))
        let outage = outage(overlapping: span)
        let breakerOpen = breakerOpen(overlapping: span)
        let drain = drainStart
        let explained: Bool
        switch error.code {
        case .shutdown:
            explained = drain.map { end >= $0.addingTimeInterval(-Self.margin) } ?? false
        case .circuitOpen:
            explained = breakerOpen
        case .transport, .invalidResponse:
            explained = outage
        case .timedOut, .retryBudgetExhausted, .rejected:
            // Held by cooldowns or a full queue past the deadline, or out of retries.
            explained = outage || breakerOpen || !phases.isEmpty
        case .unacceptableStatusCode:
            switch error.statusCode ?? 0 {
            case 500...599: explained = phases.contains(.serverErrors)
            case 429: explained = phases.contains(.tooManyRequests) || phases.contains(.rateLimited)
            default: explained = false
            }
        default:
            explained = false
        }
        if explained { return nil }
        let at = String(format: "t=%.1f–%.1f s", schedule.elapsed(at: start), schedule.elapsed(at: end))
        let moment = (phases.map(\.rawValue).sorted() + (outage ? ["outage"] : []) + (breakerOpen ? ["breaker open"] : [])).joined(separator: ", ")
        return "\(at) [\(moment.isEmpty ? "normal" : moment)]: \(error)"
    }
}
