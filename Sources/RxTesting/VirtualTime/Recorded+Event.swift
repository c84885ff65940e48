import RxCore

// The RxTest spellings: `[.next(210, 1), .error(220, err), .completed(230)]`.
extension Recorded {
    /// An element at `time`.
    public static func next<Element>(_ time: TestTime, _ element: Element) -> Recorded<Event<Element>>
    where Value == Event<Element> {
        Recorded(time: time, value: .next(element))
    }

    /// Completion at `time`.
    public static func completed<Element>(
        _ time: TestTime, _ type: Element.Type = Element.self
    ) -> Recorded<Event<Element>> where Value == Event<Element> {
        Recorded(time: time, value: .completed)
    }

    /// Failure with `error` at `time`.
    public static func error<Element>(
        _ time: TestTime, _ error: Error, _ type: Element.Type = Element.self
    ) -> Recorded<Event<Element>> where Value == Event<Element> {
        Recorded(time: time, value: .error(error))
    }

    /// The events given, as an array (RxTest's `Recorded.events`).
    public static func events<Element>(_ recordedEvents: Recorded<Event<Element>>...) -> [Recorded<Event<Element>>]
    where Value == Event<Element> {
        recordedEvents
    }
}
