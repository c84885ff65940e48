import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// The shared state behind one `Reachability`: subscribers, the latest status, and the probing
/// session that runs while there is at least one subscriber.
///
/// Emission is serialized without holding the lock while observers run, on RxCore's `DrainLoop`:
/// every event is queued, with the observers it is for, under the lock; whichever thread finds no
/// delivery in progress drains the queue, one event at a time, outside the lock. A new `status` subscriber is queued its
/// replay of the latest status in the same critical section that registers it, so it sees the
/// latest status and then each later change, with no gap and no duplicate.
final class ReachabilityCore: Sendable {
    private enum Subscriber {
        case status(AnyObserver<ReachabilityStatus>)
        case becameReachable(@Sendable () -> Void)
    }

    private enum Delivery {
        case status(ReachabilityStatus, [AnyObserver<ReachabilityStatus>])
        case becameReachable([@Sendable () -> Void])
    }

    private struct State {
        var subscribers: [(id: Int, subscriber: Subscriber)] = []
        var lastID = 0
        var latest: ReachabilityStatus?
        var lastError: Error?
        var session: ProbeSession?
        /// Deliveries waiting for the drain loop.
        var pending: [Delivery] = []
    }

    private let configuration: ProbeConfiguration
    private let state = LockedState<State>.make(State())
    private let delivery = DrainLoop()

    init(configuration: ProbeConfiguration) {
        self.configuration = configuration
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var currentStatus: ReachabilityStatus? {
        state.withLock { $0.latest }
    }

    var lastProbeError: Error? {
        state.withLock { $0.lastError }
    }

    var isProbing: Bool {
        state.withLock { $0.session != nil }
    }

    func subscribeStatus(_ observer: AnyObserver<ReachabilityStatus>) -> Disposable {
        add(.status(observer))
    }

    func subscribeBecameReachable(_ observer: AnyObserver<Void>) -> Disposable {
        add(.becameReachable { observer.onNext(()) })
    }

    func whenReachableAgain(_ callback: @escaping @Sendable () -> Void) -> Disposable {
        add(.becameReachable(callback))
    }

    // MARK: - Subscribers

    private func add(_ subscriber: Subscriber) -> Disposable {
        let configuration = configuration
        let (id, session, queued) = state.withLock { state -> (Int, ProbeSession?, Bool) in
            state.lastID += 1
            state.subscribers.append((state.lastID, subscriber))
            var queued = false
            if case .status(let observer) = subscriber, let latest = state.latest {
                state.pending.append(.status(latest, [observer]))
                queued = true
            }
            var session: ProbeSession?
            if state.session == nil {
                let started = ProbeSession(configuration: configuration) { [self] session, result in
                    record(result, from: session)
                }
                state.session = started
                session = started
            }
            return (state.lastID, session, queued)
        }
        // A concurrent last dispose may have disposed the session already; `start` then does nothing.
        session?.start()
        if queued { deliverPending() }
        return Disposables.create { [self] in
            remove(id)
        }
    }

    private func remove(_ id: Int) {
        let stopped = state.withLock { state -> ProbeSession? in
            state.subscribers.removeAll { $0.id == id }
            guard state.subscribers.isEmpty, let session = state.session else { return nil }
            // Probing stops: forget the status, so that the next session starts from a fresh probe
            // rather than replaying a stale one.
            state.session = nil
            state.latest = nil
            state.lastError = nil
            return session
        }
        stopped?.dispose()
    }

    // MARK: - Results and delivery

    private func record(_ result: Result<Void, Error>, from session: ProbeSession) {
        let queued = state.withLock { state -> Bool in
            guard state.session === session else { return false }
            let status: ReachabilityStatus
            switch result {
            case .success:
                status = .reachable
                state.lastError = nil
            case .failure(let error):
                status = .unreachable
                state.lastError = error
            }
            let previous = state.latest
            state.latest = status
            guard previous != status else { return false }
            let statusObservers = state.subscribers.compactMap { entry -> AnyObserver<ReachabilityStatus>? in
                if case .status(let observer) = entry.subscriber { return observer }
                return nil
            }
            state.pending.append(.status(status, statusObservers))
            if previous == .unreachable && status == .reachable {
                let signalObservers = state.subscribers.compactMap { entry -> (@Sendable () -> Void)? in
                    if case .becameReachable(let callback) = entry.subscriber { return callback }
                    return nil
                }
                state.pending.append(.becameReachable(signalObservers))
            }
            return true
        }
        if queued { deliverPending() }
    }

    /// Delivers the queued events, unless another thread is already doing so (it then delivers
    /// these too, in order).
    private func deliverPending() {
        guard delivery.signal() else { return }
        delivery.run(missed: 1) {
            guard let next = state.withLock({ $0.pending.isEmpty ? nil : $0.pending.removeFirst() }) else {
                return .idle
            }
            switch next {
            case .status(let status, let observers):
                observers.forEach { $0.onNext(status) }
            case .becameReachable(let callbacks):
                callbacks.forEach { $0() }
            }
            return .delivered
        }
    }
}
