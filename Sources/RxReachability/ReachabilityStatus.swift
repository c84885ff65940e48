/// Whether a host accepted a TCP connection at the last probe.
///
/// Two plain cases so that `==` means exactly "same status"; the reason for the last failure is on
/// `Reachability.lastProbeError`.
///
/// - Note: A value type; `Sendable`.
public enum ReachabilityStatus: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The last probe connected.
    case reachable
    /// The last probe failed: refused, timed out, unresolvable, or no route.
    case unreachable

    /// `"reachable"` or `"unreachable"`.
    public var description: String {
        switch self {
        case .reachable: return "reachable"
        case .unreachable: return "unreachable"
        }
    }
}
