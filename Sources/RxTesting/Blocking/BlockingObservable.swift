import Dispatch
import Foundation
import RxCore

extension ObservableConvertibleType {
    /// The sequence as a `BlockingObservable`, for tests that want plain values (RxBlocking's
    /// spelling): `try client.rx.request(GetUser(id: 1)).toBlocking(timeout: 2).single()`.
    ///
    /// - Parameter timeout: The longest each operator waits, in seconds; nil waits for ever (NaN and
    ///   negative count as 0).
    public func toBlocking(timeout: TimeInterval? = nil) -> BlockingObservable<Element> {
        BlockingObservable(source: asObservable(), timeout: timeout.map { $0.isNaN ? 0 : max(0, $0) })
    }
}

/// Blocks the calling thread until a sequence ends, then hands back what it emitted.
///
/// Each operator subscribes once, waits for the terminal event (or the time-out, which throws
/// `RxError.timeout`), disposes, and rethrows the sequence's error. On the main thread the main
/// run loop runs while it waits (as RxBlocking's), so work on `MainScheduler` or the main queue is
/// done; never call it on another queue the sequence delivers on: it would wait for itself.
public struct BlockingObservable<Element> {
    let source: Observable<Element>
    let timeout: TimeInterval?

    /// Every element, once the sequence completed.
    public func toArray() throws -> [Element] {
        try run(stopAfterFirst: false)
    }

    /// The first element (nil if it completed empty); stops listening after it.
    public func first() throws -> Element? {
        try run(stopAfterFirst: true).first
    }

    /// The last element (nil if it completed empty).
    public func last() throws -> Element? {
        try run(stopAfterFirst: false).last
    }

    /// The one element.
    ///
    /// - Throws: `RxError.noElements` if it completed empty, `RxError.moreThanOneElement` if it
    ///   emitted more, or the sequence's error.
    public func single() throws -> Element {
        let elements = try run(stopAfterFirst: false, failAfterSecond: true)
        guard let element = elements.first else { throw RxError.noElements }
        return element
    }

    /// What the sequence did, as values: its elements and how it ended. Never throws, as
    /// RxBlocking's: a time-out is `.failed` with the elements that came before it and
    /// `RxError.timeout`.
    public func materialize() -> MaterializedSequenceResult<Element> {
        let (elements, error) = collect(stopAfterFirst: false, failAfterSecond: false)
        return error.map { .failed(elements: elements, error: $0) } ?? .completed(elements: elements)
    }

    private func run(stopAfterFirst: Bool, failAfterSecond: Bool = false) throws -> [Element] {
        let (elements, error) = collect(stopAfterFirst: stopAfterFirst, failAfterSecond: failAfterSecond)
        if let error { throw error }
        return elements
    }

    /// Subscribes, waits for the end or the time-out (`RxError.timeout`), and returns what was seen.
    private func collect(stopAfterFirst: Bool, failAfterSecond: Bool) -> ([Element], Error?) {
        let collector = Collector<Element>()
        let done = DispatchSemaphore(value: 0)
        let subscription = source.subscribe { event in
            switch event {
            case .next(let element):
                let count = collector.append(element)
                if stopAfterFirst || (failAfterSecond && count > 1) {
                    if failAfterSecond && count > 1 { collector.fail(RxError.moreThanOneElement) }
                    if collector.finish() { done.signal() }
                }
            case .error(let error):
                collector.fail(error)
                if collector.finish() { done.signal() }
            case .completed:
                if collector.finish() { done.signal() }
            }
        }
        let waited = Self.wait(for: done, timeout: timeout)
        subscription.dispose()
        // A sequence that ended right at the deadline keeps its own outcome.
        if waited == .timedOut, collector.finish() {
            return (collector.value, RxError.timeout)
        }
        return (collector.value, collector.error)
    }

    /// Waits for `done`. On the main thread the main run loop runs meanwhile, in slices of 10 ms, so
    /// that what the sequence scheduled there is done; elsewhere it is a plain wait.
    private static func wait(for done: DispatchSemaphore, timeout: TimeInterval?) -> DispatchTimeoutResult {
        guard Thread.isMainThread else {
            guard let timeout else {
                done.wait()
                return .success
            }
            return done.wait(timeout: .now() + RxTimeInterval.seconds(timeout).dispatchInterval)
        }
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        while done.wait(timeout: .now()) == .timedOut {
            let now = Date()
            if let deadline, now >= deadline { return .timedOut }
            let slice = min(now.addingTimeInterval(0.01), deadline ?? .distantFuture)
            if !RunLoop.current.run(mode: .default, before: slice) {
                // Nothing to run: wait on the semaphore for the slice instead of spinning.
                if done.wait(timeout: .now() + .milliseconds(10)) == .success { return .success }
            }
        }
        return .success
    }
}

/// What `materialize()` saw.
public enum MaterializedSequenceResult<Element> {
    /// The sequence completed after these elements.
    case completed(elements: [Element])
    /// The sequence failed with `error` after these elements.
    case failed(elements: [Element], error: Error)
}

/// Elements and the error of one blocking run, written by the delivering thread.
// @unchecked Sendable: every field is only touched under `lock`.
private final class Collector<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []
    private var failure: Error?
    private var finished = false

    /// Appends and returns the count, unless finished.
    func append(_ element: Element) -> Int {
        lock.withLock {
            guard !finished else { return elements.count }
            elements.append(element)
            return elements.count
        }
    }

    func fail(_ error: Error) {
        lock.withLock { if failure == nil { failure = error } }
    }

    /// Marks the run over; true the first time.
    func finish() -> Bool {
        lock.withLock {
            defer { finished = true }
            return !finished
        }
    }

    var value: [Element] { lock.withLock { elements } }
    var error: Error? { lock.withLock { failure } }
}
