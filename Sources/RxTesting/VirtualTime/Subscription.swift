/// When an observer subscribed to a testable observable, and when it disposed of the subscription.
///
/// `Subscription(200, 1000)` subscribed at tick 200 and disposed at 1000; `Subscription(200)` is
/// still subscribed (its `unsubscribe` is `Int.max`, RxTest's "never disposed").
public struct Subscription: Hashable, Sendable, CustomDebugStringConvertible {
    /// The tick of the subscription.
    public let subscribe: TestTime
    /// The tick of the dispose, or `Int.max` while still subscribed.
    public let unsubscribe: TestTime

    /// A subscription at `subscribe` that was never disposed.
    public init(_ subscribe: TestTime) {
        self.init(subscribe, Int.max)
    }

    /// A subscription from `subscribe` to `unsubscribe`.
    public init(_ subscribe: TestTime, _ unsubscribe: TestTime) {
        self.subscribe = subscribe
        self.unsubscribe = unsubscribe
    }

    /// `"(200, 1000)"`, or `"(200, never)"` while subscribed.
    public var debugDescription: String {
        let end = unsubscribe == Int.max ? "never" : "\(unsubscribe)"
        return "(\(subscribe), \(end))"
    }
}
