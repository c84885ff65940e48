/// One event of a sequence: `next* (error | completed)?`.
@frozen
public enum Event<Element> {
    /// An element.
    case next(Element)
    /// Termination with an error.
    case error(Error)
    /// Successful termination.
    case completed
}

extension Event {
    /// Whether this is `.error` or `.completed`.
    public var isStopEvent: Bool {
        if case .next = self { return false }
        return true
    }

    /// The element of a `.next` event.
    public var element: Element? {
        if case .next(let element) = self { return element }
        return nil
    }

    /// The error of an `.error` event.
    public var error: Error? {
        if case .error(let error) = self { return error }
        return nil
    }

    /// Whether this is `.completed`.
    public var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }

    /// Transforms the element of a `.next` event; an error thrown by `transform` becomes `.error`.
    public func map<Result>(_ transform: (Element) throws -> Result) -> Event<Result> {
        switch self {
        case .next(let element):
            do { return .next(try transform(element)) } catch { return .error(error) }
        case .error(let error):
            return .error(error)
        case .completed:
            return .completed
        }
    }
}

extension Event: CustomDebugStringConvertible {
    /// The event as `next(element)`, `error(error)` or `completed`.
    public var debugDescription: String {
        switch self {
        case .next(let element): return "next(\(element))"
        case .error(let error): return "error(\(error))"
        case .completed: return "completed"
        }
    }
}

extension Event: Sendable where Element: Sendable {}
