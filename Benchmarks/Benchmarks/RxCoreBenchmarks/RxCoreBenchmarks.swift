import Benchmark
import Workloads

// Entry point for ordo-one/benchmark: one benchmark per workload and implementation, named
// "<workload>/<implementation>", so one run measures RxCore, OpenCombine and the plain-closure
// floor side by side. Benchmarks/run.sh runs them all and prints the ratios (report.py).
let benchmarks: @Sendable () -> Void = {
    for workload in allWorkloads {
        Benchmark(workload.id, configuration: .workload(events: workload.events)) { benchmark in
            let window = MeasurementWindow(start: benchmark.startMeasurement, stop: benchmark.stopMeasurement)
            blackHole(workload.run(window))
        }
    }
}

extension Benchmark.Configuration {
    /// Time, CPU and allocation metrics over a few iterations (one iteration is a whole workload).
    static func workload(events: Int) -> Benchmark.Configuration {
        .init(
            metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .memoryLeakedBytes],
            tags: ["events": "\(events)"],
            timeUnits: .microseconds,
            units: [.mallocCountTotal: .count, .memoryLeakedBytes: .count],
            warmupIterations: 1,
            maxDuration: .seconds(30),
            maxIterations: 9
        )
    }
}
