/// The pending work of a `TestScheduler`: a binary min-heap ordered by (tick, scheduling order), plus
/// the live items by id so that disposing one removes it at once.
///
/// A removed item leaves a two-`Int` tombstone in the heap, skipped when it surfaces.
struct VirtualTimeQueue {
    private struct Entry {
        let time: TestTime
        let id: Int

        func precedes(_ other: Entry) -> Bool {
            time != other.time ? time < other.time : id < other.id
        }
    }

    private var heap: [Entry] = []
    private(set) var items: [Int: VirtualScheduledItem] = [:]

    var isEmpty: Bool {
        items.isEmpty
    }

    mutating func insert(_ item: VirtualScheduledItem) {
        items[item.id] = item
        heap.append(Entry(time: item.time, id: item.id))
        siftUp(heap.count - 1)
    }

    /// Forgets the item with `id`; returns it if it was still pending.
    @discardableResult
    mutating func remove(id: Int) -> VirtualScheduledItem? {
        let removed = items.removeValue(forKey: id)
        if items.isEmpty {
            heap.removeAll(keepingCapacity: true)
        }
        return removed
    }

    /// Removes and returns the earliest item due at or before `limit` (any item if `limit` is nil).
    mutating func popFirst(notAfter limit: TestTime?) -> VirtualScheduledItem? {
        while let top = heap.first {
            guard items[top.id] != nil else {
                popTop()
                continue
            }
            if let limit, top.time > limit {
                return nil
            }
            popTop()
            return items.removeValue(forKey: top.id)
        }
        return nil
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count && heap[left].precedes(heap[first]) { first = left }
            if right < heap.count && heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}
