import Dispatch
import Foundation
import RxCore

/// The default `TCPProbing`: a non-blocking TCP connect with a timeout, to every address of a host.
///
/// How one probe runs:
/// 1. A literal address (`127.0.0.1`, `::1`) is used as is. A name is resolved with `getaddrinfo`
///    on this prober's resolver queue, never on the caller's thread; resolution counts against
///    the timeout, and a resolution still running at the deadline is abandoned (its result is
///    dropped; a queued resolution whose probe has ended is skipped).
/// 2. Every resolved address, IPv4 and IPv6, is tried **in parallel**: one non-blocking socket per
///    address, `connect` returns `EINPROGRESS`, and a Dispatch write source on the prober's serial
///    queue reports writability, after which `SO_ERROR` tells success from refusal. The first
///    address to connect makes the probe succeed; it fails when all have failed (with the last
///    error) or at the deadline (`TCPProbeError.Code.timedOut`).
/// 3. Every socket is closed on every path (connected, refused, timed out, cancelled) as soon as
///    the probe ends: the write source is cancelled and its cancel handler closes the descriptor.
///    A connected socket is closed right away with a plain `close` (the server sees a connect and
///    an immediate FIN).
///
/// No thread blocks waiting for a connection: all waits are Dispatch sources (epoll/kqueue inside
/// libdispatch) whose handlers run briefly on one serial queue, so hundreds of probes in flight need
/// no extra threads. Only `getaddrinfo` blocks, on the one resolver queue, so a slow DNS server
/// delays the resolution of other probes of the same prober (each still ends by its own deadline).
/// Share one `TCPConnectProbe` between `Reachability` instances to share its two queues.
///
/// - Note: Thread-safe. Completions are called on the prober's internal serial queue: hand the
///   result on and return.
public struct TCPConnectProbe: TCPProbing {
    private let queue: DispatchQueue
    private let resolverQueue: DispatchQueue

    /// Creates a prober with its own serial socket queue and resolver queue.
    ///
    /// - Parameter qos: The quality of service of both queues.
    /// - Note: Copies share the queues; one prober may serve any number of probes at once.
    public init(qos: DispatchQoS = .utility) {
        queue = DispatchQueue(label: "rxnetworkkit.tcp-probe", qos: qos)
        resolverQueue = DispatchQueue(label: "rxnetworkkit.tcp-probe.resolver", qos: qos)
    }

    /// Starts a probe of `host:port`; see `TCPProbing.probe(host:port:timeout:completion:)`.
    ///
    /// - Parameters:
    ///   - host: A host name or an IPv4/IPv6 literal (without brackets). A name containing a NUL
    ///     character fails with `.resolutionFailed`.
    ///   - port: The TCP port.
    ///   - timeout: The most seconds in all; NaN or negative counts as 0 (the probe fails at once
    ///     unless a connect succeeds synchronously), infinite means "until the kernel gives up".
    ///   - completion: Called at most once on the prober's queue, never after cancellation.
    /// - Returns: A disposable that cancels the probe and closes its sockets.
    public func probe(
        host: String,
        port: UInt16,
        timeout: TimeInterval,
        completion: @escaping @Sendable (Result<Void, Error>) -> Void
    ) -> Disposable {
        let operation = TCPProbeOperation(
            host: host, port: port, timeout: timeout,
            queue: queue, resolverQueue: resolverQueue, completion: completion
        )
        operation.start()
        return operation
    }
}
