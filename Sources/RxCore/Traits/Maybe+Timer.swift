extension Maybe where Element: FixedWidthInteger & SendableMetatype {
    /// Succeeds with `0` after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: A cold `Maybe`; disposing it cancels the timer.
    /// - Note: The element arrives on `scheduler`. Thread-safe.
    public static func timer(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Maybe<Element> {
        Maybe(unchecked: Observable<Element>.timer(dueTime, scheduler: scheduler))
    }
}
