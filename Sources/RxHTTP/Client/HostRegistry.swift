import Foundation
@_spi(RxNetworkKitInternals) import RxCore
import RxReachability

/// What the client keeps per host (scheme, host and port): the host's `HostGate` (cooldown, retry
/// budget, circuit breaker, concurrency) and its reachability, created on the first request there.
/// Probing runs only while a call waits to retry there or its breaker is open.
///
/// Bounded: past `capacity` hosts the registry forgets the idle ones it holds (a forgotten host
/// starts afresh; calls in flight keep their gate); the base URL's host is always kept.
// @unchecked Sendable: the table lives in one LockedState; the settings are immutable.
final class HostRegistry: @unchecked Sendable {
    /// The most hosts remembered at once.
    static let capacity = 1_024

    private struct Host {
        let gate: HostGate
        let reachability: Reachability?
    }

    private let probeInterval: TimeInterval
    private let recoveryProbeInterval: TimeInterval
    private let probeTimeout: TimeInterval
    private let protection: HostProtection
    private let onCircuitChange: @Sendable (Origin, CircuitState) -> Void
    private let table = LockedState<(hosts: [Origin: Host], pinned: Origin?)>.make(([:], nil))
    /// The fleet whose siblings' cooldowns and circuits reach these hosts, and the clock the gates
    /// keep time in.
    private let fleet: Fleet?
    private let clock: any SchedulerType
    private let fleetListener: Int?

    /// - Parameter onFleetEngineChange: Told when the fleet's engine goes away or comes back.
    init(
        configuration: HTTPClient.Configuration, onCircuitChange: @escaping @Sendable (Origin, CircuitState) -> Void,
        onFleetEngineChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        probeInterval = configuration.reachabilityProbeInterval
        recoveryProbeInterval = configuration.reachabilityRecoveryProbeInterval
        probeTimeout = configuration.reachabilityTimeout
        protection = configuration.hostProtection
        self.onCircuitChange = onCircuitChange
        fleet = configuration.fleet
        clock = configuration.scheduler
        let table = self.table
        let clock = configuration.scheduler
        fleetListener = configuration.fleet?.addListener(Fleet.Listener(
            onSignal: { signal in
                guard let url = URL(string: signal.origin) else { return }
                table.withLock { $0.hosts[Origin(url)]?.gate }?.apply(signal, now: clock.now)
            },
            onEngineChange: onFleetEngineChange
        ))
    }

    deinit {
        if let fleetListener { fleet?.removeListener(fleetListener) }
    }

    /// The reachability of `url`'s host and port (80/443 by scheme unless given); nil for a URL
    /// without a host.
    func reachability(for url: URL) -> Reachability? {
        host(for: url)?.reachability
    }

    /// The gate of `url`'s host; nil for a URL without a host.
    func gate(for url: URL) -> HostGate? {
        host(for: url)?.gate
    }

    /// The gate of `url`'s host if one exists already.
    func existingGate(for url: URL) -> HostGate? {
        let origin = Origin(url)
        return table.withLock { $0.hosts[origin]?.gate }
    }

    private func host(for url: URL) -> Host? {
        guard let name = url.host, !name.isEmpty else { return nil }
        let origin = Origin(url)
        if let existing = table.withLock({ $0.hosts[origin] }) { return existing }
        let reachability = Reachability(
            url: url, probeInterval: probeInterval, timeout: probeTimeout, unreachableProbeInterval: recoveryProbeInterval
        )
        let gate = HostGate(origin: origin, protection: protection, reachability: reachability, fleet: fleet, onCircuitChange: onCircuitChange)
        // A host first used here after a sibling paused it starts paused.
        if let pause = fleet?.pause(of: origin.description) { gate.apply(pause, now: clock.now) }
        let created = Host(gate: gate, reachability: reachability)
        return table.withLock { table in
            if let raced = table.hosts[origin] { return raced }
            if table.pinned == nil { table.pinned = origin }
            if table.hosts.count >= Self.capacity {
                let pinned = table.pinned
                table.hosts = table.hosts.filter { $0.key == pinned || $0.value.gate.load != (0, 0) }
            }
            table.hosts[origin] = created
            return created
        }
    }
}
