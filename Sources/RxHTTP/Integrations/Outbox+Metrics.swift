// Built with the package trait `Metrics` only: without it nothing here names swift-metrics.
#if Metrics
import Foundation
import Metrics
import RxCore

extension Outbox {
    /// Samples this outbox into swift-metrics every `interval` seconds, at once and then on each
    /// tick, until the returned subscription is disposed: `rxnetworkkit.outbox.depth` (entries),
    /// `rxnetworkkit.outbox.bytes` and `rxnetworkkit.outbox.oldest_entry_age` (seconds; 0 when
    /// empty), each a `Meter` with the dimension `outbox` = `name` (see `HTTPClientMetrics`).
    ///
    /// ```swift
    /// let sampling = outbox.recordMetrics(name: "orders")   // to MetricsSystem's bootstrapped factory
    /// ```
    ///
    /// - Parameters:
    ///   - name: The `outbox` dimension: a name of the operator's choosing, never read from a request.
    ///   - interval: Seconds between samples, 0.1…3,600; default 5.
    ///   - scheduler: Runs the ticks (a `TestScheduler` in tests); default a serial queue of its
    ///     own, never the global pool (whose threads blocked callers may hold).
    ///   - factory: Where the metrics go; default `MetricsSystem.factory`.
    /// - Returns: The subscription to the ticks; dispose it to stop sampling.
    /// - Note: Thread-safe. A fleet's outbox reports the whole fleet as of its last look at the
    ///   table. Requires the package trait `Metrics`.
    public func recordMetrics(
        name: String, every interval: TimeInterval = 5,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.Outbox.metrics"),
        factory: any MetricsFactory = MetricsSystem.factory
    ) -> Disposable {
        let dimensions = [("outbox", name)]
        let depth = Meter(label: HTTPClientMetrics.outboxDepth, dimensions: dimensions, factory: factory)
        let bytes = Meter(label: HTTPClientMetrics.outboxBytes, dimensions: dimensions, factory: factory)
        let age = Meter(label: HTTPClientMetrics.outboxOldestEntryAge, dimensions: dimensions, factory: factory)
        let seconds = min(max(0.1, interval.isNaN ? 5 : interval), 3_600)
        return Observable<Int>.timer(.seconds(0), period: .seconds(seconds), scheduler: scheduler)
            .subscribe(onNext: { [weak self] _ in
                guard let self else { return }
                depth.set(self.depth)
                bytes.set(self.byteCount)
                age.set(self.oldestEntryAge(now: scheduler.now) ?? 0)
            })
    }
}
#endif
