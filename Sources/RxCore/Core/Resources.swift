import Synchronization

/// Counts live RxCore resources (subscriptions, sinks, disposables, scheduled work) in debug builds.
///
/// Tests read `Resources.total` before and after a reactive test: a value that does not come back to
/// its starting point is a subscription that outlived its dispose, or a retain cycle. In release
/// builds counting is compiled out and `total` is always 0.
///
/// - Note: Thread-safe.
public enum Resources {
    /// The number of live resources, or 0 in release builds.
    public static var total: Int {
        liveResourceCount.load(ordering: .acquiring)
    }

    /// Whether this build counts resources (debug builds do).
    public static var isCounting: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// How many times, in this process, an `Observable.create` observer received events from two
    /// threads at once (DEBUG builds check this rule of the Rx grammar; release builds report 0).
    /// A test can assert that it stays 0.
    public static var serializationViolations: Int {
        serializationViolationCount.load(ordering: .relaxed)
    }

    /// Records one more live resource; public so that other modules' resources count too.
    @inline(never)
    public static func incrementTotal() {
        #if DEBUG
        liveResourceCount.add(1, ordering: .relaxed)
        #endif
    }

    /// Records one live resource fewer.
    @inline(never)
    public static func decrementTotal() {
        #if DEBUG
        liveResourceCount.subtract(1, ordering: .releasing)
        #endif
    }
}

private let liveResourceCount = Atomic<Int>(0)
