/// One registered observer, in subscription order. A removed observer leaves a hole (`nil`) until
/// the next compaction.
struct SubjectSlot {
    let key: Int
    var subscription: SubjectSubscriptionBase?
}

/// The observers a subject delivers to, in subscription order: an immutable array.
typealias SubjectSnapshot = ContiguousArray<SubjectSubscriptionBase>

/// The live observers of a subject; lives inside the subject's `LockedState`.
///
/// Two structures, both touched only under the lock:
/// - `slots`, the bookkeeping: sorted by key (keys only grow), so subscribing appends (amortized
///   O(1)) and disposing finds its slot by binary search and leaves a hole; holes are compacted
///   once they outnumber the live observers. Removing all of 100,000 observers is thus
///   O(n log n) overall, not O(n²).
/// - `cachedSnapshot`, what `onNext` delivers to: built from the slots on the first event after a
///   change and never mutated afterwards, only dropped. `onNext` copies it under the lock, which
///   only retains its buffer (no allocation per event), and delivers after unlocking. A delivering
///   thread thus only ever reads a buffer that nobody writes: no reliance on copy-on-write
///   uniqueness checks, whose synchronisation through reference counts ThreadSanitizer cannot see.
///
/// Non-generic on purpose: see `SubjectSubscriptionBase`.
struct SubjectRegistry {
    private var slots: ContiguousArray<SubjectSlot> = []
    private var cachedSnapshot: SubjectSnapshot?
    private(set) var count = 0
    private var nextKey = 0

    /// A key greater than every key handed out before.
    mutating func makeKey() -> Int {
        defer { nextKey &+= 1 }
        return nextKey
    }

    /// The observers to deliver an event to; O(1) unless the observers changed since the last call.
    @inline(__always)
    mutating func snapshot() -> SubjectSnapshot {
        if let cachedSnapshot {
            return cachedSnapshot
        }
        return buildSnapshot()
    }

    @inline(never)
    private mutating func buildSnapshot() -> SubjectSnapshot {
        var built = SubjectSnapshot()
        if count > 0 {
            built.reserveCapacity(count)
            for slot in slots {
                if let subscription = slot.subscription {
                    built.append(subscription)
                }
            }
        }
        cachedSnapshot = built
        return built
    }

    /// Adds an observer.
    mutating func insert(_ subscription: SubjectSubscriptionBase) {
        let slot = SubjectSlot(key: subscription.key, subscription: subscription)
        if let last = slots.last, last.key > subscription.key {
            // An observer that caught up joins after later subscribers: keep the array sorted.
            slots.insert(slot, at: index(of: subscription.key))
        } else {
            slots.append(slot)
        }
        count += 1
        cachedSnapshot = nil
    }

    /// Removes the observer for `key`; returns it, to be released after the lock.
    mutating func remove(forKey key: Int) -> SubjectSubscriptionBase? {
        let index = index(of: key)
        guard index < slots.count, slots[index].key == key, let removed = slots[index].subscription else {
            return nil
        }
        slots[index].subscription = nil
        count -= 1
        cachedSnapshot = nil
        if count == 0 {
            slots = []
        } else if slots.count - count > max(32, count) {
            slots.removeAll { $0.subscription == nil }
        }
        return removed
    }

    /// Removes every observer; returns them, to deliver a terminal event to (or release) after the lock.
    mutating func removeAll() -> SubjectSnapshot {
        let all = snapshot()
        slots = []
        cachedSnapshot = nil
        count = 0
        return all
    }

    /// The index of the slot for `key`, or where it would be inserted.
    private func index(of key: Int) -> Int {
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].key < key {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
