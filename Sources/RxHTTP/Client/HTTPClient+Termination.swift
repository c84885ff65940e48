import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension HTTPClient {
    /// Drains `clients` when the process is asked to stop (SIGTERM, SIGINT), then exits: one call
    /// for a daemon without ServiceLifecycle (with it, `HTTPClientService` in a `ServiceGroup`).
    ///
    /// ```swift
    /// let api = HTTPClient(baseURL: URL(string: "https://api.example.com")!)
    /// HTTPClient.shutdownOnTermination([api], gracePeriod: 10)   // at start-up, once
    /// ```
    ///
    /// At the first of `signals` every client's `shutdown(gracePeriod:)` starts at once; when all
    /// have completed (every call, stream and socket delivered its end) `drained` runs and the
    /// process exits with `exitCode`. Later signals are ignored: the grace period bounds the wait.
    /// The signals are ignored by the process (`SIG_IGN`) from the first installation on and heard
    /// through one Dispatch signal source each, kept for the life of the process; disposing the
    /// result stops this installation's listening (the signals stay ignored).
    ///
    /// Why not a signal handler of your own: a closure written at the top level of `main.swift` is
    /// main-actor code, and running it from a signal source on a global queue traps in Swift 6's
    /// executor check (SIGILL). Everything here runs on a queue of its own, never on the main
    /// actor, and needs no main run loop.
    ///
    /// - Parameters:
    ///   - clients: The clients to drain, together.
    ///   - gracePeriod: Seconds in-flight requests may still take (as `shutdown(gracePeriod:)`).
    ///   - signals: The signals that drain; default SIGTERM and SIGINT. SIGKILL, SIGSTOP and numbers
    ///     that are not signals are left out.
    ///   - exitCode: The process's exit status once drained; nil to return instead of exiting
    ///     (`drained` then decides).
    ///   - log: Told one line when a signal starts the drain and one when it is over (`print`, a
    ///     `Logger`'s `info`); on the handler's queue.
    ///   - drained: Runs once every client has shut down, before the exit; on the callback queue of
    ///     the last client to finish.
    /// - Returns: Disposing it stops listening (a drain already started goes on).
    /// - Note: Thread-safe. Several installations may listen to one signal: each drains its own
    ///   clients, and the first to complete exits.
    @discardableResult
    public static func shutdownOnTermination(
        _ clients: [HTTPClient],
        gracePeriod: TimeInterval = 10,
        signals: [Int32] = [SIGTERM, SIGINT],
        exitCode: Int32? = 0,
        log: (@Sendable (String) -> Void)? = nil,
        then drained: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        let catchable = Set(signals.filter { $0 > 0 && $0 < 65 && $0 != SIGKILL && $0 != SIGSTOP })
        let started = LockedState<Bool>.make(false)
        return TerminationSignals.shared.listen(to: catchable) { number in
            guard started.withLock({ started in defer { started = true }; return !started }) else { return }
            let name = number == SIGTERM ? "SIGTERM" : number == SIGINT ? "SIGINT" : "signal \(number)"
            log?("\(name): shutting down \(clients.count) client\(clients.count == 1 ? "" : "s") (grace period \(String(format: "%g", gracePeriod)) s)")
            _ = Completable.zip(clients.map { $0.shutdown(gracePeriod: gracePeriod) }).subscribe(onCompleted: {
                log?("shut down cleanly")
                drained?()
                if let exitCode { exit(exitCode) }
            })
        }
    }

    /// `HTTPClient.shutdownOnTermination([self], …)`: drains this client on SIGTERM or SIGINT, then
    /// exits with `exitCode`.
    @discardableResult
    public func shutdownOnTermination(
        gracePeriod: TimeInterval = 10,
        signals: [Int32] = [SIGTERM, SIGINT],
        exitCode: Int32? = 0,
        log: (@Sendable (String) -> Void)? = nil
    ) -> Disposable {
        HTTPClient.shutdownOnTermination([self], gracePeriod: gracePeriod, signals: signals, exitCode: exitCode, log: log)
    }
}

/// The process's listeners of termination signals: one Dispatch signal source per signal, made on
/// first use and kept for the life of the process (on Linux a signal source made after another for
/// the same signal was cancelled never fires), and the installations that listen through them.
final class TerminationSignals: Sendable {
    static let shared = TerminationSignals()

    private struct State {
        var sources: [Int32: SignalSource] = [:]
        var listeners: [Int: (signals: Set<Int32>, handler: @Sendable (Int32) -> Void)] = [:]
        var nextListener = 0
    }

    private let state = LockedState<State>.make(State())

    /// Calls `handler` with each of `signals` the process receives, on a queue of its own, until
    /// the result is disposed.
    func listen(to signals: Set<Int32>, _ handler: @escaping @Sendable (Int32) -> Void) -> Disposable {
        let token = state.withLock { state -> Int in
            state.nextListener += 1
            state.listeners[state.nextListener] = (signals, handler)
            for number in signals where state.sources[number] == nil {
                // Ignored by the process, heard by the source (as Dispatch requires).
                signal(number, SIG_IGN)
                state.sources[number] = SignalSource(number) { [weak self] in self?.received(number) }
            }
            return state.nextListener
        }
        return Disposables.create { [weak self] in
            self?.state.withLock { _ = $0.listeners.removeValue(forKey: token) }
        }
    }

    private func received(_ number: Int32) {
        let handlers = state.withLock { state in
            state.listeners.sorted { $0.key < $1.key }.filter { $0.value.signals.contains(number) }.map(\.value.handler)
        }
        for handler in handlers { handler(number) }
    }
}

/// One Dispatch signal source on a queue of its own, running for the life of the process.
// @unchecked Sendable: `source` is immutable after init and only kept alive here; Dispatch's
// protocol is not marked Sendable, but a source is safe to hold from any thread.
private final class SignalSource: @unchecked Sendable {
    private let source: any DispatchSourceSignal

    /// Returns once the source is armed (at most a second): `resume()` arms it asynchronously, and
    /// a signal that comes before is lost to `SIG_IGN` (a signal sent right after installing).
    init(_ number: Int32, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeSignalSource(signal: number, queue: DispatchQueue(label: "RxHTTP.termination.\(number)"))
        source.setEventHandler(handler: handler)
        let armed = DispatchSemaphore(value: 0)
        source.setRegistrationHandler { armed.signal() }
        source.resume()
        _ = armed.wait(timeout: .now() + 1)
    }
}
