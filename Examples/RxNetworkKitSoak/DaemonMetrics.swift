import Foundation
import Synchronization
import RxNetworkKit

/// `client.events` of the daemon soak turned into counters, as a metrics backend would: calls,
/// attempts, retries, what held sends back (and in which phase of the API), 429s answered,
/// refreshes, breaker changes; and, after each restart of the API, how long until it answered.
/// Every event's description is checked for secrets.
///
/// - Note: Thread-safe; events arrive one at a time on the client's threads.
final class DaemonMetrics: Sendable {
    struct Restart: Sendable {
        /// When the restarted API listened again.
        var up: Date
        /// The first answer it gave the client (any status), and the first success from the network.
        var firstResponse: Date?
        var firstSuccess: Date?
    }

    struct Counts: Sendable {
        var started = 0
        var completed: [String: Int] = [:]
        var attempts = 0
        var retries = 0
        var waitEnds: [String: Int] = [:]
        /// Sends held back, by reason and the API's phase at the moment.
        var held: [String: Int] = [:]
        /// 429 answers received, by the API's phase.
        var tooManyRequests: [String: Int] = [:]
        var serverErrors = 0
        var refreshesStarted = 0
        var refreshesSucceeded = 0
        var refreshesFailed = 0
        var breakerChanges: [String: Int] = [:]
        var cacheStatuses: [String: Int] = [:]
        var restarts: [Restart] = []
        var events = 0
        /// Attempts of orders on their way (by request id), since when.
        var orderAttempts: [UInt64: Date] = [:]
    }

    let apiOrigin: String
    let timeline: DaemonTimeline
    let secrets: SecretWatch
    /// Told after each successful refresh (to watch the new tokens), off the event's lock.
    private let onRefresh: @Sendable () -> Void
    private let counts = Mutex(Counts())

    init(apiOrigin: String, timeline: DaemonTimeline, secrets: SecretWatch, onRefresh: @escaping @Sendable () -> Void) {
        self.apiOrigin = apiOrigin
        self.timeline = timeline
        self.secrets = secrets
        self.onRefresh = onRefresh
    }

    func restarted(at date: Date) {
        counts.withLock { $0.restarts.append(Restart(up: date)) }
    }

    /// Whether an order's attempt has been on its way long enough to have reached the API, which
    /// applies it at once and answers 200 ms later: a kill now loses the answer of an applied order.
    func orderAttemptAtServer(now: Date = Date()) -> Bool {
        counts.withLock { counts in
            counts.orderAttempts.values.contains { (0.05...0.15).contains(now.timeIntervalSince($0)) }
        }
    }

    var snapshot: Counts {
        counts.withLock { $0 }
    }

    func observe(_ event: HTTPClientEvent) {
        secrets.check(event.description, context: "an event")
        let isAPI = event.url.map { $0 == apiOrigin || $0.hasPrefix(apiOrigin + "/") } ?? false
        let phase = timeline.schedule.phase(at: event.timestamp).rawValue
        var refreshed = false
        counts.withLock { counts in
            counts.events += 1
            switch event.kind {
            case .response, .attemptFailed, .completed:
                if let id = event.requestID { counts.orderAttempts[id] = nil }
            default:
                break
            }
            switch event.kind {
            case .started:
                counts.started += 1
            case .held(let reason):
                counts.held["\(reason.rawValue) in \(phase)", default: 0] += 1
            case .attemptStarted:
                counts.attempts += 1
                if isAPI, event.method == .post, let id = event.requestID { counts.orderAttempts[id] = event.timestamp }
            case .response(_, let status, _):
                if isAPI, status == 429 { counts.tooManyRequests[phase, default: 0] += 1 }
                if isAPI, status >= 500 { counts.serverErrors += 1 }
                if isAPI, let last = counts.restarts.indices.last, counts.restarts[last].firstResponse == nil,
                   event.timestamp >= counts.restarts[last].up {
                    counts.restarts[last].firstResponse = event.timestamp
                }
            case .attemptFailed, .fleetEngineChanged, .outboxEnqueued, .outboxAttempt, .outboxOutcome:
                break
            case .retryScheduled:
                counts.retries += 1
            case .waitEnded(let trigger, _):
                counts.waitEnds["\(trigger)", default: 0] += 1
            case .authRefreshStarted:
                counts.refreshesStarted += 1
            case .authRefreshEnded(let succeeded, _):
                if succeeded { counts.refreshesSucceeded += 1 } else { counts.refreshesFailed += 1 }
                refreshed = succeeded
            case .circuitChanged(let state):
                guard isAPI else { break }
                let name: String
                switch state {
                case .open: name = "open"
                case .halfOpen: name = "half-open"
                case .closed: name = "closed"
                }
                counts.breakerChanges[name, default: 0] += 1
            case .completed(let outcome, _, _):
                switch outcome {
                case .success:
                    counts.completed["success", default: 0] += 1
                    if let status = event.cacheStatus { counts.cacheStatuses[status.rawValue, default: 0] += 1 }
                    if isAPI, event.cacheStatus != .hit, event.cacheStatus != .stale,
                       let last = counts.restarts.indices.last, counts.restarts[last].firstSuccess == nil,
                       event.timestamp >= counts.restarts[last].up {
                        counts.restarts[last].firstSuccess = event.timestamp
                    }
                case .failure(let code, _, _):
                    counts.completed[code.rawValue, default: 0] += 1
                }
            case .webSocketOpened, .webSocketReconnecting, .webSocketClosed:
                break
            }
        }
        if case .circuitChanged(let state) = event.kind {
            if isAPI {
                timeline.circuit(state, at: event.timestamp)
            } else if case .open = state, let url = event.url {
                timeline.otherCircuitOpened(url: url, at: event.timestamp)
            }
        }
        if refreshed { onRefresh() }
    }
}
