import Synchronization

/// What one step of a drain loop did.
enum DrainStep {
    /// It delivered one pending event downstream; there may be more.
    case delivered
    /// Nothing was pending.
    case idle
    /// It delivered the terminal event (or found the sink disposed): the loop stops for good.
    case finished
}

/// The base of every sink fed by several upstreams (zip, combineLatest, merge, flatMap...): it
/// serializes the calls to `downstream` without holding a lock while making them.
///
/// Upstreams may send from different threads at once. Each sink keeps its shared state in one
/// `LockedState`; the lock is held only to update that state and to decide what to deliver, never
/// while calling downstream. Delivery is serialized by the *drain loop* of RxJava and OpenCombine,
/// driven by `pendingSignals`, a work-in-progress counter:
///
/// - whoever makes something deliverable (an element queued, a terminal event decided) adds one;
///   the caller that moves the counter from 0 owns the *emission right* and runs `drain(missed:)`;
/// - only the owner of the emission right calls downstream, so downstream is never entered
///   concurrently nor re-entered: an event sent by downstream's own reaction is queued and
///   delivered after the current call returns;
/// - the owner delivers, takes the next pending item (a subclass's `drainOne()`), and when nothing
///   is pending subtracts the signals it has accounted for; if others signalled meanwhile the
///   result is not zero and it goes round again, so nothing is stranded;
/// - once the terminal event is delivered the owner never gives the right back: nothing reaches
///   downstream afterwards.
///
/// In the uncontended case an element costs no queueing at all: `tryClaimEmission()` (one
/// compare-and-swap), the downstream call, `releaseEmission()` (one atomic subtract). Sinks whose
/// ordering is decided under their lock (zip, combineLatest) claim the right inside that same
/// critical section, so an element costs one lock acquisition.
// @unchecked Sendable: `pendingSignals` is atomic; subclasses keep their state in a LockedState.
class DrainingSink<Input, Output>: Sink<Input, Output>, @unchecked Sendable {
    /// The work-in-progress counter of the drain loop; see the type's documentation.
    let pendingSignals = Atomic<Int>(0)

    /// Takes the next pending item under the subclass's lock and delivers it after unlocking.
    ///
    /// Called only by the owner of the emission right. Subclasses override it.
    func drainOne() -> DrainStep {
        .idle
    }

    /// Records that something became deliverable; runs the drain loop if no one else does.
    @inline(__always)
    final func signal() {
        if pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            drain(missed: 1)
        }
    }

    /// Takes the emission right if no one holds it and nothing is pending: the fast path.
    @inline(__always)
    final func tryClaimEmission() -> Bool {
        pendingSignals.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// Gives the emission right back after a direct delivery, draining whatever arrived meanwhile.
    @inline(__always)
    final func releaseEmission() {
        let missed = pendingSignals.subtract(1, ordering: .acquiringAndReleasing).newValue
        if missed != 0 {
            drain(missed: missed)
        }
    }

    /// The drain loop; the caller owns the emission right and has not yet accounted for `missed`
    /// signals.
    final func drain(missed: Int) {
        var missed = missed
        while true {
            drainPending: while true {
                switch drainOne() {
                case .delivered:
                    continue
                case .idle:
                    break drainPending
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

/// One uninitialized stack slot through which a value leaves a critical section.
///
/// Sinks run as unspecialized generic code, where returning an `Optional<Element>` (or a tuple)
/// from a lock closure costs a type-metadata look-up dearer than the lock itself; a slot typed by
/// the sink's own generic parameter costs none.
typealias ValueSlot<Value> = UnsafeMutableBufferPointer<Value>
