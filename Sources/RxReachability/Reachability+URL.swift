import Foundation
import RxCore

extension Reachability {
    /// Creates a monitor of the host and port a URL points at.
    ///
    /// The port is the URL's own, else 80 for `http`/`ws` and 443 for `https`/`wss`. An IPv6
    /// literal host (`http://[::1]:8080/`) is probed without its brackets.
    ///
    /// - Parameters:
    ///   - url: An absolute URL with a host.
    ///   - probeInterval: See `init(host:port:probeInterval:timeout:unreachableProbeInterval:scheduler:prober:)`.
    ///   - timeout: See the designated initializer.
    ///   - unreachableProbeInterval: See the designated initializer.
    ///   - scheduler: See the designated initializer.
    ///   - prober: See the designated initializer.
    /// - Returns: nil if the URL has no host, or no port and a scheme other than those above, or a
    ///   port outside 1...65535.
    /// - Note: Thread-safe; like the designated initializer, it probes nothing until subscribed.
    public convenience init?(
        url: URL,
        probeInterval: TimeInterval = 5,
        timeout: TimeInterval = 2,
        unreachableProbeInterval: TimeInterval? = nil,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(
            qos: .utility, internalSerialQueueName: "rxnetworkkit.reachability"
        ),
        prober: TCPProbing = TCPConnectProbe()
    ) {
        guard var host = url.host, !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
        }
        let port: Int
        if let explicit = url.port {
            port = explicit
        } else {
            switch url.scheme?.lowercased() {
            case "http", "ws": port = 80
            case "https", "wss": port = 443
            default: return nil
            }
        }
        guard port > 0, let port = UInt16(exactly: port) else { return nil }
        self.init(
            host: host, port: port,
            probeInterval: probeInterval, timeout: timeout,
            unreachableProbeInterval: unreachableProbeInterval,
            scheduler: scheduler, prober: prober
        )
    }
}
