import Benchmark

/// The three implementations every core workload is run on, in the same process and run.
enum Implementation: String, CaseIterable {
    case rxCore = "RxCore"
    case openCombine = "OpenCombine"
    case closures = "closures"
}

/// Workload sizes (events or repetitions per benchmark iteration). run.sh divides by these.
enum Size {
    static let push = 10_000_000
    static let churn = 1_000_000
    static let single = 1_000_000
    static let zip = 1_000_000
    static let flatMap = 100_000
    static let merge = 1_000_000
    static let mergeSources = 8
    static let liveSubscriptions = 100_000
}

extension Benchmark.Configuration {
    /// Time, CPU and allocation metrics; a few iterations, since one iteration is a whole workload.
    static func workload(_ events: Int, iterations: Int = 9) -> Benchmark.Configuration {
        .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .memoryLeakedBytes],
            tags: ["events": "\(events)"],
            timeUnits: .milliseconds,
            warmupIterations: 1,
            maxDuration: .seconds(30),
            maxIterations: iterations
        )
    }
}

/// Registers `body` as "<workload>/<implementation>" so that run.sh can pair the three up.
func register(
    _ workload: String,
    _ implementation: Implementation,
    events: Int,
    iterations: Int = 9,
    _ body: @escaping (Benchmark) -> Void
) {
    Benchmark("\(workload)/\(implementation.rawValue)", configuration: .workload(events, iterations: iterations)) {
        body($0)
    }
}
