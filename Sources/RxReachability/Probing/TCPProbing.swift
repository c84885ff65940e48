import Foundation
import RxCore

/// One reachability check: can a TCP connection to `host:port` be opened within a timeout?
///
/// `Reachability` runs one probe at a time per host through this protocol, so that tests can
/// inject a scripted double and a daemon can plug in its own check. `TCPConnectProbe` is the
/// default implementation.
public protocol TCPProbing: Sendable {
    /// Starts one probe of `host:port`.
    ///
    /// - Parameters:
    ///   - host: A host name or an IPv4/IPv6 literal (without brackets).
    ///   - port: The TCP port.
    ///   - timeout: The most seconds the probe may take in all (resolution included).
    ///   - completion: Called at most once: `.success(())` if the host is reachable, otherwise
    ///     `.failure` with the reason (a `TCPProbeError` for `TCPConnectProbe`). It is not called
    ///     once the probe has been cancelled.
    /// - Returns: A disposable that cancels the probe and releases everything it holds.
    /// - Note: Must not block the caller. `completion` may run on any thread, so it should only
    ///   hand the result on. Implementations are thread-safe.
    func probe(
        host: String,
        port: UInt16,
        timeout: TimeInterval,
        completion: @escaping @Sendable (Result<Void, Error>) -> Void
    ) -> Disposable
}

extension TCPProbing {
    /// One probe as a `Single` that succeeds if `host:port` is reachable and fails with the reason
    /// otherwise.
    ///
    /// - Parameters:
    ///   - host: A host name or an IPv4/IPv6 literal (without brackets).
    ///   - port: The TCP port.
    ///   - timeout: The most seconds the probe may take.
    /// - Returns: A cold `Single`: each subscription runs a new probe; disposing cancels it.
    /// - Note: The event arrives on whichever thread the prober completes on (for
    ///   `TCPConnectProbe`, its internal queue). Thread-safe.
    public func probe(host: String, port: UInt16, timeout: TimeInterval) -> Single<Void> {
        Single.create { single in
            let deliver = SingleDelivery(single)
            return self.probe(host: host, port: port, timeout: timeout) { result in
                deliver.send(result)
            }
        }
    }
}

/// Carries a `Single`'s observer function into the prober's `@Sendable` completion, which calls it
/// at most once; the sink behind it takes one event from any thread (atomic lifecycle word).
// @unchecked Sendable: immutable; the wrapped function feeds a sink that is safe to call from any thread.
private final class SingleDelivery: @unchecked Sendable {
    private let single: (SingleEvent<Void>) -> Void

    init(_ single: @escaping (SingleEvent<Void>) -> Void) {
        self.single = single
    }

    func send(_ result: Result<Void, Error>) {
        single(result)
    }
}
