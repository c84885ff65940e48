import Foundation

/// The daemon soak's process figures over time, once a minute: RSS as it is (the median of the
/// minute's last 20 samples), RSS right after `malloc_trim(0)` hands glibc's free pages back (what
/// the process really holds: a leak raises it, a fragmented allocator does not), and the floor of
/// open descriptors (sockets in flight raise the peaks, a leak raises the floor).
struct DaemonSamples {
    struct Minute {
        let minute: Int
        let rss: Int
        let trimmedRSS: Int
        let fds: Int
    }

    private(set) var minutes: [Minute] = []
    /// The minute that the last `sample` closed, if it closed one.
    private(set) var minuteJustEnded: Int?
    private var rss: [Int] = []
    private var fdFloor = Int.max
    private var current = 0

    mutating func sample(elapsed: TimeInterval) {
        minuteJustEnded = nil
        rss.append(residentSetKiB())
        if rss.count > 20 { rss.removeFirst() }
        fdFloor = min(fdFloor, openFileDescriptors())
        let minute = Int(elapsed / 60)
        guard minute > current else { return }
        let untrimmed = rss.sorted()[rss.count / 2]
        GlibcMalloc.trim()
        minutes.append(Minute(minute: minute, rss: untrimmed, trimmedRSS: residentSetKiB(), fds: fdFloor))
        fdFloor = .max
        current = minute
        minuteJustEnded = minute
    }

}
