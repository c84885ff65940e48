import Foundation

/// A `multipart/form-data` body: text fields and files.
///
/// Field names and file names are quoted; `"` becomes `%22` and CR/LF become `%0D%0A`, as browsers
/// do, so a name can never break the part headers. A content type with CR or LF fails the request
/// with `.invalidRequest`.
public struct MultipartFormBody: RequestBody, Sendable {
    /// One part of the form.
    public struct Part: Sendable, Equatable {
        /// The form field name.
        public var name: String
        /// The file name, for file parts.
        public var filename: String?
        /// The part's media type, if any.
        public var contentType: String?
        /// The part's bytes.
        public var data: Data

        /// A text field, sent as UTF-8.
        public static func text(name: String, value: String) -> Part {
            Part(name: name, filename: nil, contentType: nil, data: Data(value.utf8))
        }

        /// A file.
        ///
        /// - Parameters:
        ///   - name: The form field name.
        ///   - filename: The file name the server sees.
        ///   - contentType: The file's media type; default `application/octet-stream`.
        ///   - data: The file's bytes.
        public static func file(
            name: String, filename: String, contentType: String = "application/octet-stream", data: Data
        ) -> Part {
            Part(name: name, filename: filename, contentType: contentType, data: data)
        }
    }

    /// The parts, in order.
    public let parts: [Part]
    /// The boundary between parts.
    public let boundary: String

    /// Creates a multipart body.
    ///
    /// - Parameters:
    ///   - parts: The parts, in order.
    ///   - boundary: The boundary; by default a random one.
    public init(parts: [Part], boundary: String = "RxNetworkKit-\(UUID().uuidString)") {
        self.parts = parts
        self.boundary = boundary
    }

    public func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        guard HeaderValidation.isValidValue(boundary), !boundary.contains("\"") else {
            throw HTTPClientError(.invalidRequest, message: "the multipart boundary contains forbidden characters")
        }
        var data = Data()
        for part in parts {
            data.append(Data("--\(boundary)\r\n".utf8))
            var disposition = "Content-Disposition: form-data; name=\"\(Self.quoted(part.name))\""
            if let filename = part.filename {
                disposition += "; filename=\"\(Self.quoted(filename))\""
            }
            data.append(Data("\(disposition)\r\n".utf8))
            if let contentType = part.contentType {
                guard HeaderValidation.isValidValue(contentType) else {
                    throw HTTPClientError(.invalidRequest, message: "the content type of part \(part.name) contains CR, LF or a control character")
                }
                data.append(Data("Content-Type: \(contentType)\r\n".utf8))
            }
            data.append(Data("\r\n".utf8))
            data.append(part.data)
            data.append(Data("\r\n".utf8))
        }
        data.append(Data("--\(boundary)--\r\n".utf8))
        return HTTPBody(data: data, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// Escapes a name for a quoted header parameter.
    private static func quoted(_ name: String) -> String {
        var result = ""
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension RequestBody where Self == MultipartFormBody {
    /// A multipart form body.
    public static func multipart(_ parts: [MultipartFormBody.Part]) -> MultipartFormBody {
        MultipartFormBody(parts: parts)
    }
}
