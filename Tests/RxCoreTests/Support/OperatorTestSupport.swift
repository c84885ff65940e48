import Foundation
import RxCore
import XCTest

/// One event as a test sees it; errors compare by their reflected description.
enum Observed<Element: Equatable>: Equatable, CustomStringConvertible {
    case next(Element)
    case failed(String)
    case completed

    static func error(_ error: Error) -> Observed {
        .failed(String(reflecting: error))
    }

    var isTerminal: Bool {
        if case .next = self { return false }
        return true
    }

    var description: String {
        switch self {
        case .next(let element): return "next(\(element))"
        case .failed(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

/// Records the events of subscriptions, from any thread, and notices grammar violations: a delivery
/// that overlaps another one (two threads inside the observer at once) or an event after a terminal.
// @unchecked Sendable: every stored var is only touched under `lock`.
final class Recorder<Element: Equatable & SendableMetatype>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Observed<Element>] = []
    private var inside = 0
    private var overlaps = 0
    private var afterTerminal = 0
    private var disposedCount = 0

    var events: [Observed<Element>] { locked { stored } }
    var elements: [Element] {
        events.compactMap { if case .next(let element) = $0 { return element } else { return nil } }
    }
    var terminalCount: Int { events.filter(\.isTerminal).count }
    var overlapCount: Int { locked { overlaps } }
    var eventsAfterTerminal: Int { locked { afterTerminal } }
    var disposed: Int { locked { disposedCount } }

    func subscribe<O: ObservableConvertibleType>(_ source: O) -> Disposable where O.Element == Element {
        source.asObservable().subscribe(
            onNext: { [self] in record(.next($0)) },
            onError: { [self] in record(.error($0)) },
            onCompleted: { [self] in record(.completed) },
            onDisposed: { [self] in locked { disposedCount += 1 } }
        )
    }

    /// Asserts the grammar `next* (error | completed)` with exactly one terminal, and no overlap.
    func assertOneTerminal(file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(terminalCount, 1, "terminal events: \(events)", file: file, line: line)
        XCTAssertEqual(events.last?.isTerminal, true, "last event: \(String(describing: events.last))", file: file, line: line)
        XCTAssertEqual(eventsAfterTerminal, 0, file: file, line: line)
        XCTAssertEqual(overlapCount, 0, "concurrent deliveries", file: file, line: line)
    }

    private func record(_ event: Observed<Element>) {
        locked {
            inside += 1
            if inside > 1 { overlaps += 1 }
            if stored.contains(where: \.isTerminal) { afterTerminal += 1 }
            stored.append(event)
        }
        // Widen the window in which an overlapping delivery from another thread would be seen.
        sched_yield()
        locked { inside -= 1 }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// Subscribes, disposes, and returns what was delivered synchronously.
func collect<O: ObservableConvertibleType>(_ source: O) -> [Observed<O.Element>] where O.Element: Equatable & SendableMetatype {
    let recorder = Recorder<O.Element>()
    recorder.subscribe(source).dispose()
    return recorder.events
}

/// Subscribes to a `Single`, disposes, and returns the outcome delivered synchronously, if any.
func collect<Element: Equatable & SendableMetatype>(_ single: Single<Element>) -> [Observed<Element>] {
    nonisolated(unsafe) var events: [Observed<Element>] = []
    single.subscribe(
        onSuccess: { events.append(.next($0)) },
        onFailure: { events.append(.error($0)) }
    ).dispose()
    return events
}

/// A hot source driven by the test: every subscriber (added by `observable`) receives what the test
/// sends, from whatever thread it sends it. Counts subscriptions and disposals.
// @unchecked Sendable: every stored var is only touched under `lock`.
final class DrivenSource<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var observers: [Int: AnyObserver<Element>] = [:]
    private var nextKey = 0
    private var subscribeCount = 0
    private var disposeCount = 0

    var subscriptions: Int { locked { subscribeCount } }
    var disposals: Int { locked { disposeCount } }
    var observerCount: Int { locked { observers.count } }

    /// Subscribing adds an observer; disposing the subscription removes it.
    var observable: Observable<Element> {
        Observable.create { [self] observer in
            let key = locked { () -> Int in
                subscribeCount += 1
                nextKey += 1
                observers[nextKey] = observer
                return nextKey
            }
            return Disposables.create { [self] in
                locked {
                    disposeCount += 1
                    observers[key] = nil
                }
            }
        }
    }

    func onNext(_ element: Element) { current().forEach { $0.onNext(element) } }
    func onError(_ error: Error) { current().forEach { $0.onError(error) } }
    func onCompleted() { current().forEach { $0.onCompleted() } }

    private func current() -> [AnyObserver<Element>] {
        locked { observers.keys.sorted().compactMap { observers[$0] } }
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

/// Checks every operator must pass, whatever it does to elements (OpenCombine's CommonTests idea):
/// disposing mid-stream disposes upstream once and silences the subscription; a source that keeps
/// talking after its terminal event is ignored; a terminal event from upstream disposes upstream.
/// `apply` builds the operator on top of a source of Ints; the source emits 1, 2, 3 then ends.
func assertOperatorBasics<R: Equatable & SendableMetatype>(
    file: StaticString = #filePath,
    line: UInt = #line,
    _ apply: (Observable<Int>) -> Observable<R>
) {
    // Dispose mid-stream.
    do {
        let source = DrivenSource<Int>()
        let recorder = Recorder<R>()
        let subscription = recorder.subscribe(apply(source.observable))
        source.onNext(1)
        let before = recorder.events
        subscription.dispose()
        subscription.dispose()
        source.onNext(2)
        source.onCompleted()
        XCTAssertEqual(source.disposals, source.subscriptions, "every upstream subscription disposed", file: file, line: line)
        XCTAssertEqual(source.observerCount, 0, file: file, line: line)
        XCTAssertEqual(recorder.events, before, "nothing after dispose", file: file, line: line)
        XCTAssertEqual(recorder.disposed, 1, "onDisposed exactly once", file: file, line: line)
    }
    // Terminal events from upstream release upstream.
    for terminal in [Observed<Int>.completed, .error(TestError.boom)] {
        let source = DrivenSource<Int>()
        let recorder = Recorder<R>()
        let subscription = recorder.subscribe(apply(source.observable))
        source.onNext(1)
        if terminal == .completed { source.onCompleted() } else { source.onError(TestError.boom) }
        if recorder.terminalCount == 1 {
            XCTAssertEqual(source.observerCount, 0, "upstream disposed after \(terminal)", file: file, line: line)
        }
        subscription.dispose()
        XCTAssertEqual(source.observerCount, 0, file: file, line: line)
        XCTAssertLessThanOrEqual(recorder.terminalCount, 1, file: file, line: line)
    }
    // A misbehaving source: talks after its own terminal event.
    for endWithError in [false, true] {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onNext(3)
            if endWithError { observer.onError(TestError.boom) } else { observer.onCompleted() }
            observer.onNext(4)
            observer.onError(TestError.other)
            observer.onCompleted()
            return Disposables.create()
        }
        let recorder = Recorder<R>()
        recorder.subscribe(apply(source)).dispose()
        XCTAssertLessThanOrEqual(recorder.terminalCount, 1, "\(recorder.events)", file: file, line: line)
        XCTAssertEqual(recorder.eventsAfterTerminal, 0, "\(recorder.events)", file: file, line: line)
        XCTAssertFalse(recorder.events.contains(.error(TestError.other)), "\(recorder.events)", file: file, line: line)
        XCTAssertEqual(recorder.disposed, 1, file: file, line: line)
    }
}

/// Returns `value`, except that it throws `TestError.boom` for 2: the closure under test in
/// `assertThrowingClosureFails`.
func passOrThrowAt2(_ value: Int) throws -> Int {
    if value == 2 { throw TestError.boom }
    return value
}

/// Checks that an operator whose closure throws (built with `passOrThrowAt2`) fails with the
/// thrown error when the source emits 2, disposes the source, and delivers nothing more.
func assertThrowingClosureFails<R: Equatable & SendableMetatype>(
    file: StaticString = #filePath,
    line: UInt = #line,
    _ apply: (Observable<Int>) -> Observable<R>
) {
    let source = DrivenSource<Int>()
    let recorder = Recorder<R>()
    let subscription = recorder.subscribe(apply(source.observable))
    source.onNext(1)
    source.onNext(2)
    XCTAssertEqual(source.observerCount, 0, "source disposed after the throw", file: file, line: line)
    source.onNext(3)
    source.onCompleted()
    XCTAssertEqual(recorder.events.last, .error(TestError.boom), "\(recorder.events)", file: file, line: line)
    XCTAssertEqual(recorder.terminalCount, 1, file: file, line: line)
    XCTAssertEqual(recorder.disposed, 1, file: file, line: line)
    subscription.dispose()
}
