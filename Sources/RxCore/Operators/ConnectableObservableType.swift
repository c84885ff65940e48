import Synchronization

/// A sequence that subscribes to its source only when told to, so that subscribers can gather
/// first (RxSwift's `ConnectableObservableType`). `ConnectableObservable` conforms.
///
/// Conformers must be thread-safe, since `connect()`, `subscribe` and the disposables they return
/// may be used from any thread: the protocol requires `Sendable` (RxSwift's does not).
public protocol ConnectableObservableType: ObservableType, Sendable {
    /// Subscribes the shared source; subscribers receive its events until the returned disposable
    /// is disposed.
    ///
    /// - Returns: The connection: disposing it unsubscribes from the source.
    func connect() -> Disposable
}

extension ConnectableObservableType {
    /// A sequence that connects when its first observer subscribes and disposes the connection
    /// when its last one leaves, or when the source terminates; a later subscriber connects anew.
    ///
    /// Each observer subscribes to this connectable first, then the first of them connects (as
    /// RxSwift does): a subscriber that gets a terminal event while subscribing (the connectable's
    /// subject already ended) neither counts nor connects.
    ///
    /// - Returns: The reference-counted sequence.
    /// - Note: Thread-safe: however subscribers race, one `connect()` is made per connection, and
    ///   `connect()` and the connection's `dispose()` are called outside any lock.
    public func refCount() -> Observable<Element> {
        if let connectable = self as? ConnectableObservable<Element> {
            // This module's connectable counts its subscribers on its own connections.
            return RefCountObservable(source: connectable)
        }
        return ConnectableRefCountObservable(source: self)
    }
}

/// `refCount()` of any `ConnectableObservableType`: counts subscribers per connection, connects
/// on the first and disposes the connection on the last one leaving or on a terminal event.
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked): the
// source is Sendable by its protocol; the count and the connection live in one LockedState.
final class ConnectableRefCountObservable<Source: ConnectableObservableType>: Observable<Source.Element>, @unchecked Sendable {
    private struct State {
        /// Subscribers counted in the current connection.
        var count = 0
        /// Which connection the counted subscribers belong to; bumped when it ends, so that a late
        /// leave or terminal event of an earlier connection changes nothing.
        var generation = 0
        /// The current connection, once `connect()` has returned (nil while it runs).
        var connection: Disposable?
    }

    private let source: Source
    private let state = LockedState<State>.make(State())

    init(source: Source) {
        self.source = source
    }

    override func subscribe(_ observer: ObserverNode<Source.Element>) -> ClassDisposable {
        let sink = ConnectableRefCountSink(parent: self, downstream: observer)
        sink.setUpstream(classDisposable(source.subscribe(AnyObserver(node: sink))))
        join(sink)
        return sink
    }

    /// Counts `sink` in the current connection, connecting if it is the first.
    private func join(_ sink: ConnectableRefCountSink<Source>) {
        let connectGeneration = state.withLock { state -> Int? in
            // Ended while subscribing (a subject that had already terminated): not counted.
            guard !sink.isStoppedOrDisposed else { return nil }
            state.count += 1
            sink.joinedGeneration.store(state.generation, ordering: .relaxed)
            return state.count == 1 ? state.generation : nil
        }
        guard let connectGeneration else { return }
        // User code: outside the lock.
        let connection = source.connect()
        let stale = state.withLock { state -> Bool in
            // Everyone left, or the source ended, while `connect()` ran.
            guard state.generation == connectGeneration, state.count > 0 else { return true }
            state.connection = connection
            return false
        }
        if stale {
            connection.dispose()
        }
    }

    /// `sink` was disposed: the last subscriber of the current connection disposes it.
    func leave(_ sink: ConnectableRefCountSink<Source>) {
        let connection = state.withLock { state -> Disposable? in
            guard sink.joinedGeneration.load(ordering: .relaxed) == state.generation, state.count > 0 else { return nil }
            state.count -= 1
            guard state.count == 0 else { return nil }
            return endConnection(&state)
        }
        connection?.dispose()
    }

    /// `sink` received the source's terminal event: the connection is over for every subscriber.
    func sourceTerminated(_ sink: ConnectableRefCountSink<Source>) {
        let connection = state.withLock { state -> Disposable? in
            guard sink.joinedGeneration.load(ordering: .relaxed) == state.generation else { return nil }
            return endConnection(&state)
        }
        connection?.dispose()
    }

    /// Ends the current connection; returns it, to dispose after unlocking (nil while `connect()`
    /// still runs: the thread running it disposes it when it sees the new generation).
    private func endConnection(_ state: inout State) -> Disposable? {
        state.count = 0
        state.generation &+= 1
        defer { state.connection = nil }
        return state.connection
    }
}

/// Forwards the connectable's events; leaves the count when disposed, and ends the connection on a
/// terminal event before passing it on.
// @unchecked Sendable: `parent` is immutable; `joinedGeneration` is atomic and written under the
// parent's lock; the rest is the atomic lifecycle word of Sink.
final class ConnectableRefCountSink<Source: ConnectableObservableType>: Sink<Source.Element, Source.Element>, @unchecked Sendable {
    private let parent: ConnectableRefCountObservable<Source>
    /// The connection this subscriber was counted in; -1 until counted.
    let joinedGeneration = Atomic<Int>(-1)

    init(parent: ConnectableRefCountObservable<Source>, downstream: ObserverNode<Source.Element>) {
        self.parent = parent
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Source.Element) {
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            parent.sourceTerminated(self)
            downstream.onError(error)
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            parent.sourceTerminated(self)
            downstream.onCompleted()
            dispose()
        }
    }

    override func didDispose() {
        parent.leave(self)
        super.didDispose()
    }
}
