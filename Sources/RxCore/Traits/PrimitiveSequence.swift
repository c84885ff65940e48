/// An observable sequence with a stricter grammar, named by its `Trait`: `Single` (one element or an
/// error), `Maybe` (at most one element, or an error) and `Completable` (only a termination).
///
/// As in RxSwift, the three are one generic type, so that each operator they share is written once
/// (in an extension of `PrimitiveSequence`) and each trait's own API sits in an extension
/// constrained to its trait: `extension PrimitiveSequenceType where Trait == SingleTrait`.
///
/// - Note: A cold description of work, like `Observable`: each subscription runs it. Thread-safe to
///   subscribe from any thread; the event arrives on the thread the work finishes on.
public struct PrimitiveSequence<Trait, Element>: PrimitiveSequenceType, ObservableConvertibleType, Sendable {
    @usableFromInline
    let source: Observable<Element>

    /// Wraps an observable already known to keep the trait's grammar (see `asSingle()` and
    /// `asMaybe()` for conversions that check it).
    @inlinable
    init(unchecked source: Observable<Element>) {
        self.source = source
    }

    /// Wraps the result of an operator that may complete without an element although the source
    /// could not (a retry that gives up by completing): for a `Single` such a completion becomes
    /// `RxError.noElements`, so that the grammar holds also for those who read it through
    /// `asObservable()`.
    init(completingMaybeEmpty source: Observable<Element>) {
        if Trait.self == SingleTrait.self {
            self.source = source.asSingle().source
        } else {
            self.source = source
        }
    }

    /// Returns itself.
    public var primitiveSequence: PrimitiveSequence<Trait, Element> {
        self
    }

    /// The sequence as an `Observable`: its element (for `Single` and `Maybe`), then completion, or
    /// an error.
    public func asObservable() -> Observable<Element> {
        source
    }
}

/// A type that is a `PrimitiveSequence`: the protocol RxSwift's users extend to add operators to
/// one trait (`extension PrimitiveSequenceType where Trait == SingleTrait`).
public protocol PrimitiveSequenceType {
    /// The grammar: `SingleTrait`, `MaybeTrait` or `CompletableTrait`.
    associatedtype Trait
    /// The type of the element (`Never` for `Completable`).
    associatedtype Element

    /// The sequence itself.
    var primitiveSequence: PrimitiveSequence<Trait, Element> { get }
}

/// A trait whose sequences may deliver an element (`SingleTrait`, `MaybeTrait`): the operators on
/// the element (`map`, `flatMap`, `zip`, `just`…) are written once for both.
public protocol ElementTrait: SendableMetatype {}

/// The grammar of `Single`: exactly one element, or an error.
public enum SingleTrait: ElementTrait {}

/// The grammar of `Maybe`: one element, completion without one, or an error.
public enum MaybeTrait: ElementTrait {}

/// The grammar of `Completable`: completion or an error, never an element.
public enum CompletableTrait {}

/// A sequence of exactly one element or an error — the shape of a request/response call.
public typealias Single<Element> = PrimitiveSequence<SingleTrait, Element>

/// A sequence of at most one element: an element, completion without one, or an error — the shape
/// of a lookup that may find nothing (a cache read, a `404` taken as "absent").
public typealias Maybe<Element> = PrimitiveSequence<MaybeTrait, Element>

/// A sequence that only completes or fails: work whose result is its success (a DELETE request, a
/// cache flush).
public typealias Completable = PrimitiveSequence<CompletableTrait, Never>
