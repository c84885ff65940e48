import Foundation

/// The two glibc malloc calls the daemon soak makes (neither is in Swift's Glibc module: they are
/// looked up by name, and do nothing where they do not exist).
///
/// - `capArenas(2)`: glibc gives threads arenas of their own, up to 8 per core; a daemon whose
///   work hops across dispatch's worker threads fragments them all, and its RSS creeps up for many
///   minutes though nothing leaks (measured here: trimmed RSS +49% from minute 1 to 5 without the
///   cap, +8% with it, then flat). `MALLOC_ARENA_MAX=2` is what long-running services on glibc
///   set; this is the same, from inside.
/// - `trim()`: `malloc_trim(0)` hands free pages back to the system, so that RSS measures what
///   the process holds rather than what glibc keeps for later.
enum GlibcMalloc {
    static func capArenas(_ count: Int32) {
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let arenaMax: Int32 = -8  // M_ARENA_MAX in malloc.h
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        _ = unsafeBitCast(symbol, to: Mallopt.self)(arenaMax, count)
    }

    static func trim() {
        typealias Trim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
}
