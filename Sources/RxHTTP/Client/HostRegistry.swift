import Foundation
import RxCore
import RxReachability

/// What the client keeps per host (scheme, host and port): the host's reachability, created the
/// first time a call waits to retry there. Probing runs only while a call waits.
///
/// Bounded: past `capacity` hosts the registry forgets the others it holds (their probes stop when
/// their last waiter goes); the base URL's host is always kept.
// @unchecked Sendable: the table lives in one LockedState; the configuration is immutable.
final class HostRegistry: @unchecked Sendable {
    /// The most hosts remembered at once.
    static let capacity = 1_024

    private let probeInterval: TimeInterval
    private let recoveryProbeInterval: TimeInterval
    private let probeTimeout: TimeInterval
    private let table = LockedState<[Origin: Reachability]>.make([:])
    private let pinned = LockedState<Origin?>.make(nil)

    init(configuration: HTTPClient.Configuration) {
        probeInterval = configuration.reachabilityProbeInterval
        recoveryProbeInterval = configuration.reachabilityRecoveryProbeInterval
        probeTimeout = configuration.reachabilityTimeout
    }

    /// The reachability of `url`'s host and port (80/443 by scheme unless given); nil for a URL
    /// without a host.
    func reachability(for url: URL) -> Reachability? {
        guard let host = url.host, !host.isEmpty else { return nil }
        let origin = Origin(url)
        let pinnedOrigin = pinned.withLock { current -> Origin in
            if current == nil { current = origin }
            return current ?? origin
        }
        return table.withLock { table in
            if let existing = table[origin] { return existing }
            guard let created = Reachability(
                url: url, probeInterval: probeInterval, timeout: probeTimeout,
                unreachableProbeInterval: recoveryProbeInterval
            ) else { return nil }
            if table.count >= Self.capacity {
                table = table.filter { $0.key == pinnedOrigin }
            }
            table[origin] = created
            return created
        }
    }
}
