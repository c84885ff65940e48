import Foundation

/// Two counts over a sliding window of whole seconds, in one-second buckets: enough precision for
/// a retry budget and a failure ratio, with memory bounded by the window's length.
struct SlidingWindow: Sendable {
    private struct Bucket {
        var second: Int64
        var a: Double
        var b: Double
    }

    private var buckets: [Bucket] = []
    let length: TimeInterval

    init(length: TimeInterval) {
        self.length = max(1, length)
    }

    /// Adds `a` and `b` to the counts of the second `now` falls in.
    mutating func add(a: Double = 0, b: Double = 0, now: Date) {
        let key = Self.second(of: now)
        prune(now: now)
        if let last = buckets.indices.last, buckets[last].second == key {
            buckets[last].a += a
            buckets[last].b += b
        } else {
            buckets.append(Bucket(second: key, a: a, b: b))
        }
    }

    /// The totals of `a` and `b` over the window ending at `now`.
    mutating func totals(now: Date) -> (a: Double, b: Double) {
        prune(now: now)
        return buckets.reduce((0, 0)) { ($0.0 + $1.a, $0.1 + $1.b) }
    }

    mutating func reset() {
        buckets.removeAll()
    }

    private mutating func prune(now: Date) {
        let oldest = Self.second(of: now) - Int64(length.rounded(.up)) + 1
        if let firstKept = buckets.firstIndex(where: { $0.second >= oldest }) {
            if firstKept > 0 { buckets.removeFirst(firstKept) }
        } else {
            buckets.removeAll()
        }
    }

    private static func second(of date: Date) -> Int64 {
        let value = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard value.isFinite, abs(value) < 9e15 else { return 0 }
        return Int64(value)
    }
}
