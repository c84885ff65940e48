import Foundation
import RxCore

/// Whether a host accepts TCP connections, checked by periodic connect probes while observed.
///
/// ```swift
/// let reachability = Reachability(host: "api.example.com", port: 443)
/// reachability.status
///     .subscribe(onNext: { print("api is \($0)") })
///     .disposed(by: bag)
/// request.retry(3, delay: .constant(time: 30), didBecomeReachable: reachability.didBecomeReachable)
/// ```
///
/// Probing is shared and reference-counted: the first subscription to `status` or
/// `didBecomeReachable` starts it (the first probe runs at once), the last dispose stops it,
/// cancelling the in-flight probe and the timer. When probing stops the status is forgotten, so a
/// later first subscriber waits for a fresh probe instead of receiving a stale status.
///
/// Cadence: one probe at a time; the next one starts `probeInterval` seconds after the previous
/// one ended (`unreachableProbeInterval` after a failure: half a second unless given, or
/// `probeInterval` if that is shorter, as the client's own reachability does). A probe
/// that has not answered after `timeout` seconds is cancelled and counts as unreachable. So a host
/// going down is noticed within `probeInterval + timeout` (a refused connection: within
/// `probeInterval` plus a round trip), and coming back within `unreachableProbeInterval` plus a
/// round trip. One failed probe is enough to report `.unreachable`; there is no hysteresis.
///
/// - Note: Thread-safe. Events are delivered on `scheduler`, one at a time, except the latest
///   status replayed to a new `status` subscriber, which arrives on the subscribing thread while it
///   subscribes (or is delivered by whichever thread is emitting at that moment). Timers, probe
///   deadlines and the handling of probe answers all run on `scheduler`, so a `TestScheduler`
///   drives the whole cadence in virtual time.
public final class Reachability: Sendable {
    /// The host probed: a name or an IPv4/IPv6 literal (without brackets).
    public let host: String
    /// The TCP port probed.
    public let port: UInt16
    /// Seconds from the end of a successful probe to the start of the next.
    public let probeInterval: TimeInterval
    /// Seconds from the end of a failed probe to the start of the next.
    public let unreachableProbeInterval: TimeInterval
    /// Seconds a probe may take before it counts as unreachable.
    public let timeout: TimeInterval

    /// The reachability of `host:port`: the latest status at once (if probing is already running
    /// and has a result), then each change; never the same status twice in a row.
    ///
    /// Never completes and never fails: failures to reach the host are `.unreachable`.
    /// - Note: See the type's note for threads.
    public let status: Observable<ReachabilityStatus>

    /// Emits on each change from `.unreachable` to `.reachable`, after the `status` event for it.
    ///
    /// A first `.reachable` with no `.unreachable` before it in the same probing session does not
    /// emit: nothing "came back". This suits `retry(_:delay:didBecomeReachable:shouldRetry:)`,
    /// which subscribes only while waiting: if the first probe finds the host reachable, the retry
    /// waits for its timer; if the host is down, it retries the moment it comes back. A daemon that
    /// wants the transition seen across its whole life keeps a subscription to `status` open.
    /// Never replays, never completes, never fails.
    /// - Note: See the type's note for threads.
    public let didBecomeReachable: Observable<Void>

    private let core: ReachabilityCore

    /// The default interval after a failed probe, in seconds: a host that comes back is noticed
    /// within half a second plus a round trip, at two connects a second while it is down.
    public static let recoveryProbeInterval: TimeInterval = 0.5

    /// Creates a monitor of `host:port`; nothing is probed until something subscribes.
    ///
    /// - Parameters:
    ///   - host: A host name or an IPv4/IPv6 literal without brackets (`"::1"`, not `"[::1]"`).
    ///   - port: The TCP port to connect to.
    ///   - probeInterval: Seconds between the end of a probe and the start of the next; NaN or less
    ///     than 0.001 counts as 0.001; infinity means a single probe per session.
    ///   - timeout: Seconds a probe may take before it counts as unreachable; NaN or less than
    ///     0.001 counts as 0.001; infinity means no deadline of our own (the prober's still applies).
    ///   - unreachableProbeInterval: The interval after a failed probe: while the host refuses,
    ///     whoever waits on it (`retry(_:delay:didBecomeReachable:)`) hears of its return within
    ///     this plus a round trip. `nil` (the default) is `Reachability.recoveryProbeInterval` (0.5 s,
    ///     as `HTTPClient.Configuration.reachabilityRecoveryProbeInterval`), or `probeInterval` if
    ///     that is shorter; give `probeInterval` to probe at one pace. Same bounds as
    ///     `probeInterval`.
    ///   - scheduler: Runs the timers, the deadlines and the delivery of events. Defaults to a new
    ///     background serial queue (never the main queue, which a daemon may not run).
    ///   - prober: Performs each probe; defaults to a non-blocking `TCPConnectProbe`.
    public init(
        host: String,
        port: UInt16,
        probeInterval: TimeInterval = 5,
        timeout: TimeInterval = 2,
        unreachableProbeInterval: TimeInterval? = nil,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(
            qos: .utility, internalSerialQueueName: "rxnetworkkit.reachability"
        ),
        prober: TCPProbing = TCPConnectProbe()
    ) {
        let interval = Self.sanitized(probeInterval)
        let unreachableInterval = unreachableProbeInterval.map(Self.sanitized) ?? min(interval, Self.recoveryProbeInterval)
        let timeout = Self.sanitized(timeout)
        self.host = host
        self.port = port
        self.probeInterval = interval
        self.unreachableProbeInterval = unreachableInterval
        self.timeout = timeout
        let core = ReachabilityCore(configuration: ProbeConfiguration(
            host: host, port: port,
            probeInterval: .seconds(interval),
            unreachableProbeInterval: .seconds(unreachableInterval),
            timeout: .seconds(timeout),
            scheduler: scheduler,
            prober: prober
        ))
        self.core = core
        status = Observable.create { observer in core.subscribeStatus(observer) }
        didBecomeReachable = Observable.create { observer in core.subscribeBecameReachable(observer) }
    }

    /// Calls `callback` on each change from `.unreachable` to `.reachable`, as `didBecomeReachable`
    /// emits, without an `Observable`: for code that waits on the host (a retry, a circuit breaker)
    /// and is not itself reactive. Registering starts probing like a subscription does; disposing
    /// the result stops it once nothing else is registered.
    ///
    /// - Returns: Disposing it unregisters `callback`.
    /// - Note: Thread-safe; `callback` runs on the thread that delivers events (see the type's note).
    ///   A delivery already under way on another thread when it is disposed may still call it once.
    public func whenReachableAgain(_ callback: @escaping @Sendable () -> Void) -> Disposable {
        core.whenReachableAgain(callback)
    }

    /// The latest status of the running probing session; nil while nothing is subscribed or
    /// before the first probe answered.
    /// - Note: Thread-safe.
    public var currentStatus: ReachabilityStatus? {
        core.currentStatus
    }

    /// Why the latest probe failed (a `TCPProbeError` with the default prober); nil after a
    /// success, before the first probe, and while nothing is subscribed.
    /// - Note: Thread-safe.
    public var lastProbeError: Error? {
        core.lastProbeError
    }

    /// Whether probing is running, that is, whether anything is subscribed.
    /// - Note: Thread-safe.
    public var isProbing: Bool {
        core.isProbing
    }

    private static func sanitized(_ seconds: TimeInterval) -> TimeInterval {
        seconds.isNaN ? 0.001 : max(0.001, seconds)
    }
}
