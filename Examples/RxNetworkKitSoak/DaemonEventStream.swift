import Foundation
import Synchronization
import RxNetworkKit

/// The daemon soak's Server-Sent Events stream: `/events` of the API, which counts `1, 2, 3…`,
/// drops every 20 events, dies with each restart and follows the API's phases. Every event must
/// arrive once, in order: the stream resumes with `Last-Event-ID`.
///
/// The stream reconnects by itself after drops, transient failures and the client's own refusals
/// (an open breaker: it waits for the trial). Should it ever end for good, the soak counts the
/// ending — a failed check — and subscribes again a second later, sending the last id it saw.
///
/// - Note: Thread-safe.
final class DaemonEventStream: Sendable {
    private struct State {
        var subscription: Disposable?
        var stopped = false
        var lastID = 0
        var received = 0
        var violations = 0
        var outOfOrder: [String] = []
        /// Endings for good, by error code.
        var endings: [String: Int] = [:]
    }

    private let client: HTTPClient
    private let state = Mutex(State())

    init(client: HTTPClient) {
        self.client = client
    }

    func start() {
        let lastID = state.withLock { $0.stopped ? nil : $0.lastID }
        guard let lastID else { return }
        let events = client.rx.serverSentEvents(
            path: "/events",
            headers: lastID > 0 ? ["Last-Event-ID": String(lastID)] : [:],
            options: StreamOptions(idleTimeout: 10),
            reconnect: ReconnectPolicy(delay: .exponential(initial: 0.2, multiplier: 2, maxDelay: 2), jitter: .full)
        )
        let subscription = events.subscribe(
            onNext: { [weak self] event in self?.received(event) },
            onError: { [weak self] error in self?.ended(error) },
            onCompleted: { [weak self] in self?.ended(nil) }
        )
        let stale = state.withLock { state -> Bool in
            guard !state.stopped else { return true }
            state.subscription = subscription
            return false
        }
        if stale { subscription.dispose() }
    }

    /// Stops listening (the drain): disposing closes the connection.
    func stop() {
        let subscription = state.withLock { state -> Disposable? in
            state.stopped = true
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.dispose()
    }

    private func received(_ event: ServerSentEvent) {
        state.withLock { state in
            state.received += 1
            let id = event.id.flatMap { Int($0) } ?? -1
            if id != state.lastID + 1 || event.data != String(id) {
                state.violations += 1
                if state.outOfOrder.count < 10 {
                    state.outOfOrder.append("after \(state.lastID): id \(event.id ?? "none"), data \(event.data.prefix(20))")
                }
            }
            state.lastID = max(state.lastID, id)
        }
    }

    private func ended(_ error: Error?) {
        let code = (error as? HTTPClientError)?.code.rawValue ?? (error.map { "untyped \(type(of: $0))" } ?? "completed")
        let again = state.withLock { state -> Bool in
            state.subscription = nil
            guard !state.stopped else { return false }
            state.endings[code, default: 0] += 1
            return true
        }
        if again {
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in self?.start() }
        }
    }

    var snapshot: (received: Int, lastID: Int, violations: Int, outOfOrder: [String], endings: [String: Int]) {
        state.withLock { ($0.received, $0.lastID, $0.violations, $0.outOfOrder, $0.endings) }
    }
}
