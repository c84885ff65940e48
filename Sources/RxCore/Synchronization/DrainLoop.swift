import Synchronization

/// What one step of a drain loop did.
package enum DrainStep {
    /// It did one piece of pending work (delivered an event, started an attempt); there may be more.
    case delivered
    /// Nothing was pending.
    case idle
    /// It delivered the terminal event (or found its owner disposed): the loop stops for good.
    case finished
}

/// The one way RxCore serializes work that several threads can make ready: every sink that
/// delivers from more than one thread, and every trampoline that must not recurse, runs on it.
///
/// It is the *drain loop* of RxJava and OpenCombine, driven by a work-in-progress counter:
///
/// - whoever makes something ready (queues an event, decides a terminal event, asks for another
///   subscription) records it in its owner's `LockedState` and then calls `signal()`; the caller
///   that moves the counter from 0 owns the *right* and runs the loop (`run(missed:_:)`);
/// - only the owner of the right does the work (calls downstream, subscribes), so that work is
///   never done concurrently nor re-entered: work made ready by the work itself (downstream's
///   reaction emits more; a source fails while it is being subscribed) is recorded and done when
///   the current step returns — in constant stack depth;
/// - the owner does one step at a time (the owner's closure takes the next item under its lock and
///   acts after unlocking), and when a step finds nothing it subtracts the signals it has
///   accounted for; if others signalled meanwhile the result is not zero and it goes round again,
///   so nothing is stranded;
/// - once a step reports `.finished` the right is never given back: nothing is done afterwards.
///
/// In the uncontended case an event costs no queueing at all: `tryClaim()` (one compare-and-swap),
/// the delivery, `release()` (one atomic subtract).
///
/// Non-copyable: it is stored as a `let` of the class that owns the work, whose lock guards the
/// work itself; the counter only decides who does it.
package struct DrainLoop: ~Copyable, Sendable {
    private let pendingSignals = Atomic<Int>(0)

    package init() {}

    /// Records that something became ready; true if the caller now owns the right and must call
    /// `run(missed: 1, _:)` (on this thread, or on a scheduler it hands the work to).
    @inline(__always)
    package func signal() -> Bool {
        pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0
    }

    /// Takes the right if no one holds it and nothing is pending: the fast path of a delivery.
    @inline(__always)
    package func tryClaim() -> Bool {
        pendingSignals.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// Gives the right back after a direct delivery; a result other than 0 means others signalled
    /// meanwhile and the caller must call `run(missed:_:)` with it.
    @inline(__always)
    package func release() -> Int {
        pendingSignals.subtract(1, ordering: .acquiringAndReleasing).newValue
    }

    /// The loop: calls `step` until it finds nothing, then accounts for `missed` signals and goes
    /// round while more arrived. The caller owns the right and has not yet accounted for `missed`.
    package func run(missed: Int, _ step: () -> DrainStep) {
        var missed = missed
        while true {
            steps: while true {
                switch step() {
                case .delivered:
                    continue
                case .idle:
                    break steps
                case .finished:
                    return
                }
            }
            missed = pendingSignals.subtract(missed, ordering: .acquiringAndReleasing).newValue
            if missed == 0 {
                return
            }
        }
    }
}
