/// Where jitter draws its random numbers: the system generator, or a seeded one for tests.
///
/// - Note: Thread-safe: a seeded source keeps its generator state behind a lock, so the sequence
///   it produces is reproducible for a given seed and order of calls.
public struct RandomSource: Sendable {
    private let next: @Sendable () -> Double

    /// The system's cryptographically secure generator.
    public static let system = RandomSource { Double.random(in: 0..<1) }

    /// A reproducible source: the same seed gives the same numbers in the same order.
    public static func seeded(_ seed: UInt64) -> RandomSource {
        let state = LockedState<SplitMix64>.make(SplitMix64(seed: seed))
        return RandomSource {
            state.withLock { generator in Double.random(in: 0..<1, using: &generator) }
        }
    }

    /// A source that returns the given values in turn, cycling; for tests that pin exact delays.
    /// Values are clamped into `[0, 1)`.
    public static func sequence(_ values: [Double]) -> RandomSource {
        let clamped = values.map { min(max($0, 0), 1.0.nextDown) }
        let index = LockedState<Int>.make(0)
        return RandomSource {
            guard !clamped.isEmpty else { return 0 }
            return index.withLock { position in
                defer { position = (position + 1) % clamped.count }
                return clamped[position]
            }
        }
    }

    /// Creates a source from a closure returning numbers in `[0, 1)`.
    public init(_ next: @escaping @Sendable () -> Double) {
        self.next = next
    }

    /// A number in `[0, 1)`.
    public func nextUnitInterval() -> Double {
        let value = next()
        return value.isNaN ? 0 : min(max(value, 0), 1.0.nextDown)
    }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
