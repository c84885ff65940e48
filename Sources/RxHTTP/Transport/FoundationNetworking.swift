// The one place that knows URLSession lives in FoundationNetworking on Linux. Re-exported so that
// `URLRequest`, `HTTPURLResponse` and friends are visible in every file of this module and to users.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
