// The workloads of issue 5, free of any benchmark framework, so that the ordo-one/benchmark
// target measures them and the rxcore-profile executable runs one of them under callgrind/perf.

/// The three implementations every core workload runs on, in the same process and run.
public enum Implementation: String, CaseIterable, Sendable {
    case rxCore = "RxCore"
    case openCombine = "OpenCombine"
    case closures = "closures"
}

/// Workload sizes (events or repetitions per run). report.py divides by these.
public enum Size {
    public static let push = 10_000_000
    public static let churn = 1_000_000
    public static let single = 1_000_000
    public static let zip = 1_000_000
    public static let flatMap = 100_000
    public static let merge = 1_000_000
    public static let mergeSources = 8
    public static let liveSubscriptions = 100_000
}

/// Brackets the part of a run that is measured; a workload calls `start` once and `stop` once.
public struct MeasurementWindow {
    public let start: () -> Void
    public let stop: () -> Void

    public init(start: @escaping () -> Void, stop: @escaping () -> Void) {
        self.start = start
        self.stop = stop
    }

    /// A window that measures nothing (profiling runs the whole process).
    public static var unmeasured: MeasurementWindow {
        MeasurementWindow(start: {}, stop: {})
    }
}

/// One workload on one implementation: `run` does the work once and returns a checksum that the
/// caller feeds to a black hole, so that the optimizer cannot drop the work.
public struct Workload: Sendable {
    public let name: String
    public let implementation: Implementation
    /// Events (or repetitions) per run: the divisor for per-event costs.
    public let events: Int
    public let run: @Sendable (MeasurementWindow) -> Int

    public init(
        _ name: String,
        _ implementation: Implementation,
        events: Int,
        run: @escaping @Sendable (MeasurementWindow) -> Int
    ) {
        self.name = name
        self.implementation = implementation
        self.events = events
        self.run = run
    }

    /// "<workload>/<implementation>", the benchmark name report.py pairs up.
    public var id: String { "\(name)/\(implementation.rawValue)" }
}

/// Every workload, in the order the benchmarks run.
public let allWorkloads: [Workload] =
    pushWorkloads + pushCreateWorkloads + churnWorkloads + singleWorkloads + zipWorkloads + mergeWorkloads
    + flatMapWorkloads + memoryWorkloads
