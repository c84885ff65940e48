extension Observable where Element: FixedWidthInteger & SendableMetatype {
    /// Emits `0` after `dueTime`, then — if `period` is given — `1`, `2`, … every `period`; without a
    /// period it completes after the `0`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait before the first element (fractional seconds are kept).
    ///   - period: The spacing of the later elements, or nil for a single element.
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler,
    ///     which a daemon may never service.
    /// - Returns: A cold sequence; each subscription starts its own timer, and disposing it cancels
    ///   the timer at once.
    /// - Note: Elements arrive on `scheduler`. Thread-safe.
    public static func timer(
        _ dueTime: RxTimeInterval,
        period: RxTimeInterval? = nil,
        scheduler: any SchedulerType
    ) -> Observable<Element> {
        TimerObservable(dueTime: dueTime, period: period, scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class TimerObservable<Element: FixedWidthInteger & SendableMetatype>: Observable<Element>, @unchecked Sendable {
    private let dueTime: RxTimeInterval
    private let period: RxTimeInterval?
    private let scheduler: any SchedulerType

    init(dueTime: RxTimeInterval, period: RxTimeInterval?, scheduler: any SchedulerType) {
        self.dueTime = dueTime
        self.period = period
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = PassThroughSink(downstream: observer)
        if let period {
            let timer = scheduler.schedulePeriodic(Element.zero, startAfter: dueTime, period: period) { count in
                sink.forwardNext(count)
                return count &+ 1
            }
            sink.setUpstream(classDisposable(timer))
        } else {
            let timer = scheduler.scheduleRelative(sink, dueTime: dueTime) { sink in
                sink.forwardNext(Element.zero)
                sink.forwardCompleted()
                return Disposables.create()
            }
            sink.setUpstream(classDisposable(timer))
        }
        return sink
    }
}
