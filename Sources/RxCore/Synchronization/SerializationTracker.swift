import Foundation
import Synchronization

/// Checks, in DEBUG builds, the rule every sink relies on: events reach an observer one at a time.
///
/// A source made with `Observable.create` is the user's code, and the usual way the rule breaks is
/// an `observer.onNext` called from two threads at once (two URLSession callbacks, two timers).
/// Nothing downstream locks against that, so instead of a rare corrupted buffer the tracker
/// reports the overlap where it starts: it counts it in `Resources.serializationViolations` and
/// writes one line to standard error per source. Re-entrant calls on one thread (an observer that
/// makes its source emit again) are allowed, as in RxSwift's `SynchronizationTracker`. Release
/// builds compile it to nothing.
#if DEBUG
final class SerializationTracker: Sendable {
    private struct State {
        /// The thread inside, and how deep (re-entrant calls).
        var owner: ObjectIdentifier?
        var depth = 0
        var reported = false
    }

    private let state = LockedState<State>.make(State())

    init() {}

    /// Marks an event entering; returns what `leave` needs.
    func enter() -> Bool {
        let thread = ObjectIdentifier(Thread.current)
        let firstOverlap = state.withLock { state -> Bool? in
            if state.owner == nil || state.owner == thread {
                state.owner = thread
                state.depth += 1
                return nil
            }
            defer { state.reported = true }
            return !state.reported
        }
        guard let firstOverlap else { return true }
        serializationViolationCount.add(1, ordering: .relaxed)
        if firstOverlap {
            FileHandle.standardError.write(Data((
                "RxCore: an observer of Observable.create received events from two threads at once; "
                    + "serialize the calls (a serial queue or a lock) or use a subject.\n"
            ).utf8))
        }
        return false
    }

    /// Marks the event entered with `enter()` as finished.
    func leave(_ entered: Bool) {
        guard entered else { return }
        state.withLock { state in
            state.depth -= 1
            if state.depth == 0 { state.owner = nil }
        }
    }
}
#else
struct SerializationTracker: Sendable {
    @inline(__always) func enter() -> Bool { false }
    @inline(__always) func leave(_ entered: Bool) {}
}
#endif

/// How many overlapping deliveries `SerializationTracker` saw (DEBUG builds; always 0 otherwise).
let serializationViolationCount = Atomic<Int>(0)
