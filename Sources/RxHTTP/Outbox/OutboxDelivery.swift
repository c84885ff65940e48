import Foundation

/// The one outcome of an outbox entry, as `client.rx.deliver(_:)` hands it over.
///
/// An outcome is recorded on disk before it is handed over and the entry leaves the outbox only
/// after the subscriber's `onNext` returned, so each outcome is seen once — except when the process
/// dies between the two: the next `deliver` hands the recorded outcome over again, with
/// `isRecovered` set and the same `entry.id`, for the application to recognise.
public struct OutboxDelivery: Sendable, CustomStringConvertible {
    /// The entry this is the outcome of.
    public let entry: OutboxEntry
    /// The server's answer (an acceptable status), or the failure that ends the entry: a status
    /// that repeating cannot change (4xx but 408, 425 and 429) or a request the client cannot send.
    public let result: Result<HTTPResponse, HTTPClientError>
    /// Whether the outcome was recorded by an earlier process, which may have handed it over already
    /// before it died.
    public let isRecovered: Bool

    /// The entry and the status or failure code; never headers or body.
    public var description: String {
        switch result {
        case .success(let response):
            return "OutboxDelivery(\(entry): HTTP \(response.statusCode)\(isRecovered ? ", recovered" : ""))"
        case .failure(let error):
            return "OutboxDelivery(\(entry): \(error.code.rawValue)\(error.statusCode.map { " HTTP \($0)" } ?? "")\(isRecovered ? ", recovered" : ""))"
        }
    }
}
