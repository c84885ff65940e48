import RxCore

/// Namespace of the reachability layer; probes arrive with the retry/reachability issue.
public enum RxReachabilityModule {}
