import RxCore
import XCTest

/// A cold source the test drives by hand, counting subscriptions and disposals.
// @unchecked Sendable: a test double driven from the test's one thread (its closures are
// `@Sendable` because RxCore requires it, not because they run elsewhere).
final class ManualSource<Element>: @unchecked Sendable {
    private(set) var subscriptionCount = 0
    /// Disposals seen by each subscription, by order of subscription.
    private(set) var disposals: [Int] = []
    private var observers: [AnyObserver<Element>] = []

    lazy var observable: Observable<Element> = Observable.create { [unowned self] observer in
        let index = subscriptionCount
        subscriptionCount += 1
        disposals.append(0)
        observers.append(observer)
        return Disposables.create { [unowned self] in disposals[index] += 1 }
    }

    func send(_ event: Event<Element>) {
        observers.forEach { $0.on(event) }
    }

    func releaseObservers() {
        observers = []
    }
}

/// What a subscriber saw, in order.
// @unchecked Sendable: a test double used from the test's one thread, as `ManualSource`.
final class EventLog<Element>: @unchecked Sendable {
    private(set) var elements: [Element] = []
    private(set) var terminalEvents = 0

    func subscribe(to observable: Observable<Element>) -> Disposable {
        observable.subscribe(
            onNext: { [unowned self] in elements.append($0) },
            onError: { [unowned self] _ in terminalEvents += 1 },
            onCompleted: { [unowned self] in terminalEvents += 1 }
        )
    }
}

/// The checks every operator passes (OpenCombine's CommonTests idea): nothing happens before
/// subscribe, each subscription is its own, dispose mid-stream reaches upstream once and stops
/// delivery, and nothing follows a terminal event.
///
/// - Parameters:
///   - name: Shown in failures.
///   - passesElements: Whether the operator forwards upstream elements synchronously (map-like);
///     if not, element counts are not compared.
///   - apply: Builds the operator over the given source.
func assertOperatorConformance<Output>(
    _ name: String,
    passesElements: Bool = true,
    file: StaticString = #filePath,
    line: UInt = #line,
    _ apply: (Observable<Int>) -> Observable<Output>
) {
    do {
        let source = ManualSource<Int>()
        let chain = apply(source.observable)
        XCTAssertEqual(source.subscriptionCount, 0, "\(name): subscribed before anyone subscribed", file: file, line: line)

        let first = EventLog<Output>()
        let second = EventLog<Output>()
        let firstSubscription = first.subscribe(to: chain)
        let secondSubscription = second.subscribe(to: chain)
        XCTAssertEqual(source.subscriptionCount, 2, "\(name): each subscription subscribes upstream once", file: file, line: line)

        source.send(.next(1))
        if passesElements {
            XCTAssertEqual(first.elements.count, 1, "\(name): element not delivered", file: file, line: line)
            XCTAssertEqual(second.elements.count, 1, "\(name): element not delivered", file: file, line: line)
        }

        firstSubscription.dispose()
        XCTAssertEqual(source.disposals.first, 1, "\(name): dispose did not reach upstream exactly once", file: file, line: line)
        let seenBeforeDispose = first.elements.count
        source.send(.next(2))
        XCTAssertEqual(first.elements.count, seenBeforeDispose, "\(name): delivered after dispose", file: file, line: line)
        firstSubscription.dispose()
        XCTAssertEqual(source.disposals.first, 1, "\(name): a second dispose reached upstream", file: file, line: line)

        secondSubscription.dispose()
        source.releaseObservers()
    }
    do {
        let source = ManualSource<Int>()
        let log = EventLog<Output>()
        let subscription = log.subscribe(to: apply(source.observable))
        source.send(.next(1))
        source.send(.completed)
        let seenAtCompletion = log.elements.count
        source.send(.error(ConformanceError.late))
        source.send(.next(3))
        source.send(.completed)
        XCTAssertLessThanOrEqual(log.terminalEvents, 1, "\(name): more than one terminal event", file: file, line: line)
        XCTAssertEqual(log.elements.count, seenAtCompletion, "\(name): element after completion", file: file, line: line)
        subscription.dispose()
        source.releaseObservers()
    }
}

enum ConformanceError: Error {
    case late
}
