/// Errors raised by RxCore operators themselves.
public enum RxError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An error with no more specific cause (RxSwift's `RxError.unknown`); RxCore itself never
    /// raises it, but code ported from RxSwift may.
    case unknown
    /// A sequence that had to produce an element (`asSingle`, `Single`) completed without one.
    case noElements
    /// A sequence that had to produce exactly one element produced more.
    case moreThanOneElement
    /// `timeout` elapsed before the source produced an event.
    case timeout
    /// An argument was outside the accepted range (a negative count, say).
    case argumentOutOfRange
    /// The object (a subject) was disposed: it accepts no more subscribers or events.
    case disposed

    /// A one-sentence account of the error.
    public var description: String {
        switch self {
        case .unknown: return "The sequence failed for an unknown reason."
        case .noElements: return "Sequence completed without producing an element."
        case .moreThanOneElement: return "Sequence produced more than one element."
        case .timeout: return "Sequence timed out."
        case .argumentOutOfRange: return "Argument out of range."
        case .disposed: return "Object was already disposed."
        }
    }
}
