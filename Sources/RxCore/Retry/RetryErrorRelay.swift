/// The sequence of errors handed to a `retry(when:)` notification handler: a minimal hot
/// multicast, one per subscription of the operator. It never terminates by itself; its subscribers
/// go away when the trigger subscription is disposed.
///
/// - Note: `onNext` must not be called concurrently (`RetryWhenSink` serializes it).
// @unchecked Sendable: the observer table lives in a LockedState.
final class RetryErrorRelay<Failure>: Observable<Failure>, @unchecked Sendable {
    private struct State {
        var observers: [Int: ObserverNode<Failure>] = [:]
        var nextKey = 0
    }

    private let state = LockedState<State>.make(State())

    override func subscribe(_ observer: ObserverNode<Failure>) -> ClassDisposable {
        let key = state.withLock { state -> Int in
            defer { state.nextKey += 1 }
            state.observers[state.nextKey] = observer
            return state.nextKey
        }
        return AnonymousDisposable { [state] in
            _ = state.withLock { $0.observers.removeValue(forKey: key) }
        }
    }

    func onNext(_ failure: Failure) {
        let observers = state.withLock { state in
            state.observers.keys.sorted().compactMap { state.observers[$0] }
        }
        for observer in observers {
            observer.onNext(failure)
        }
    }
}
