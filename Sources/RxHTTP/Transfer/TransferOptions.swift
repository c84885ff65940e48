import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// What bounds a download to a file or an upload from one.
///
/// - Note: A value type; `Sendable`.
public struct TransferOptions: Sendable {
    /// The largest file accepted (and the largest `maxFileSize`): 1 TiB.
    public static let maxFileSizeLimit: Int64 = 1 << 40

    /// A download larger than this fails with `.fileSystem` as soon as it passes it (or at once when
    /// the server announces more), and leaves nothing behind; an upload of a larger file is refused
    /// before sending. Clamped to 0...1 TiB; default 1 TiB. (`maxResponseBodySize` does not apply to
    /// transfers: their bodies never sit in memory.)
    public var maxFileSize: Int64
    /// Fails a transfer (or, for a download, ends its connection, which then resumes under the retry
    /// policy) when no byte moved for this many seconds. Clamped like a time-out; default 60.
    public var idleTimeout: TimeInterval
    /// The bytes a download may hold in memory between the network and the disk; a disk slower than
    /// the network for longer ends the connection, which resumes where the file ends. Clamped to
    /// 64 KiB...256 MiB; default 8 MiB.
    public var maxBufferedBytes: Int
    /// Where progress time is measured and delays run: the client's scheduler when nil (virtual
    /// time in tests).
    public var scheduler: SchedulerType?

    /// Creates options; every parameter has the default described on its property.
    public init(
        maxFileSize: Int64 = TransferOptions.maxFileSizeLimit, idleTimeout: TimeInterval = 60,
        maxBufferedBytes: Int = 8 << 20, scheduler: SchedulerType? = nil
    ) {
        self.maxFileSize = min(max(0, maxFileSize), Self.maxFileSizeLimit)
        self.idleTimeout = TimeoutBounds.clamped(idleTimeout) ?? 60
        self.maxBufferedBytes = min(max(64 << 10, maxBufferedBytes), 256 << 20)
        self.scheduler = scheduler
    }
}
