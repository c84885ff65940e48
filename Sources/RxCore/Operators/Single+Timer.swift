extension Single where Element: FixedWidthInteger & SendableMetatype {
    /// Succeeds with `0` after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: A cold `Single`; disposing it cancels the timer.
    /// - Note: The success arrives on `scheduler`. Thread-safe.
    public static func timer(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Single<Element> {
        Single(unchecked: Observable<Element>.timer(dueTime, scheduler: scheduler))
    }
}
