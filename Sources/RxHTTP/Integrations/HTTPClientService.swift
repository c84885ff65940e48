// Compiled with the package trait `ServiceLifecycle` only.
#if ServiceLifecycle
import Foundation
import RxCore
import ServiceLifecycle

/// A client as a swift-service-lifecycle `Service`: in a `ServiceGroup`, a graceful shutdown (SIGTERM,
/// say) drains it with `shutdown(gracePeriod:)`, and the service returns once nothing is left in
/// flight, so that the group can end.
///
/// ```swift
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: HTTPClientService(client, gracePeriod: 10)), .init(service: poller)],
///     gracefulShutdownSignals: [.sigterm], logger: logger))
/// try await group.run()
/// ```
///
/// - Note: `Sendable`. Cancelling the task (instead of a graceful shutdown) shuts the client down
///   with no grace period.
public struct HTTPClientService: Service {
    /// The client it shuts down.
    public let client: HTTPClient
    /// Seconds in-flight requests may still take after the shutdown began.
    public let gracePeriod: TimeInterval

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - client: The client to shut down when the group does.
    ///   - gracePeriod: Seconds in-flight requests may still take; default 10.
    public init(_ client: HTTPClient, gracePeriod: TimeInterval = 10) {
        self.client = client
        self.gracePeriod = gracePeriod
    }

    /// Waits for the group's graceful shutdown (or the task's cancellation), then drains the client.
    public func run() async throws {
        let grace: TimeInterval
        do {
            try await gracefulShutdown()
            grace = gracePeriod
        } catch {
            // Cancelled rather than shut down gracefully: nothing may linger.
            grace = 0
        }
        try await client.shutdown(gracePeriod: grace).value
    }
}
#endif
