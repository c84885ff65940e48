extension ObservableType {
    /// Shares one subscription to this sequence through `subject`, once `connect()` is called.
    ///
    /// - Parameter subject: The subject every connection feeds and every subscriber listens to; a
    ///   terminal event it received stays with it (later subscribers get it, later connections
    ///   are ignored by it).
    /// - Returns: A connectable sequence.
    /// - Note: Thread-safe; see `ConnectableObservable`.
    public func multicast<Subject: SubjectType>(_ subject: Subject) -> ConnectableObservable<Element>
    where Subject.Element == Element, Subject.Observer.Element == Element {
        let shared = MulticastSubject(subject)
        return ConnectableObservable(source: asObservable(), makeSubject: { shared })
    }

    /// Shares one subscription to this sequence per connection, each through a new subject.
    ///
    /// - Parameter makeSubject: Makes the subject of a connection; called outside any lock, when
    ///   the first subscriber or `connect()` of a connection needs it.
    /// - Returns: A connectable sequence whose every connection starts afresh.
    /// - Note: Thread-safe; see `ConnectableObservable`.
    public func multicast<Subject: SubjectType & SendableMetatype>(makeSubject: @escaping @Sendable () -> Subject) -> ConnectableObservable<Element>
    where Subject.Element == Element, Subject.Observer.Element == Element {
        ConnectableObservable(source: asObservable(), makeSubject: { MulticastSubject(makeSubject()) })
    }

    /// `multicast { PublishSubject() }`: subscribers get the events sent after they subscribe.
    ///
    /// Each connection has its own subject, as in RxSwift: once a connection is disposed or its
    /// source terminated, its subscribers hear nothing from a later connection.
    ///
    /// - Returns: A connectable sequence.
    public func publish() -> ConnectableObservable<Element> {
        multicast(makeSubject: { PublishSubject<Element>() })
    }

    /// `multicast { ReplaySubject.create(bufferSize:) }`: subscribers first get the last
    /// `bufferSize` elements of the current connection.
    ///
    /// Each connection has its own subject, so a new connection starts with an empty buffer.
    ///
    /// - Parameter bufferSize: How many elements to replay.
    /// - Returns: A connectable sequence.
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject<Element>.create(bufferSize: bufferSize) })
    }

    /// `multicast { ReplaySubject.createUnbound() }`: subscribers first get every element of the
    /// current connection so far.
    ///
    /// Each connection has its own subject, so a new connection starts with an empty buffer.
    ///
    /// - Returns: A connectable sequence.
    public func replayAll() -> ConnectableObservable<Element> {
        multicast(makeSubject: { ReplaySubject<Element>.createUnbound() })
    }
}
