import Foundation
import Synchronization
import RxNetworkKit

/// The daemon soak's steady work, every 250 ms: one item (8 of them in turn: cache hits, 304s,
/// new versions), every other tick four identical feed calls at once (coalescing), every fourth
/// tick one keyed order — about 13 calls a second, each accounted for by the ledger.
///
/// - Note: Thread-safe; the ticks run on a serial queue of their own.
// @unchecked Sendable: `timer` is a dispatch source (thread-safe; resumed once, cancelled once);
// the mutable state lives in `state`.
final class DaemonLoad: @unchecked Sendable {
    static let tick: TimeInterval = 0.25
    static let items = 8
    static let burst = 4

    private struct State {
        var started = false
        var tick = 0
        var orders = 0
    }

    private let client: HTTPClient
    private let ledger: DaemonLedger
    private let queue = DispatchQueue(label: "soak.load")
    private let timer: any DispatchSourceTimer
    private let state = Mutex(State())

    init(client: HTTPClient, ledger: DaemonLedger) {
        self.client = client
        self.ledger = ledger
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    func start() {
        state.withLock { $0.started = true }
        timer.schedule(deadline: .now() + Self.tick, repeating: Self.tick, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
    }

    /// Stops making calls; those in flight go on.
    func stop() {
        // A dispatch source released suspended crashes the process: resume one never started.
        if !state.withLock({ $0.started }) { timer.resume() }
        timer.cancel()
    }

    private func fire() {
        let (tick, order) = state.withLock { state -> (Int, Int?) in
            state.tick += 1
            guard state.tick % 4 == 1 else { return (state.tick, nil) }
            state.orders += 1
            return (state.tick, state.orders)
        }
        getItem(tick % Self.items)
        if tick % 2 == 0 { getFeed() }
        if let order { createOrder(order) }
    }

    func getItem(_ itemID: Int) {
        let ledger = self.ledger
        let id = ledger.begin(.item)
        _ = client.rx.response(GetItem(id: itemID)).subscribe(
            onSuccess: { ledger.item(id, asked: itemID, $0) },
            onFailure: { ledger.failed(id, $0) }
        )
    }

    func getFeed() {
        let ledger = self.ledger
        let burst = ledger.beginBurst(size: Self.burst)
        for _ in 0..<Self.burst {
            let id = ledger.begin(.feed, burst: burst)
            _ = client.rx.request(GetFeed()).subscribe(
                onSuccess: { ledger.feed(id, $0) },
                onFailure: { ledger.failed(id, $0) }
            )
        }
    }

    func createOrder(_ number: Int) {
        let ledger = self.ledger
        let id = ledger.begin(.order)
        _ = client.rx.request(CreateOrder(order: DaemonLedger.orderName(number))).subscribe(
            onSuccess: { ledger.order(id, number: number, $0) },
            onFailure: { ledger.failed(id, $0, order: number) }
        )
    }

    /// One call after the client began shutting down: it must fail at once with `.shutdown`.
    func callAfterShutdown(_ done: @escaping @Sendable () -> Void) {
        let ledger = self.ledger
        let id = ledger.begin(.afterShutdown)
        _ = client.rx.request(GetFeed()).subscribe(
            onSuccess: { _ in
                ledger.succeeded(id)
                done()
            },
            onFailure: {
                ledger.failed(id, $0)
                done()
            }
        )
    }
}
