import Workloads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Runs one workload once, outside any benchmark framework, for profilers:
//   valgrind --tool=callgrind .build/release/rxcore-profile churn/RxCore
//   perf record -g .build/release/rxcore-profile push/RxCore
// With no argument it lists the workloads.
let arguments = CommandLine.arguments.dropFirst()
guard let id = arguments.first else {
    for workload in allWorkloads { print(workload.id) }
    exit(0)
}
guard let workload = allWorkloads.first(where: { $0.id == id }) else {
    print("unknown workload \(id); run without arguments for the list")
    exit(1)
}
let repetitions = arguments.dropFirst().first.flatMap { Int($0) } ?? 1
var checksum = 0
for _ in 0..<repetitions {
    checksum &+= workload.run(.unmeasured)
}
print("\(workload.id): checksum \(checksum)")
