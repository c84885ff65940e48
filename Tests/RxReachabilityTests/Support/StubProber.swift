import Foundation
import RxCore
import RxReachability

/// A `TCPProbing` double with scripted answers, for virtual-time tests.
///
/// Each probe takes the next scripted answer, or `current` once the script is used up. Answers
/// `.reachable` / `.unreachable` are given synchronously inside `probe`; `.never` leaves the probe in
/// flight until it is cancelled. It counts probes (with the tick of `clock` at each), cancellations
/// and probes in flight, and keeps the completions of cancelled probes so that a test can play a
/// prober that answers too late.
final class StubProber: TCPProbing, Sendable {
    enum Answer: Sendable {
        case reachable
        case unreachable
        /// Never answers; only a cancel ends the probe.
        case never
    }

    typealias Completion = @Sendable (Result<Void, Error>) -> Void

    struct Call: Sendable {
        let host: String
        let port: UInt16
        let timeout: TimeInterval
        let time: Int
    }

    private struct State {
        var script: [Answer]
        var current: Answer
        var calls: [Call] = []
        var cancelled = 0
        var inFlight: [Int: Completion] = [:]
        var abandoned: [Completion] = []
    }

    static let refused = TCPProbeError(code: .connectFailed, systemError: 111, message: "stub: refused")

    private let state: LockedBox<State>
    private let clock: @Sendable () -> Int
    private let keepsCancelledCompletions: Bool

    /// - Parameter keepsCancelledCompletions: Keep the completions of cancelled probes for
    ///   `answerAbandoned(_:)`. They capture the caller, which holds this prober: call
    ///   `answerAbandoned(_:)` before the test ends to break that cycle.
    init(
        _ script: [Answer] = [], then current: Answer = .reachable,
        keepsCancelledCompletions: Bool = false, clock: @escaping @Sendable () -> Int = { 0 }
    ) {
        state = LockedBox(State(script: script, current: current))
        self.clock = clock
        self.keepsCancelledCompletions = keepsCancelledCompletions
    }

    /// The answer for probes after the script.
    var current: Answer {
        get { state.value.current }
        set { state.mutate { $0.current = newValue } }
    }

    var probeCount: Int { state.value.calls.count }
    var probeTimes: [Int] { state.value.calls.map(\.time) }
    var cancelCount: Int { state.value.cancelled }
    var inFlightCount: Int { state.value.inFlight.count }
    var calls: [Call] { state.value.calls }

    /// Calls the completions of cancelled probes, as a prober that ignores cancellation would.
    func answerAbandoned(_ result: Result<Void, Error>) {
        let completions = state.mutate { state -> [Completion] in
            defer { state.abandoned = [] }
            return state.abandoned
        }
        completions.forEach { $0(result) }
    }

    func probe(host: String, port: UInt16, timeout: TimeInterval, completion: @escaping Completion) -> Disposable {
        let time = clock()
        let (answer, index) = state.mutate { state -> (Answer, Int) in
            state.calls.append(Call(host: host, port: port, timeout: timeout, time: time))
            let answer = state.script.isEmpty ? state.current : state.script.removeFirst()
            return (answer, state.calls.count)
        }
        switch answer {
        case .reachable:
            completion(.success(()))
            return Disposables.create()
        case .unreachable:
            completion(.failure(Self.refused))
            return Disposables.create()
        case .never:
            state.mutate { $0.inFlight[index] = completion }
            let keeps = keepsCancelledCompletions
            return Disposables.create { [state] in
                state.mutate { state in
                    if let completion = state.inFlight.removeValue(forKey: index) {
                        state.cancelled += 1
                        if keeps { state.abandoned.append(completion) }
                    }
                }
            }
        }
    }
}
