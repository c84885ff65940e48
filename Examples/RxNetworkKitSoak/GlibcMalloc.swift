import Foundation

/// The glibc malloc settings of the daemon soak, the ones long-running services on glibc use (none
/// is in Swift's Glibc module: they are looked up by name, and do nothing where they do not exist).
///
/// - `capArenas(2)` (`MALLOC_ARENA_MAX=2`): glibc gives threads arenas of their own, up to 8 per
///   core, and a daemon whose work hops across dispatch's worker threads fragments them all.
/// - `fixMmapThreshold(128 KiB)` (`MALLOC_MMAP_THRESHOLD_`): large buffers get mappings of their
///   own, unmapped when freed; by default glibc raises the threshold after each large free, and the
///   next multi-MiB bodies (the hostile rounds' 4 MiB cut-offs) land in the heap and stay there.
/// - `trim()`: `malloc_trim(0)` hands free pages back to the system, so that RSS measures what the
///   process holds rather than what glibc keeps for later.
///
/// Measured over 600 s with a hostile round every minute, trimmed RSS from minute 5 to 10: +5.2%
/// (+14% at minute 8) with glibc's defaults, +9.8% with the arena cap alone, +1.4% with both; with
/// the arena cap and no hostile rounds, flat (+0.1% from minute 2 to 4). The growth is the
/// allocator's, and it levels off; `Resources.total` and the descriptors come back every time.
enum GlibcMalloc {
    static func capArenas(_ count: Int32) {
        mallopt(-8, count)  // M_ARENA_MAX
    }

    /// Serves every allocation of `bytes` or more with its own mapping, returned to the system when
    /// freed — and stops glibc from raising that threshold after each large free.
    static func fixMmapThreshold(_ bytes: Int32) {
        mallopt(-3, bytes)  // M_MMAP_THRESHOLD
    }

    private static func mallopt(_ parameter: Int32, _ value: Int32) {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(parameter, value)
    }

    static func trim() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
