/// A subject split into what subscribers subscribe to and where the source's events go in.
struct MulticastSubject<Element> {
    let observable: Observable<Element>
    let input: ObserverNode<Element>

    /// Wraps any subject; the subjects of this module get a direct input (no `Event` per element).
    init<Subject: SubjectType>(_ subject: Subject)
    where Subject.Element == Element, Subject.Observer.Element == Element {
        observable = subject.asObservable()
        let observer = subject.asObserver()
        if let publish = observer as? PublishSubject<Element> {
            input = SubjectInputNode(publish)
        } else if let replay = observer as? ReplaySubject<Element> {
            input = SubjectInputNode(replay)
        } else if let behavior = observer as? BehaviorSubject<Element> {
            input = SubjectInputNode(behavior)
        } else {
            input = ForwardingObserverNode(observer)
        }
    }
}

/// The input side of the subjects of this module.
protocol SubjectInput: AnyObject {
    associatedtype Element
    func onNext(_ element: Element)
    func onError(_ error: Error)
    func onCompleted()
}

extension PublishSubject: SubjectInput {}
extension BehaviorSubject: SubjectInput {}
extension ReplaySubject: SubjectInput {}

/// Sends events straight into one of this module's subjects.
// @unchecked Sendable: immutable; the subjects are thread-safe.
final class SubjectInputNode<Input: SubjectInput>: ObserverNode<Input.Element>, @unchecked Sendable {
    private let input: Input

    init(_ input: Input) {
        self.input = input
    }

    override func onNext(_ element: Input.Element) { input.onNext(element) }
    override func onError(_ error: Error) { input.onError(error) }
    override func onCompleted() { input.onCompleted() }
}

/// One connection of a `ConnectableObservable`: subscribed to the source, it feeds the subject;
/// it is also the disposable `connect()` returns.
///
/// On a terminal event it first detaches from its parent (so that a subscriber reacting to the
/// event gets a new connection), then forwards the event to the subject, then disposes.
// @unchecked Sendable: `subject` is immutable, `parent` is weak and set once; events use the lifecycle word.
final class MulticastConnection<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    let subject: MulticastSubject<Element>
    // Weak: the parent holds its current connection; a running connection needs no parent.
    private weak var parent: ConnectableObservable<Element>?

    init(subject: MulticastSubject<Element>, parent: ConnectableObservable<Element>) {
        self.subject = subject
        self.parent = parent
        super.init()
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed {
            subject.input.onNext(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            parent?.detach(self)
            subject.input.onError(error)
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            parent?.detach(self)
            subject.input.onCompleted()
            dispose()
        }
    }

    override func didDispose() {
        parent?.detach(self)
    }
}
