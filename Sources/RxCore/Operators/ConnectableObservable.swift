/// A shared sequence that subscribes to its source only when `connect()` is called; made by
/// `multicast`, `publish()`, `replay(_:)` and `replayAll()`.
///
/// Subscribers receive the events of the current connection through the connectable's subject.
/// `refCount()` (from `ConnectableObservableType`) connects on the first subscriber and disconnects
/// after the last one leaves; for this class it counts subscribers on its own connections, so
/// that however subscribers race, each connection subscribes to the source once.
///
/// Each connection is an object of its own that holds its subject, so a subscriber always listens
/// to the subject of the connection it joined, whatever other threads connect and disconnect
/// meanwhile: with `makeSubject`, a new connection gets a new subject (an empty replay buffer);
/// with a fixed subject, every connection shares it, and once it has terminated later subscribers
/// get its terminal event.
///
/// - Note: `connect()`, `subscribe` and disposing are thread-safe; events arrive on the thread the
///   source emits on.
// @unchecked Sendable: the current connection and its reference count live in one LockedState.
public final class ConnectableObservable<Element>: Observable<Element>, ConnectableObservableType, @unchecked Sendable {
    private struct State {
        /// The connection subscribers join; `nil` until one is needed or after it ended.
        var current: MulticastConnection<Element>?
        /// `refCount()` subscribers of `current`.
        var referenceCount = 0
        /// Whether `current` was claimed for connecting (by `connect()` or a first `refCount()` subscriber).
        var isConnectClaimed = false
    }

    private let source: Observable<Element>
    private let makeSubject: @Sendable () -> MulticastSubject<Element>
    private let state = LockedState<State>.make(State())

    init(source: Observable<Element>, makeSubject: @escaping @Sendable () -> MulticastSubject<Element>) {
        self.source = source
        self.makeSubject = makeSubject
        super.init()
    }

    /// Subscribes the subject to the source, unless a connection is already running.
    ///
    /// - Returns: The connection: disposing it unsubscribes from the source; the next `connect()`
    ///   starts a new one (with a new subject, if the connectable was made with `makeSubject`).
    /// - Note: Thread-safe; events the source sends synchronously arrive on the calling thread.
    public func connect() -> Disposable {
        while true {
            let connection = currentConnection()
            let claimed = state.withLock { state -> Bool? in
                guard state.current === connection else { return nil }
                defer { state.isConnectClaimed = true }
                return !state.isConnectClaimed
            }
            guard let claimed else { continue }
            if claimed {
                start(connection)
            }
            return connection
        }
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        currentConnection().subject.observable.subscribe(observer)
    }

    // MARK: Connections

    /// The current connection, created (outside the lock: `makeSubject` is user code) if needed.
    private func currentConnection() -> MulticastConnection<Element> {
        if let current = state.withLock({ $0.current }) {
            return current
        }
        let fresh = MulticastConnection(subject: makeSubject(), parent: self)
        return state.withLock { state in
            if let current = state.current { return current }
            state.current = fresh
            state.referenceCount = 0
            state.isConnectClaimed = false
            return fresh
        }
    }

    /// Subscribes `connection` to the source.
    private func start(_ connection: MulticastConnection<Element>) {
        // A connection whose subscribers all left before it started need not run the source.
        guard !connection.isDisposed else { return }
        connection.setUpstream(source.subscribe(connection))
    }

    /// Joins the current connection as a `refCount()` subscriber; returns it, and whether this
    /// subscriber must start it (after subscribing to its subject).
    func join() -> (MulticastConnection<Element>, mustStart: Bool) {
        while true {
            let connection = currentConnection()
            let mustStart = state.withLock { state -> Bool? in
                guard state.current === connection else { return nil }
                state.referenceCount += 1
                defer { state.isConnectClaimed = true }
                return !state.isConnectClaimed
            }
            if let mustStart {
                return (connection, mustStart)
            }
        }
    }

    /// Starts a connection that `join()` said this subscriber must start.
    func startJoined(_ connection: MulticastConnection<Element>) {
        start(connection)
    }

    /// A `refCount()` subscriber of `connection` left; the last one disposes the connection.
    func leave(_ connection: MulticastConnection<Element>) {
        let ended = state.withLock { state -> Bool in
            guard state.current === connection else { return false }
            state.referenceCount -= 1
            guard state.referenceCount == 0 else { return false }
            state.current = nil
            return true
        }
        if ended {
            connection.dispose()
        }
    }

    /// `connection` ended (terminated or disposed): the next subscriber or `connect()` gets a new one.
    func detach(_ connection: MulticastConnection<Element>) {
        state.withLock { state in
            if state.current === connection {
                state.current = nil
            }
        }
    }
}
