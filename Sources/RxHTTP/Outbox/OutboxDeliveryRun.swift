import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One subscription of `client.rx.deliver(_:)`: the outbox's entries in a queue per origin, at
/// most `concurrentPerHost` of each in flight; each entry one RxCore `retry(when:)` of the client's
/// calls until it has an outcome; each outcome recorded, handed over, removed — in that order, on
/// one serial queue.
///
/// It is a live call for the client's shutdown: when the shutdown begins the waits end, no entry
/// starts, and once the calls in flight have ended the subscription completes.
final class OutboxDeliveryRun: ClientCall, Sendable {
    /// A wait between sends that the end of the run cut short; the entry keeps no outcome.
    struct Stopped: Error {}

    private enum Phase {
        case running
        /// No entry starts; completes (`completes`) or just ends once nothing is in flight.
        case draining(completes: Bool)
        case ended
    }

    private struct State {
        var phase = Phase.running
        var listenerID: UInt64?
        /// Entries stored between attaching to the outbox and queueing what it held: queued after.
        var storedEarly: [Outbox.Indexed]? = []
        var admitted = false
        var queues: [String: ArraySlice<Outbox.Indexed>] = [:]
        var active: [String: Int] = [:]
        var inFlight: [UUID: Disposable] = [:]

        var isRunning: Bool {
            if case .running = phase { return true }
            return false
        }

        /// Takes an entry into the run: queued on its origin, or — when its outcome is recorded
        /// already — returns true, to be handed over without sending.
        mutating func accept(_ indexed: Outbox.Indexed) -> Bool {
            guard indexed.recordedOutcome == nil else { return true }
            queues[indexed.origin, default: []].append(indexed)
            return false
        }
    }

    /// What to do, outside the lock, once the state has changed.
    private enum Ending {
        case none
        case complete
        case end
    }

    let id: UInt64
    private let client: HTTPClient
    private let outbox: Outbox
    private let options: OutboxDeliveryOptions
    private let observer: AnyObserver<OutboxDelivery>
    private let handOver = DispatchQueue(label: "RxHTTP.OutboxDelivery")
    /// Fails with `Stopped` when the run stops: every wait between sends listens.
    private let stopping = PublishSubject<Void>()
    private let state = LockedState<State>.make(State())

    init(client: HTTPClient, outbox: Outbox, options: OutboxDeliveryOptions, observer: AnyObserver<OutboxDelivery>) {
        self.id = client.makeRequestID()
        self.client = client
        self.outbox = outbox
        self.options = options
        self.observer = observer
    }

    private var concurrentPerHost: Int {
        min(max(1, options.concurrentPerHost), OutboxDeliveryOptions.maxConcurrentPerHost)
    }

    // MARK: Events

    func start() {
        guard client.admit(self) else {
            observer.onError(HTTPClientError(.shutdown, message: "the client is shutting down", phase: .notSent))
            return
        }
        state.withLock { $0.admitted = true }
        guard let (listenerID, stored) = outbox.store.attach({ [weak self] indexed in self?.stored(indexed) }) else {
            state.withLock { $0.phase = .ended }
            release()
            observer.onError(HTTPClientError(
                .invalidRequest, message: "the outbox is closed, or being delivered by another subscription", phase: .notSent
            ))
            return
        }
        let recorded = state.withLock { state -> [Outbox.Indexed] in
            state.listenerID = listenerID
            defer { state.storedEarly = nil }
            return (stored + (state.storedEarly ?? [])).filter { state.accept($0) }
        }
        handOver(recorded)
        pump()
    }

    /// An entry `enqueue` stored while the run is on (or, on a fleet, one this replica claimed).
    private func stored(_ indexed: Outbox.Indexed) {
        let recorded = state.withLock { state -> Bool? in
            guard state.isRunning else { return nil }
            if state.storedEarly != nil {
                state.storedEarly?.append(indexed)
                return nil
            }
            return state.accept(indexed)
        }
        guard let recorded else { return }
        if recorded {
            handOver([indexed])
        } else {
            pump()
        }
    }

    /// Hands over outcomes recorded before this run sent anything: an earlier process's (or, on a
    /// fleet, a dead replica's), or one a disposed run of this process recorded.
    private func handOver(_ recorded: [Outbox.Indexed]) {
        for indexed in recorded {
            if let outcome = indexed.recordedOutcome {
                handOverRecorded(indexed, outcome, isRecovered: indexed.recordedBeforeStart)
            }
        }
    }

    /// The subscriber disposed: stop at once.
    func stop() {
        let inFlight = state.withLock { state -> [Disposable] in
            state.phase = .ended
            defer { state.inFlight = [:] }
            return Array(state.inFlight.values)
        }
        stopping.onError(Stopped())
        for subscription in inFlight { subscription.dispose() }
        release()
    }

    func clientIsShuttingDown() {
        let ending = state.withLock { state -> Ending in
            guard state.isRunning else { return .none }
            guard state.inFlight.isEmpty else {
                state.phase = .draining(completes: true)
                return .none
            }
            state.phase = .ended
            return .complete
        }
        stopping.onError(Stopped())
        finish(ending)
    }

    func gracePeriodEnded() {
        clientIsShuttingDown()
    }

    // MARK: Sending

    /// Starts the next entries of every origin with a free slot.
    private func pump() {
        let starting = state.withLock { state -> [Outbox.Indexed] in
            guard state.isRunning else { return [] }
            var starting: [Outbox.Indexed] = []
            for origin in Array(state.queues.keys) {
                while state.active[origin, default: 0] < concurrentPerHost, let next = state.queues[origin]?.popFirst() {
                    state.active[origin, default: 0] += 1
                    starting.append(next)
                }
                if state.queues[origin]?.isEmpty == true { state.queues[origin] = nil }
            }
            return starting
        }
        for indexed in starting { send(indexed) }
    }

    private func send(_ indexed: Outbox.Indexed) {
        let subscription = SingleAssignmentDisposable()
        let added = state.withLock { state -> Bool in
            guard state.isRunning else { return false }
            state.inFlight[indexed.entry.id] = subscription
            return true
        }
        guard added else { return ended(indexed) }
        subscription.setDisposable(delivery(of: indexed).subscribe(
            onNext: { [weak self] response in self?.outcome(indexed, .success(response)) },
            onError: { [weak self] error in self?.failed(indexed, error) }
        ))
    }

    /// The entry sent until it has an outcome: each failure that may pass waits (the options' delay,
    /// a `Retry-After`, the host coming back, the run stopping) and sends again.
    private func delivery(of indexed: Outbox.Indexed) -> Observable<HTTPResponse> {
        let entry = indexed.entry
        let sends = LockedState<Int>.make(0)
        let scheduler = client.configuration.scheduler
        let reachable: Observable<Void> = options.redeliversWhenReachable
            ? (client.reachability(for: entry.url)?.didBecomeReachable ?? .never())
            : .never()
        let single: Observable<HTTPResponse> = Observable.deferred { [client, outbox] in
            let attempt = sends.withLock { $0 += 1; return $0 }
            client.emitOutboxEvent(for: entry, .outboxAttempt(entry: entry.id, attempt: attempt))
            guard let stored = outbox.store.storedEntry(entry.id) else {
                return .error(HTTPClientError(.fileSystem, message: "the entry's file is gone or damaged; set aside", phase: .notSent))
            }
            return Observable.create { observer in
                let handle = client.sendStored(stored) { result in
                    switch result {
                    case .success(let response):
                        observer.onNext(response)
                        observer.onCompleted()
                    case .failure(let error):
                        observer.onError(error)
                    }
                }
                return Disposables.create { handle.cancel() }
            }
        }
        let options = self.options
        let stopping = self.stopping.asObservable()
        return single.retry(when: { (failures: Observable<Error>) -> Observable<Void> in
            failures.flatMap { failure -> Observable<Void> in
                guard let error = failure as? HTTPClientError, Self.mayPass(error) else { return .error(failure) }
                let wait = options.wait(afterFailure: sends.withLock { $0 }, retryAfter: error.retryAfter(now: scheduler.now))
                let timer = Observable<Int>.timer(.seconds(wait), scheduler: scheduler).map { _ in () }
                return Observable.amb([timer, reachable.take(1), stopping]).take(1)
            }
        })
    }

    /// Whether sending the entry again may bring another answer: what a connection would reconnect
    /// after (no connection, a time-out, 408, 429, 5xx, the client's own "not now"), a 425, and a
    /// credential refresh that failed (the credentials, not the entry, are at fault).
    static func mayPass(_ error: HTTPClientError) -> Bool {
        switch error.code {
        case .shutdown, .cancelled, .fileSystem:
            return false
        case .refreshFailed:
            return true
        default:
            return error.isWorthReconnecting || error.statusCode == 425
        }
    }

    // MARK: Ends of an entry

    private func failed(_ indexed: Outbox.Indexed, _ failure: Error) {
        if failure is Stopped {
            return ended(indexed)
        }
        guard let error = failure as? HTTPClientError else {
            return outcome(indexed, .failure(HTTPClientError(.invalidResponse, message: HTTPClientError.describe(failure))))
        }
        switch error.code {
        case .shutdown, .cancelled:
            // Not an outcome: the entry stays for the next delivery.
            ended(indexed)
        case .fileSystem:
            // Its file is gone or set aside (`skippedRecords`): nothing to send.
            ended(indexed)
        default:
            outcome(indexed, .failure(error))
        }
    }

    /// Records the outcome, then hands it over (unless the run has stopped: the next run will) and
    /// removes the entry; outcomes are handed over in the order they were recorded.
    private func outcome(_ indexed: Outbox.Indexed, _ result: Result<HTTPResponse, HTTPClientError>) {
        let outcome = StoredOutcome(id: indexed.entry.id, result: result)
        defer {
            // The origin's next entry may go now (after this record was queued, so that records
            // and hand-overs keep the order of the answers): the order is the order of sending,
            // and this one has its answer. The run stays until it is handed over.
            freeSlot(of: indexed)
        }
        outbox.store.record(outcome) { [weak self] recorded in
            guard let self else { return }
            switch recorded {
            case .failure(let failure):
                // After the deliveries already queued; the entry stays, without an outcome.
                self.handOver.async { [observer = self.observer] in observer.onError(failure) }
                self.stop()
                return
            case .success(true):
                self.handOverRecorded(indexed, outcome, isRecovered: false)
            case .success(false):
                // A sibling holds the entry now (this replica's lease ran out): its delivery hands
                // the outcome over, sent again under the same key.
                break
            }
            self.ended(indexed, freeingSlot: false)
        }
    }

    private func handOverRecorded(_ indexed: Outbox.Indexed, _ outcome: StoredOutcome, isRecovered: Bool) {
        handOver.async { [self] in
            guard state.withLock({ state -> Bool in
                if case .ended = state.phase { return false }
                return true
            }) else { return }
            let kind: HTTPClientEvent.Outcome
            switch outcome.result {
            case .success(let response): kind = .success(statusCode: response.statusCode)
            case .failure(let error): kind = .failure(code: error.code, statusCode: error.statusCode, phase: error.phase)
            }
            client.emitOutboxEvent(
                for: indexed.entry, .outboxOutcome(entry: indexed.entry.id, kind, recovered: isRecovered, depth: outbox.depth)
            )
            observer.onNext(OutboxDelivery(entry: indexed.entry, result: outcome.result, isRecovered: isRecovered))
            outbox.store.remove(indexed.entry.id)
        }
    }

    /// The entry's origin may send its next entry.
    private func freeSlot(of indexed: Outbox.Indexed) {
        let running = state.withLock { state -> Bool in
            if let active = state.active[indexed.origin] {
                state.active[indexed.origin] = active > 1 ? active - 1 : nil
            }
            return state.isRunning
        }
        if running { pump() }
    }

    /// The entry left the run (its outcome handed over, or stopped without one); `freeingSlot` when
    /// its slot is still held.
    private func ended(_ indexed: Outbox.Indexed, freeingSlot: Bool = true) {
        if freeingSlot { freeSlot(of: indexed) }
        let ending = state.withLock { state -> Ending in
            state.inFlight[indexed.entry.id] = nil
            guard case .draining(let completes) = state.phase, state.inFlight.isEmpty else { return .none }
            state.phase = .ended
            return completes ? .complete : .end
        }
        finish(ending)
    }

    private func finish(_ ending: Ending) {
        switch ending {
        case .none:
            return
        case .complete:
            // The subscriber hears the end before the client's shutdown can complete.
            handOver.async { [self] in
                observer.onCompleted()
                release()
            }
        case .end:
            release()
        }
    }

    /// Stops listening to the outbox and leaves the client's live calls (once).
    private func release() {
        let (listenerID, admitted) = state.withLock { state -> (UInt64?, Bool) in
            defer {
                state.listenerID = nil
                state.admitted = false
            }
            return (state.listenerID, state.admitted)
        }
        if let listenerID { outbox.store.detach(listenerID) }
        if admitted { client.callFinished(id: id) }
    }
}
