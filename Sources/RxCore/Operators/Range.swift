extension Observable where Element: FixedWidthInteger & SendableMetatype {
    /// The `count` consecutive integers from `start` (RxSwift's `range`), each sent by its own
    /// action on `scheduler`, then completion, sent by one more action.
    ///
    /// - Parameters:
    ///   - start: The first integer.
    ///   - count: How many integers to emit; 0 completes at once (in one action).
    ///   - scheduler: Where the integers are sent. The default, `CurrentThreadScheduler.instance`,
    ///     sends them on the subscribing thread, trampolined.
    /// - Returns: A cold sequence; disposing it cancels the pending action. Fails with
    ///   `RxError.argumentOutOfRange`, at subscription and without scheduling anything, if `count`
    ///   is negative or if the last integer, `start + count - 1`, does not fit in `Element`
    ///   (RxSwift traps on both).
    /// - Note: Events arrive on `scheduler`, one action at a time. Thread-safe. `Element` is any
    ///   fixed-width integer type whose conformances are usable from any thread
    ///   (`SendableMetatype`): every standard integer type is.
    public static func range(
        start: Element,
        count: Element,
        scheduler: any ImmediateSchedulerType = CurrentThreadScheduler.instance
    ) -> Observable<Element> {
        guard count >= 0 else { return .error(RxError.argumentOutOfRange) }
        if count > 0 {
            // The largest element: with it in range, `start + index` never overflows below.
            guard !start.addingReportingOverflow(count - 1).overflow else {
                return .error(RxError.argumentOutOfRange)
            }
        }
        let first = CapturedElement(start)
        let length = CapturedElement(count)
        // The state is the index of the next integer: 0..<count, so neither `index + 1` (at most
        // `count`) nor `start + index` (at most the last element, checked above) can overflow.
        return GenerateObservable(
            initialState: Element.zero,
            condition: { index in index < length.value },
            iterate: { index in index + 1 },
            result: { index in first.value + index },
            scheduler: scheduler
        )
    }
}
