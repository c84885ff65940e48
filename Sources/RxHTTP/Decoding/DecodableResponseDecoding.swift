import Foundation

/// Decodes a `Decodable` model from a JSON body with the client's `JSONDecoder`, optionally from
/// inside the client's response envelope and/or at a key path such as `"result.items"`.
///
/// Every failure is a typed `HTTPClientError`: `.decodeError` for an empty body (a 204 included),
/// HTML, non-UTF-8 bytes, malformed JSON or a wrong shape (the message names the coding path);
/// `.envelopeFailure` when the envelope reports failure.
public struct DecodableResponseDecoding<Model: Decodable>: ResponseDecoding {
    /// A dotted path to the model inside the payload (`"result.items"`, `"list.0"`), or nil.
    public var keyPath: String?
    /// Whether to unwrap the client's envelope, if it has one.
    public var unwrapsEnvelope: Bool

    /// Creates the decoding.
    ///
    /// - Parameters:
    ///   - keyPath: A dotted path to the model inside the payload; nil for the payload itself.
    ///   - unwrapsEnvelope: Whether to unwrap the client's envelope, if it has one; default true.
    public init(keyPath: String? = nil, unwrapsEnvelope: Bool = true) {
        self.keyPath = keyPath
        self.unwrapsEnvelope = unwrapsEnvelope
    }

    public func decode(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> Model {
        guard !response.body.isEmpty else {
            throw failure("the body is empty (HTTP \(response.statusCode)) where \(Model.self) was expected", response)
        }
        let envelope = unwrapsEnvelope ? context.envelope : nil
        guard envelope != nil || keyPath != nil else {
            return try decodeModel(response, decoder: context.decoder)
        }

        let tree: JSONValue
        do {
            tree = try JSONDecoder().decode(JSONValue.self, from: response.body)
        } catch {
            throw notJSON(response, error)
        }
        var node: JSONValue? = tree
        var location: [String] = []
        if let envelope {
            let status = JSONKeyPath.value(at: envelope.statusKey, in: tree)
            guard envelope.isSuccess(status) else {
                let message = JSONKeyPath.value(at: envelope.messageKey, in: tree)
                let statusText = status.map { $0.description } ?? "missing"
                throw HTTPClientError(
                    .envelopeFailure,
                    message: "envelope status \(statusText): \(message?.stringValue ?? message?.description ?? "no message")",
                    statusCode: response.statusCode, body: response.body, url: response.url
                )
            }
            node = JSONKeyPath.value(at: envelope.dataKey, in: tree)
            location.append(envelope.dataKey)
        }
        if let keyPath, let current = node {
            node = JSONKeyPath.value(at: keyPath, in: current)
            location.append(keyPath)
        }
        let data: Data
        do {
            data = try JSONEncoder().encode(node ?? .null)
        } catch {
            throw failure("cannot re-encode the payload", response, underlying: error)
        }
        do {
            return try context.decoder.decode(Model.self, from: data)
        } catch {
            if node == nil {
                throw failure("no value at \"\(location.joined(separator: "."))\" where \(Model.self) was expected", response)
            }
            throw shapeError(error, at: location.joined(separator: "."), response)
        }
    }

    private func decodeModel(_ response: HTTPResponse, decoder: JSONDecoder) throws -> Model {
        do {
            return try decoder.decode(Model.self, from: response.body)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty {
                throw notJSON(response, error)
            }
            throw shapeError(error, at: nil, response)
        }
    }

    private func shapeError(_ error: Error, at location: String?, _ response: HTTPResponse) -> HTTPClientError {
        let place = location.map { " from the value at \"\($0)\"" } ?? ""
        return failure(
            "cannot decode \(Model.self)\(place): \(HTTPClientError.describe(error))", response, underlying: error
        )
    }

    private func notJSON(_ response: HTTPResponse, _ error: Error) -> HTTPClientError {
        let contentType = response.contentType ?? "no content type"
        let size = "\(response.body.count) bytes, \(contentType)"
        let firstByte = response.body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        let type = contentType.lowercased()
        // What the server says it sent comes first; the first byte only speaks for an untyped body.
        let what: String
        if type.contains("html") {
            what = "HTML"
        } else if type.contains("xml") {
            what = "XML"
        } else if String(validating: response.body, as: UTF8.self) == nil {
            what = "not UTF-8 text"
        } else if type.hasPrefix("text/") {
            what = "text, not JSON"
        } else if firstByte == UInt8(ascii: "<") {
            what = "HTML or XML"
        } else {
            what = "not valid JSON"
        }
        return failure("expected JSON for \(Model.self) but the body is \(what) (\(size))", response, underlying: error)
    }

    private func failure(_ message: String, _ response: HTTPResponse, underlying: Error? = nil) -> HTTPClientError {
        HTTPClientError(
            .decodeError, message: message, statusCode: response.statusCode, body: response.body,
            url: response.url, underlying: underlying
        )
    }
}

/// Looks up dotted key paths (`"result.items.0"`) in a `JSONValue`.
enum JSONKeyPath {
    static func value(at path: String, in root: JSONValue) -> JSONValue? {
        var node = root
        for component in path.split(separator: ".", omittingEmptySubsequences: true) {
            let key = String(component)
            if let next = node[key] {
                node = next
            } else if let index = Int(key), let next = node[index] {
                node = next
            } else {
                return nil
            }
        }
        return node
    }
}
