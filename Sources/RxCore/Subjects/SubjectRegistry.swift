/// One registered observer, in subscription order. A removed observer leaves a hole (`nil`) until
/// the next compaction.
struct SubjectSlot {
    let key: Int
    var subscription: SubjectSubscriptionBase?
}

/// The live observers of a subject; lives inside the subject's `LockedState`.
///
/// The observers are an array of slots sorted by key (keys only grow). `onNext` copies the array
/// under the lock, which only retains its buffer, and delivers after unlocking: no allocation per
/// event. Subscribing appends (amortized O(1)); disposing finds the slot by binary search and
/// leaves a hole, and holes are compacted once they outnumber the live observers, so removing all
/// of 100,000 observers is O(n log n) overall, not O(n²). A mutation while another thread still
/// delivers from its snapshot copies the array (copy-on-write), never the other way round.
///
/// Non-generic on purpose: see `SubjectSubscriptionBase`.
struct SubjectRegistry {
    private(set) var slots: ContiguousArray<SubjectSlot> = []
    private(set) var count = 0
    private var nextKey = 0

    /// A key greater than every key handed out before.
    mutating func makeKey() -> Int {
        defer { nextKey &+= 1 }
        return nextKey
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
    }

    /// Removes the observer for `key`; returns it, to be released after the lock.
    mutating func remove(forKey key: Int) -> SubjectSubscriptionBase? {
        let index = index(of: key)
        guard index < slots.count, slots[index].key == key, let removed = slots[index].subscription else {
            return nil
        }
        slots[index].subscription = nil
        count -= 1
        if count == 0 {
            slots = []
        } else if slots.count - count > max(32, count) {
            slots.removeAll { $0.subscription == nil }
        }
        return removed
    }

    /// Removes every observer; returns them, to deliver a terminal event to (or release) after the lock.
    mutating func removeAll() -> ContiguousArray<SubjectSlot> {
        defer {
            slots = []
            count = 0
        }
        return slots
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
