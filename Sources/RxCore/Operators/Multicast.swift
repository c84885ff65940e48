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
    public func multicast<Subject: SubjectType>(makeSubject: @escaping () -> Subject) -> ConnectableObservable<Element>
    where Subject.Element == Element, Subject.Observer.Element == Element {
        ConnectableObservable(source: asObservable(), makeSubject: { MulticastSubject(makeSubject()) })
    }

    /// `multicast(PublishSubject())`: subscribers get the events sent after they subscribe.
    ///
    /// - Returns: A connectable sequence.
    public func publish() -> ConnectableObservable<Element> {
        multicast(PublishSubject<Element>())
    }

    /// `multicast(ReplaySubject.create(bufferSize:))`: subscribers first get the last
    /// `bufferSize` elements.
    ///
    /// - Parameter bufferSize: How many elements to replay.
    /// - Returns: A connectable sequence.
    public func replay(_ bufferSize: Int) -> ConnectableObservable<Element> {
        multicast(ReplaySubject<Element>.create(bufferSize: bufferSize))
    }

    /// `multicast(ReplaySubject.createUnbound())`: subscribers first get every element so far.
    ///
    /// - Returns: A connectable sequence.
    public func replayAll() -> ConnectableObservable<Element> {
        multicast(ReplaySubject<Element>.createUnbound())
    }
}
