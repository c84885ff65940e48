import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// What a probing session needs: the target, the cadence and the collaborators.
struct ProbeConfiguration: Sendable {
    let host: String
    let port: UInt16
    let probeInterval: RxTimeInterval
    let unreachableProbeInterval: RxTimeInterval
    let timeout: RxTimeInterval
    let scheduler: any SchedulerType
    let prober: any TCPProbing
}

/// One run of periodic probing, from the first subscriber to the last dispose.
///
/// Cadence (fixed delay, never two probes at once): the first probe starts at once (a
/// `schedule` on the scheduler); each next probe starts `probeInterval` after the previous one
/// ended — `unreachableProbeInterval` after a failure. A probe ends at its result, or at `timeout`
/// on the scheduler, whichever comes first; at the timeout the probe is cancelled and counts as
/// `TCPProbeError.Code.timedOut`, so a prober that never answers cannot stall the cadence.
/// Results are handed to `report` on the scheduler (the prober's answer hops there).
///
/// `dispose()` cancels the pending timer, the in-flight probe and its deadline. Every step carries
/// a token so that a timer, a deadline or an answer that lost a race with another step (or with
/// dispose) does nothing.
final class ProbeSession: Disposable {
    typealias Report = @Sendable (ProbeSession, Result<Void, Error>) -> Void

    private enum Step {
        case idle
        /// Waiting for the timer that starts probe `token`.
        case waiting(token: Int, timer: Disposable?)
        /// Probe `token` is in flight.
        case probing(token: Int, probe: Disposable?, deadline: Disposable?)
        case disposed
    }

    private struct State {
        var step = Step.idle
        var lastToken = 0
    }

    private let configuration: ProbeConfiguration
    private let report: Report
    private let state = LockedState<State>.make(State())

    init(configuration: ProbeConfiguration, report: @escaping Report) {
        self.configuration = configuration
        self.report = report
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Starts probing: the first probe is scheduled at once.
    func start() {
        scheduleProbe(after: nil)
    }

    func dispose() {
        let held = state.withLock { state -> [Disposable?] in
            defer { state.step = .disposed }
            switch state.step {
            case .waiting(_, let timer): return [timer]
            case .probing(_, let probe, let deadline): return [probe, deadline]
            case .idle, .disposed: return []
            }
        }
        held.forEach { $0?.dispose() }
    }

    // MARK: - Steps

    private func scheduleProbe(after delay: RxTimeInterval?) {
        let token = state.withLock { state -> Int? in
            if case .disposed = state.step { return nil }
            state.lastToken += 1
            state.step = .waiting(token: state.lastToken, timer: nil)
            return state.lastToken
        }
        guard let token else { return }
        let action: @Sendable (Int) -> Disposable = { [self] token in
            startProbe(token)
            return Disposables.create()
        }
        let scheduler = configuration.scheduler
        let timer = delay.map { scheduler.scheduleRelative(token, dueTime: $0, action: action) }
            ?? scheduler.schedule(token, action: action)
        let stale = state.withLock { state -> Disposable? in
            switch state.step {
            case .waiting(token, nil):
                state.step = .waiting(token: token, timer: timer)
                return nil
            case .disposed:
                return timer
            default:
                // The timer already fired (a synchronous scheduler): nothing left to cancel.
                return nil
            }
        }
        stale?.dispose()
    }

    private func startProbe(_ token: Int) {
        let proceed = state.withLock { state -> Bool in
            guard case .waiting(token, _) = state.step else { return false }
            state.step = .probing(token: token, probe: nil, deadline: nil)
            return true
        }
        guard proceed else { return }
        let configuration = configuration
        let scheduler = configuration.scheduler
        let deadline: Disposable? = configuration.timeout.timeInterval.isFinite
            ? scheduler.scheduleRelative(token, dueTime: configuration.timeout) { [self] token in
                let error = TCPProbeError.timedOut(
                    host: configuration.host, port: configuration.port,
                    after: configuration.timeout.timeInterval
                )
                complete(token, .failure(error))
                return Disposables.create()
            }
            : nil
        let probe = configuration.prober.probe(
            host: configuration.host, port: configuration.port,
            timeout: configuration.timeout.timeInterval
        ) { [self] result in
            // Answers arrive on the prober's thread; state changes and events happen on the scheduler.
            _ = scheduler.schedule(result) { [self] result in
                complete(token, result)
                return Disposables.create()
            }
        }
        let stale = state.withLock { state -> [Disposable?] in
            guard case .probing(token, nil, nil) = state.step else {
                // The probe already ended (or the session was disposed): release both now.
                return [probe, deadline]
            }
            state.step = .probing(token: token, probe: probe, deadline: deadline)
            return []
        }
        stale.forEach { $0?.dispose() }
    }

    /// The end of probe `token`, by its answer or its deadline; the loser of the two does nothing.
    private func complete(_ token: Int, _ result: Result<Void, Error>) {
        let held = state.withLock { state -> [Disposable?]? in
            guard case .probing(token, let probe, let deadline) = state.step else { return nil }
            state.step = .idle
            return [probe, deadline]
        }
        guard let held else { return }
        // Cancels the probe after a deadline; after an answer, both are already spent.
        held.forEach { $0?.dispose() }
        report(self, result)
        switch result {
        case .success:
            scheduleProbe(after: configuration.probeInterval)
        case .failure:
            scheduleProbe(after: configuration.unreachableProbeInterval)
        }
    }
}
