/// How a sequence ended: the one "completed or error" of every sink, subject and state machine in
/// RxCore. Non-generic, so that it can sit in a non-generic state.
enum Termination {
    case completed
    case error(Error)

    /// The terminal event of `event`, or nil for an element.
    init?<Element>(_ event: Event<Element>) {
        switch event {
        case .next: return nil
        case .error(let error): self = .error(error)
        case .completed: self = .completed
        }
    }

    /// The terminal event for an observer of `Element`.
    func event<Element>(of _: Element.Type = Element.self) -> Event<Element> {
        switch self {
        case .error(let error): return .error(error)
        case .completed: return .completed
        }
    }
}

extension Sink {
    /// Sends `termination` downstream (once, whoever calls first) and disposes the sink.
    final func forward(_ termination: Termination) {
        switch termination {
        case .completed: forwardCompleted()
        case .error(let error): forwardError(error)
        }
    }
}
