import Foundation

/// Holds every thread Dispatch's global pools of the default and utility classes will give, each
/// blocked as a daemon's caller waiting for its answer is, until the returned function releases
/// them (it waits until they are all free again).
func holdGlobalPools() -> () -> Void {
    let blockers = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
    let release = DispatchSemaphore(value: 0)
    let held = DispatchGroup()
    for qos in [DispatchQoS.QoSClass.default, .utility] {
        for _ in 0..<blockers {
            DispatchQueue.global(qos: qos).async(group: held) { release.wait() }
        }
    }
    return {
        for _ in 0..<(2 * blockers) { release.signal() }
        held.wait()
    }
}
