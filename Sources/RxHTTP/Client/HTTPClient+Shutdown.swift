import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension HTTPClient {
    /// Shuts the client down gracefully: refuses new work, stops retries, lets what is in flight
    /// finish, and cancels what is left when the grace period ends.
    ///
    /// At once, on the first call: every new request fails with `.shutdown` (`phase == .notSent`),
    /// on the callback queue; requests held by `suspend()` and requests waiting to retry fail with
    /// `.shutdown` (their last failure as `underlying`); requests in flight go on, but are not
    /// retried (a failure that would have been retried ends in `.shutdown`). When `gracePeriod`
    /// seconds have passed, whatever is still in flight is cancelled and fails with `.shutdown`.
    /// What never ends by itself does not wait for the grace period: an event stream ends at once,
    /// connected or waiting to reconnect, and completes; a WebSocket closes with 1001 and completes.
    /// Once nothing is left the transport is shut down if the client created it (or the transport's
    /// `shutsDownWithClient` says it belongs to the client), and the returned `Completable` completes. Every caller gets exactly one terminal event.
    ///
    /// Shutdown starts when this method is called, not on subscription (a signal handler that
    /// forgets to subscribe still shuts down); the `Completable` only reports the end, to every
    /// subscriber, also after the fact. Calling it again is harmless: it starts nothing new (the
    /// first grace period holds) and returns a `Completable` for the same end.
    ///
    /// ```swift
    /// signal(SIGTERM, SIG_IGN)
    /// let source = DispatchSource.makeSignalSource(signal: SIGTERM)
    /// source.setEventHandler {
    ///     _ = client.shutdown(gracePeriod: 10).subscribe { _ in exit(0) }
    /// }
    /// source.resume()
    /// ```
    ///
    /// - Parameters:
    ///   - gracePeriod: Seconds in-flight requests may still take; NaN or negative count as 0,
    ///     anything over 10^9 s as 10^9 s.
    ///   - scheduler: Runs the grace period's timer (a `TestScheduler` in tests); default a serial
    ///     queue of its own, never the global pool (whose threads blocked callers may hold).
    /// - Returns: Completes when every call, stream and socket of the client has delivered its
    ///   terminal event to its subscriber (a socket's `onCompleted` comes first, so that `exit(0)`
    ///   on the completion loses nothing); never fails.
    /// - Note: Thread-safe. The completion arrives on the callback queue (or at once, on the
    ///   subscribing thread, if the shutdown is already over).
    @discardableResult
    public func shutdown(
        gracePeriod: TimeInterval = 10,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.HTTPClient.shutdown")
    ) -> Completable {
        let shutdown = ShutdownState()
        if let begun = beginShutdown(shutdown) {
            if begun.drained {
                finishShutdown(shutdown)
            } else {
                let grace = TimeoutBounds.clampedWait(gracePeriod)
                shutdown.setTimer(scheduler.scheduleRelative((), dueTime: .seconds(grace)) { [weak self] _ in
                    self?.gracePeriodEnded()
                    return Disposables.create()
                })
            }
            for call in begun.calls {
                call.clientIsShuttingDown()
            }
        }
        return Completable.create { [weak self] observer in
            guard let self, let current = self.currentShutdown else {
                observer(.completed)
                return Disposables.create()
            }
            return current.whenDone { observer(.completed) }
        }
    }

    /// Whether `shutdown(gracePeriod:)` was called.
    ///
    /// - Note: Thread-safe.
    public var isShutdownStarted: Bool {
        isShuttingDown
    }

    private func gracePeriodEnded() {
        for call in liveCalls {
            call.gracePeriodEnded()
        }
    }

    /// Nothing is left: shuts an owned transport down (one the client made, or one that asks to be)
    /// and completes the waiting `Completable`s.
    func finishShutdown(_ shutdown: ShutdownState) {
        if ownsTransport || transport.shutsDownWithClient {
            transport.shutdown()
        }
        runOnCallbackContext {
            for waiter in shutdown.finish() {
                waiter()
            }
        }
    }
}

/// One shutdown in progress: the grace timer and whoever waits for the end.
// @unchecked Sendable: mutable state lives in one LockedState.
final class ShutdownState: @unchecked Sendable {
    private struct State {
        var isDone = false
        var timer: Disposable?
        var nextToken = 0
        var waiters: [Int: () -> Void] = [:]
    }

    private let state = LockedState<State>.make(State())

    func setTimer(_ timer: Disposable) {
        let stale = state.withLock { state -> Disposable? in
            if state.isDone { return timer }
            state.timer = timer
            return nil
        }
        stale?.dispose()
    }

    /// Calls `done` when the shutdown ends (at once if it has); disposing stops waiting.
    func whenDone(_ done: @escaping () -> Void) -> Disposable {
        let token = state.withLock { state -> Int? in
            guard !state.isDone else { return nil }
            state.nextToken += 1
            state.waiters[state.nextToken] = done
            return state.nextToken
        }
        guard let token else {
            done()
            return Disposables.create()
        }
        return Disposables.create { [weak self] in
            self?.state.withLock { _ = $0.waiters.removeValue(forKey: token) }
        }
    }

    /// Marks the shutdown over; returns the waiters to notify.
    func finish() -> [() -> Void] {
        let (waiters, timer) = state.withLock { state -> ([() -> Void], Disposable?) in
            state.isDone = true
            defer { state.waiters = [:]; state.timer = nil }
            return (Array(state.waiters.values), state.timer)
        }
        timer?.dispose()
        return waiters
    }
}
