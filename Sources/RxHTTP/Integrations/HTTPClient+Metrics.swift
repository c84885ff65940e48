// Compiled with the package trait `Metrics` only.
#if Metrics
import Foundation
import Metrics
import RxCore
import Synchronization

/// The swift-metrics a client records (`HTTPClient.recordMetrics(factory:)`): OpenTelemetry's HTTP
/// client semantic conventions where they name a metric, this package's namespace where they do not.
///
/// | Metric | Kind | Dimensions |
/// |---|---|---|
/// | `http.client.request.duration` | `Timer`, seconds preferred: one value per attempt sent | `http.request.method`, `server.address`, `server.port`, `http.response.status_code` (with an answer), `error.type` (a status of 400 or more, or the failure's code) |
/// | `http.client.active_requests` | `Meter`: attempts on the wire | `http.request.method`, `server.address`, `server.port` |
/// | `rxnetworkkit.http.client.retries` | `Counter`: retries scheduled | `http.request.method`, `server.address`, `server.port`, `error.type` (what was retried) |
/// | `rxnetworkkit.http.client.token_refreshes` | `Counter`: credential refreshes ended | `outcome` (`success`, `failure`), `error.type` on failure |
/// | `rxnetworkkit.http.client.circuit_breaker.changes` | `Counter`: a host's breaker changed | `server.address`, `server.port`, `state` (`open`, `half_open`, `closed`) |
/// | `rxnetworkkit.http.client.cache` | `Counter`: answers delivered, by where they came from | `http.request.method`, `server.address`, `server.port`, `cache.status` (`network`, `hit`, `revalidated`, `stale`) |
/// | `rxnetworkkit.outbox.depth` | `Meter`: an `Outbox`'s entries, sampled (`Outbox.recordMetrics(name:every:scheduler:factory:)`) | `outbox` |
/// | `rxnetworkkit.outbox.bytes` | `Meter`: the bytes of their records, sampled | `outbox` |
/// | `rxnetworkkit.outbox.oldest_entry_age` | `Meter`: seconds the oldest entry has waited (0 when empty), sampled | `outbox` |
///
/// OpenTelemetry counts each resend as its own request, so the duration is the attempt's, from
/// its send to its answer (waits between attempts are not in it); `http.client.active_requests`
/// likewise counts attempts on the wire, not calls waiting to send.
public enum HTTPClientMetrics {
    /// `http.client.request.duration`.
    public static let requestDuration = "http.client.request.duration"
    /// `http.client.active_requests`.
    public static let activeRequests = "http.client.active_requests"
    /// `rxnetworkkit.http.client.retries`.
    public static let retries = "rxnetworkkit.http.client.retries"
    /// `rxnetworkkit.http.client.token_refreshes`.
    public static let tokenRefreshes = "rxnetworkkit.http.client.token_refreshes"
    /// `rxnetworkkit.http.client.circuit_breaker.changes`.
    public static let circuitBreakerChanges = "rxnetworkkit.http.client.circuit_breaker.changes"
    /// `rxnetworkkit.http.client.cache`.
    public static let cacheAnswers = "rxnetworkkit.http.client.cache"
    /// `rxnetworkkit.outbox.depth`.
    public static let outboxDepth = "rxnetworkkit.outbox.depth"
    /// `rxnetworkkit.outbox.bytes`.
    public static let outboxBytes = "rxnetworkkit.outbox.bytes"
    /// `rxnetworkkit.outbox.oldest_entry_age`.
    public static let outboxOldestEntryAge = "rxnetworkkit.outbox.oldest_entry_age"
}

extension HTTPClient {
    /// Records this client's calls as swift-metrics (see `HTTPClientMetrics` for the names), from
    /// its `events`, until the returned subscription is disposed.
    ///
    /// ```swift
    /// let metrics = client.recordMetrics()   // to MetricsSystem's bootstrapped factory
    /// ```
    ///
    /// Metric objects are made once per set of dimensions and kept (at most 1,024 of each kind; past
    /// that they are made for each value, so a server answering every status cannot grow memory).
    /// Dimensions carry no path, query, header or token.
    ///
    /// - Parameter factory: Where the metrics go; default `MetricsSystem.factory`.
    /// - Returns: The subscription to `events`; dispose it to stop recording.
    /// - Note: Thread-safe. Recording runs on the thread that delivers the event (see `events`).
    public func recordMetrics(factory: any MetricsFactory = MetricsSystem.factory) -> Disposable {
        let recorder = HTTPMetricsRecorder(factory: factory)
        return events.subscribe(onNext: { recorder.record($0) })
    }
}

/// Turns events into metrics, keeping the metric objects per set of dimensions.
final class HTTPMetricsRecorder: Sendable {
    /// The dimensions every request metric has.
    struct Target: Hashable, Sendable {
        let method: String
        let address: String
        let port: Int

        var dimensions: [(String, String)] {
            [("http.request.method", method), ("server.address", address), ("server.port", String(port))]
        }
    }

    struct DurationKey: Hashable, Sendable {
        let target: Target
        let statusCode: Int?
        let errorType: String?
    }

    private let durations: MetricCache<DurationKey, Metrics.Timer>
    private let active: MetricCache<Target, Meter>
    private let retries: MetricCache<DurationKey, Counter>
    private let refreshes: MetricCache<String, Counter>
    private let circuits: MetricCache<DurationKey, Counter>
    private let cacheAnswers: MetricCache<DurationKey, Counter>

    init(factory: any MetricsFactory) {
        durations = MetricCache { key in
            var dimensions = key.target.dimensions
            if let status = key.statusCode { dimensions.append(("http.response.status_code", String(status))) }
            if let errorType = key.errorType { dimensions.append(("error.type", errorType)) }
            return Metrics.Timer(label: HTTPClientMetrics.requestDuration, dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
        }
        active = MetricCache { target in
            Meter(label: HTTPClientMetrics.activeRequests, dimensions: target.dimensions, factory: factory)
        }
        retries = MetricCache { key in
            var dimensions = key.target.dimensions
            if let errorType = key.errorType { dimensions.append(("error.type", errorType)) }
            return Counter(label: HTTPClientMetrics.retries, dimensions: dimensions, factory: factory)
        }
        refreshes = MetricCache { errorType in
            let dimensions = errorType.isEmpty ? [("outcome", "success")] : [("outcome", "failure"), ("error.type", errorType)]
            return Counter(label: HTTPClientMetrics.tokenRefreshes, dimensions: dimensions, factory: factory)
        }
        cacheAnswers = MetricCache { key in
            Counter(label: HTTPClientMetrics.cacheAnswers, dimensions: key.target.dimensions + [("cache.status", key.errorType ?? "network")], factory: factory)
        }
        circuits = MetricCache { key in
            Counter(label: HTTPClientMetrics.circuitBreakerChanges, dimensions: [
                ("server.address", key.target.address), ("server.port", String(key.target.port)),
                ("state", key.errorType ?? "closed"),
            ], factory: factory)
        }
    }

    func record(_ event: HTTPClientEvent) {
        switch event.kind {
        case .attemptStarted:
            guard let target = target(of: event) else { return }
            active.metric(for: target).increment()
        case .response(_, let statusCode, let duration):
            guard let target = target(of: event) else { return }
            active.metric(for: target).decrement()
            let key = DurationKey(target: target, statusCode: statusCode, errorType: statusCode >= 400 ? String(statusCode) : nil)
            durations.metric(for: key).recordSeconds(duration)
        case .attemptFailed(_, let code, _, let duration):
            guard let target = target(of: event) else { return }
            active.metric(for: target).decrement()
            durations.metric(for: DurationKey(target: target, statusCode: nil, errorType: code.rawValue)).recordSeconds(duration)
        case .retryScheduled(_, _, let code, let statusCode):
            guard let target = target(of: event) else { return }
            let errorType = statusCode.map { String($0) } ?? code.rawValue
            retries.metric(for: DurationKey(target: target, statusCode: nil, errorType: errorType)).increment()
        case .authRefreshEnded(let succeeded, let code):
            refreshes.metric(for: succeeded ? "" : (code ?? .refreshFailed).rawValue).increment()
        case .circuitChanged(let state):
            guard let origin = event.url, let server = ServerAddress(url: origin) else { return }
            let name: String
            switch state {
            case .closed: name = "closed"
            case .open: name = "open"
            case .halfOpen: name = "half_open"
            }
            let target = Target(method: "", address: server.address, port: server.port)
            circuits.metric(for: DurationKey(target: target, statusCode: nil, errorType: name)).increment()
        case .completed:
            guard let status = event.cacheStatus, let target = target(of: event) else { return }
            cacheAnswers.metric(for: DurationKey(target: target, statusCode: nil, errorType: status.rawValue)).increment()
        case .started, .held, .waitEnded, .authRefreshStarted, .webSocketOpened, .webSocketReconnecting, .webSocketClosed,
             .fleetEngineChanged, .outboxEnqueued, .outboxAttempt, .outboxOutcome:
            return
        }
    }

    private func target(of event: HTTPClientEvent) -> Target? {
        guard let url = event.url, let server = ServerAddress(url: url) else { return nil }
        return Target(method: event.method?.rawValue ?? "_OTHER", address: server.address, port: server.port)
    }
}

/// Metric objects by their dimensions, made once; bounded, so that values a server chooses
/// (statuses) cannot grow it without end: past `limit` a metric is made for each use.
final class MetricCache<Key: Hashable & Sendable, Metric: Sendable>: Sendable {
    private let metrics = Mutex<[Key: Metric]>([:])
    private let make: @Sendable (Key) -> Metric
    private let limit: Int

    init(limit: Int = 1_024, make: @escaping @Sendable (Key) -> Metric) {
        self.limit = limit
        self.make = make
    }

    func metric(for key: Key) -> Metric {
        if let metric = metrics.withLock({ $0[key] }) { return metric }
        let metric = make(key)
        return metrics.withLock { metrics in
            if let existing = metrics[key] { return existing }
            if metrics.count < limit { metrics[key] = metric }
            return metric
        }
    }
}
#endif
