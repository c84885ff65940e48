/// A sequence that is also an observer: events sent to it go out to its subscribers.
///
/// `PublishSubject`, `BehaviorSubject` and `ReplaySubject` conform; `multicast` takes any conformer.
public protocol SubjectType: ObservableType {
    /// The observer side of the subject (the subject itself for the subjects of this module).
    associatedtype Observer: ObserverType

    /// Returns the observer side, to which events for the subscribers are sent.
    func asObserver() -> Observer
}

/// How long `share(replay:scope:)` keeps its subject.
public enum SubjectLifetimeScope: Sendable {
    /// The subject lives for one connection: when the last subscriber leaves (or the source
    /// terminates) the source subscription is disposed and the replay buffer dropped; the next
    /// subscriber subscribes to the source anew.
    case whileConnected
    /// One subject for the life of the shared sequence: its replay buffer survives reconnections,
    /// and the source is resubscribed when the count of subscribers goes from 0 to 1. Once the
    /// source has terminated, every later subscriber gets the replay and that terminal event, and
    /// the source is not subscribed again.
    case forever
}
