import Foundation
import RxCore
import Synchronization
import XCTest

/// A hand-driven source built on `Observable.create`: the test sends events through it and can see
/// whether it is subscribed and how often its subscription was disposed.
// @unchecked Sendable: all mutable state is in `box`, a LockedBox.
final class ThreadSafeSource<Element>: @unchecked Sendable {
    private struct State {
        var observer: AnyObserver<Element>?
        var subscriptions = 0
        var disposals = 0
    }

    private let box = LockedBox(State())

    /// The source; each subscription replaces the observer events go to.
    var observable: Observable<Element> {
        Observable.create { [box] observer in
            box.mutate {
                $0.observer = observer
                $0.subscriptions += 1
            }
            return Disposables.create {
                box.mutate {
                    $0.observer = nil
                    $0.disposals += 1
                }
            }
        }
    }

    var isSubscribed: Bool { box.value.observer != nil }
    var subscriptions: Int { box.value.subscriptions }
    var disposals: Int { box.value.disposals }

    func onNext(_ element: Element) { box.value.observer?.onNext(element) }
    func onError(_ error: Error) { box.value.observer?.onError(error) }
    func onCompleted() { box.value.observer?.onCompleted() }
}

/// A `Single` the test resolves by hand, counting subscriptions and disposals.
// @unchecked Sendable: all mutable state is in `box`, a LockedBox.
final class ManualSingle<Element>: @unchecked Sendable {
    private struct State {
        var resolve: ((SingleEvent<Element>) -> Void)?
        var subscriptions = 0
        var disposals = 0
    }

    private let box = LockedBox(State())

    var single: Single<Element> {
        Single.create { [box] resolve in
            box.mutate {
                $0.resolve = resolve
                $0.subscriptions += 1
            }
            return Disposables.create {
                box.mutate {
                    $0.resolve = nil
                    $0.disposals += 1
                }
            }
        }
    }

    var subscriptions: Int { box.value.subscriptions }
    var disposals: Int { box.value.disposals }

    func succeed(_ element: Element) { box.value.resolve?(.success(element)) }
    func fail(_ error: Error) { box.value.resolve?(.failure(error)) }
}

/// Records what reaches a subscriber and checks the grammar as it goes: never two events at once,
/// never an event inside another (re-entrancy), never anything after a terminal event.
// @unchecked Sendable: `events` is a LockedBox; the counters are atomics.
final class GrammarRecorder<Element>: @unchecked Sendable {
    let events = LockedBox<[Event<Element>]>([])
    private let inside = Atomic<Int>(0)
    private let overlaps = Atomic<Int>(0)
    private let afterTerminal = Atomic<Int>(0)
    private let terminals = Atomic<Int>(0)

    /// How many times an event arrived while another was being handled.
    var overlapCount: Int { overlaps.load(ordering: .sequentiallyConsistent) }
    /// How many events arrived after a terminal one.
    var lateEventCount: Int { afterTerminal.load(ordering: .sequentiallyConsistent) }
    /// How many terminal events arrived.
    var terminalCount: Int { terminals.load(ordering: .sequentiallyConsistent) }

    var elements: [Element] { events.value.compactMap(\.element) }
    var isCompleted: Bool { events.value.last?.isCompleted ?? false }
    var error: Error? { events.value.last?.error }

    /// Subscribes to `source`, optionally running `reaction` (inside the observer call) per element.
    func subscribe(_ source: Observable<Element>, onElement reaction: (@Sendable (Element) -> Void)? = nil) -> Disposable {
        source.subscribe(
            onNext: { element in self.handle(.next(element)) { reaction?(element) } },
            onError: { self.handle(.error($0)) },
            onCompleted: { self.handle(.completed) }
        )
    }

    private func handle(_ event: Event<Element>, reaction: () -> Void = {}) {
        enter()
        if terminals.load(ordering: .sequentiallyConsistent) > 0 {
            afterTerminal.add(1, ordering: .sequentiallyConsistent)
        }
        if event.isStopEvent {
            terminals.add(1, ordering: .sequentiallyConsistent)
        }
        events.mutate { $0.append(event) }
        // Widen the window in which a concurrent delivery would be caught.
        for _ in 0..<20 { _ = inside.load(ordering: .sequentiallyConsistent) }
        reaction()
        leave()
    }

    private func enter() {
        if inside.add(1, ordering: .sequentiallyConsistent).oldValue != 0 {
            overlaps.add(1, ordering: .sequentiallyConsistent)
        }
    }

    private func leave() {
        inside.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// Asserts the grammar held: serialized delivery, exactly `terminalCount` terminal events.
    func assertGrammar(terminalCount expected: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(overlapCount, 0, "downstream was entered concurrently or re-entrantly", file: file, line: line)
        XCTAssertEqual(lateEventCount, 0, "events after the terminal event", file: file, line: line)
        XCTAssertEqual(terminalCount, expected, "terminal events", file: file, line: line)
    }
}
