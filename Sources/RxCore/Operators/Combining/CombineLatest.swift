extension ObservableType {
    /// Combines the latest element of each source whenever any of them emits, once every source has
    /// emitted at least once.
    ///
    /// - Parameters:
    ///   - source1: The first source.
    ///   - source2: The second source.
    ///   - resultSelector: Builds a result from the latest element of each source; an error it
    ///     throws terminates the sequence with that error.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that no combination can include (every other source completed, one without a
    ///   value), as RxSwift's does; it fails, disposing every source, as soon as one of them fails.
    /// - Note: The sources may emit on different threads, even concurrently; the result's events are
    ///   serialized (never concurrent, never re-entrant) and arrive on the thread of one of the
    ///   sources. `resultSelector` runs on that thread too, never concurrently with itself.
    public static func combineLatest<O1: ObservableConvertibleType, O2: ObservableConvertibleType>(
        _ source1: O1, _ source2: O2,
        resultSelector: @escaping @Sendable (O1.Element, O2.Element) throws -> Element
    ) -> Observable<Element> {
        Combine2Observable(
            .combineLatest, source1.asObservable(), source2.asObservable(), resultSelector: resultSelector
        )
    }

    /// Combines the latest element of each of three sources whenever any of them emits, once every
    /// source has emitted.
    ///
    /// - Parameters:
    ///   - source1: The first source.
    ///   - source2: The second source.
    ///   - source3: The third source.
    ///   - resultSelector: Builds a result from the latest elements; an error it throws terminates
    ///     the sequence with that error.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that no combination can include, and fails, disposing every source, as soon as one
    ///   of them fails.
    /// - Note: The sources may emit concurrently; the result's events (and the calls to
    ///   `resultSelector`) are serialized and arrive on the thread of one of the sources.
    public static func combineLatest<
        O1: ObservableConvertibleType, O2: ObservableConvertibleType, O3: ObservableConvertibleType
    >(
        _ source1: O1, _ source2: O2, _ source3: O3,
        resultSelector: @escaping @Sendable (O1.Element, O2.Element, O3.Element) throws -> Element
    ) -> Observable<Element> {
        Combine3Observable(
            .combineLatest, source1.asObservable(), source2.asObservable(), source3.asObservable(),
            resultSelector: resultSelector
        )
    }

    /// Combines the latest element of each of four sources whenever any of them emits, once every
    /// source has emitted.
    ///
    /// - Parameters:
    ///   - source1: The first source.
    ///   - source2: The second source.
    ///   - source3: The third source.
    ///   - source4: The fourth source.
    ///   - resultSelector: Builds a result from the latest elements; an error it throws terminates
    ///     the sequence with that error.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that no combination can include, and fails, disposing every source, as soon as one
    ///   of them fails.
    /// - Note: The sources may emit concurrently; the result's events (and the calls to
    ///   `resultSelector`) are serialized and arrive on the thread of one of the sources.
    public static func combineLatest<
        O1: ObservableConvertibleType, O2: ObservableConvertibleType,
        O3: ObservableConvertibleType, O4: ObservableConvertibleType
    >(
        _ source1: O1, _ source2: O2, _ source3: O3, _ source4: O4,
        resultSelector: @escaping @Sendable (O1.Element, O2.Element, O3.Element, O4.Element) throws -> Element
    ) -> Observable<Element> {
        Combine4Observable(
            .combineLatest,
            source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable(),
            resultSelector: resultSelector
        )
    }
}

extension ObservableType where Element == Any {
    /// Combines the latest element of each source into a tuple whenever any of them emits, once
    /// every source has emitted.
    ///
    /// - Parameters:
    ///   - source1: The first source.
    ///   - source2: The second source.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that no combination can include, and fails, disposing every source, as soon as one
    ///   of them fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized and arrive on
    ///   the thread of one of the sources.
    public static func combineLatest<O1: ObservableConvertibleType, O2: ObservableConvertibleType>(
        _ source1: O1, _ source2: O2
    ) -> Observable<(O1.Element, O2.Element)> {
        Combine2Observable(.combineLatest, source1.asObservable(), source2.asObservable()) { ($0, $1) }
    }

    /// Combines the latest element of each of three sources into a tuple whenever any of them
    /// emits, once every source has emitted.
    ///
    /// - Parameters:
    ///   - source1: The first source.
    ///   - source2: The second source.
    ///   - source3: The third source.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that no combination can include, and fails, disposing every source, as soon as one
    ///   of them fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized and arrive on
    ///   the thread of one of the sources.
    public static func combineLatest<
        O1: ObservableConvertibleType, O2: ObservableConvertibleType, O3: ObservableConvertibleType
    >(
        _ source1: O1, _ source2: O2, _ source3: O3
    ) -> Observable<(O1.Element, O2.Element, O3.Element)> {
        Combine3Observable(.combineLatest, source1.asObservable(), source2.asObservable(), source3.asObservable()) {
            ($0, $1, $2)
        }
    }

    /// Combines the latest element of each of four sources into a tuple whenever any of them
    /// emits, once every source has emitted.
    ///
    /// - Parameters:
    ///   - source1: The first source.
    ///   - source2: The second source.
    ///   - source3: The third source.
    ///   - source4: The fourth source.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that no combination can include, and fails, disposing every source, as soon as one
    ///   of them fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized and arrive on
    ///   the thread of one of the sources.
    public static func combineLatest<
        O1: ObservableConvertibleType, O2: ObservableConvertibleType,
        O3: ObservableConvertibleType, O4: ObservableConvertibleType
    >(
        _ source1: O1, _ source2: O2, _ source3: O3, _ source4: O4
    ) -> Observable<(O1.Element, O2.Element, O3.Element, O4.Element)> {
        Combine4Observable(
            .combineLatest,
            source1.asObservable(), source2.asObservable(), source3.asObservable(), source4.asObservable()
        ) { ($0, $1, $2, $3) }
    }
}

