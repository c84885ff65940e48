import Benchmark

// Entry point for ordo-one/benchmark: every workload registers one benchmark per implementation,
// named "<workload>/<implementation>", so one run measures RxCore, OpenCombine and the
// plain-closure floor side by side. Benchmarks/run.sh runs them and prints the ratios.
let benchmarks: @Sendable () -> Void = {
    registerPushWorkloads()
    registerChurnWorkloads()
    registerSingleWorkloads()
}
