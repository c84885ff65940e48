extension Observable where Element: FixedWidthInteger & SendableMetatype {
    /// Emits `0`, `1`, `2`, … every `period`, the first one `period` after subscription; never
    /// completes.
    ///
    /// - Parameters:
    ///   - period: The spacing of the elements (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: A cold sequence; disposing a subscription stops its timer at once.
    /// - Note: Elements arrive on `scheduler`, one at a time. Thread-safe.
    public static func interval(_ period: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        TimerObservable(dueTime: period, period: period, scheduler: scheduler)
    }
}
