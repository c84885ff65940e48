extension ObservableType {
    /// Shares one subscription to this sequence among all subscribers, replaying the last
    /// `replay` elements to each new one.
    ///
    /// The source is subscribed when the first subscriber arrives and disposed when the last one
    /// leaves. With `.whileConnected` (the default) the next subscriber then subscribes to the
    /// source anew with an empty replay buffer, as it also does after the source terminated. With
    /// `.forever` one subject lives as long as the shared sequence: its buffer, or its terminal
    /// event, reaches every later subscriber.
    ///
    /// - Parameters:
    ///   - replay: How many elements to replay to a new subscriber (0: none).
    ///   - scope: How long the subject lives; see `SubjectLifetimeScope`.
    /// - Returns: The shared sequence.
    /// - Note: Thread-safe: however subscribers race, the source is subscribed once per
    ///   connection. Events arrive on the thread the source emits on.
    public func share(replay: Int = 0, scope: SubjectLifetimeScope = .whileConnected) -> Observable<Element> {
        switch (scope, replay) {
        case (.whileConnected, ...0):
            return multicast(makeSubject: { PublishSubject<Element>() }).refCount()
        case (.whileConnected, _):
            return multicast(makeSubject: { ReplaySubject<Element>.create(bufferSize: replay) }).refCount()
        case (.forever, ...0):
            return multicast(PublishSubject<Element>()).refCount()
        case (.forever, _):
            return multicast(ReplaySubject<Element>.create(bufferSize: replay)).refCount()
        }
    }
}
