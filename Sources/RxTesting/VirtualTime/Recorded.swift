/// A value stamped with the virtual tick it happened at: an event a `TestableObserver` received,
/// or one a testable observable is scripted to send.
public struct Recorded<Value>: CustomDebugStringConvertible {
    /// The tick.
    public let time: TestTime
    /// What happened.
    public let value: Value

    /// Stamps `value` with `time`.
    public init(time: TestTime, value: Value) {
        self.time = time
        self.value = value
    }

    /// `"next(1) @ 210"`.
    public var debugDescription: String {
        "\(value) @ \(time)"
    }
}

extension Recorded: Equatable where Value: Equatable {}
extension Recorded: Sendable where Value: Sendable {}
