import Foundation
import RxCore

/// Events compare equal when they are the same case with equal elements, or errors that are equal.
///
/// Two errors are equal when they have the same dynamic type and then, if that type is `Equatable`,
/// by its own `==`; otherwise when they bridge to the same `NSError` domain and code and have the same
/// `String(describing:)`. So `RxError.timeout` equals only itself, and two `URLError(.timedOut)` are
/// equal, while two different error types with the same description are not.
///
/// - Note: Declared here, as RxTest does, for assertions; RxCore itself does not compare events.
extension Event: Equatable where Element: Equatable {
    public static func == (lhs: Event<Element>, rhs: Event<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.next(let left), .next(let right)):
            return left == right
        case (.error(let left), .error(let right)):
            return errorsAreEqual(left, right)
        case (.completed, .completed):
            return true
        default:
            return false
        }
    }
}

/// The error equality used by event comparison; see `Event: Equatable`.
public func errorsAreEqual(_ lhs: Error, _ rhs: Error) -> Bool {
    guard ObjectIdentifier(type(of: lhs)) == ObjectIdentifier(type(of: rhs)) else { return false }
    if let equatable = (lhs as Any) as? any Equatable {
        return equatable.isEqual(toAny: rhs)
    }
    let left = lhs as NSError
    let right = rhs as NSError
    return left.domain == right.domain && left.code == right.code
        && String(describing: lhs) == String(describing: rhs)
}

extension Equatable {
    fileprivate func isEqual(toAny other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

/// `Maybe` events compare as `Event`s do: same case, equal elements, or equal errors (see
/// `errorsAreEqual`). Declared here, as RxTest does, for assertions.
extension MaybeEvent: Equatable where Element: Equatable {
    public static func == (lhs: MaybeEvent<Element>, rhs: MaybeEvent<Element>) -> Bool {
        switch (lhs, rhs) {
        case (.success(let left), .success(let right)):
            return left == right
        case (.error(let left), .error(let right)):
            return errorsAreEqual(left, right)
        case (.completed, .completed):
            return true
        default:
            return false
        }
    }
}

/// `Completable` events compare as `Event`s do: both completed, or equal errors (see
/// `errorsAreEqual`). Declared here, as RxTest does, for assertions.
extension CompletableEvent: Equatable {
    public static func == (lhs: CompletableEvent, rhs: CompletableEvent) -> Bool {
        switch (lhs, rhs) {
        case (.error(let left), .error(let right)):
            return errorsAreEqual(left, right)
        case (.completed, .completed):
            return true
        default:
            return false
        }
    }
}
