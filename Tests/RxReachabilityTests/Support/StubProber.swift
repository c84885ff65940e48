import Foundation
import RxCore
import RxReachability

/// A `TCPProbing` double with scripted answers, for virtual-time tests.
///
/// Each probe takes the next scripted answer, or `current` once the script is used up. Answers
/// `.reachable` / `.unreachable` are given synchronously inside `probe`; `.never` leaves the probe in
/// flight until it is cancelled. It counts probes, cancellations and probes still in flight.
final class StubProber: TCPProbing, Sendable {
    enum Answer: Sendable {
        case reachable
        case unreachable
        /// Never answers; only a cancel ends the probe.
        case never
    }

    struct Call: Sendable {
        let host: String
        let port: UInt16
        let timeout: TimeInterval
    }

    private struct State {
        var script: [Answer]
        var current: Answer
        var calls: [Call] = []
        var cancelled = 0
        var inFlight = 0
        var pending: [Int: @Sendable (Result<Void, Error>) -> Void] = [:]
    }

    static let refused = TCPProbeError(code: .connectFailed, systemError: 111, message: "stub: refused")

    private let state: LockedBox<State>

    init(_ script: [Answer] = [], then current: Answer = .reachable) {
        state = LockedBox(State(script: script, current: current))
    }

    /// The answer for probes after the script.
    var current: Answer {
        get { state.value.current }
        set { state.mutate { $0.current = newValue } }
    }

    var probeCount: Int { state.value.calls.count }
    var cancelCount: Int { state.value.cancelled }
    var inFlightCount: Int { state.value.inFlight }
    var calls: [Call] { state.value.calls }

    /// Answers every probe left in flight by `.never` with `result` (a late answer).
    func answerInFlight(_ result: Result<Void, Error>) {
        let completions = state.mutate { state -> [@Sendable (Result<Void, Error>) -> Void] in
            defer {
                state.inFlight -= state.pending.count
                state.pending = [:]
            }
            return Array(state.pending.values)
        }
        completions.forEach { $0(result) }
    }

    func probe(
        host: String, port: UInt16, timeout: TimeInterval,
        completion: @escaping @Sendable (Result<Void, Error>) -> Void
    ) -> Disposable {
        let (answer, index) = state.mutate { state -> (Answer, Int) in
            state.calls.append(Call(host: host, port: port, timeout: timeout))
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
            state.mutate { state in
                state.inFlight += 1
                state.pending[index] = completion
            }
            return Disposables.create { [state] in
                state.mutate { state in
                    if state.pending.removeValue(forKey: index) != nil {
                        state.inFlight -= 1
                        state.cancelled += 1
                    }
                }
            }
        }
    }
}
