import Foundation
import RxCore
@testable import RxHTTP
import XCTest

/// `FileCredentialStore` on a real file system: round trip, permissions, atomic replacement,
/// and typed errors for files that cannot be used.
final class CredentialStoreTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("credential-store-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private var file: URL { directory.appendingPathComponent("state/token.json") }

    private let credential = OAuthCredential(
        accessToken: "a-1", refreshToken: "r-1", expiresAt: Date(timeIntervalSince1970: 1_900_000_000), tokenType: "Bearer"
    )

    func testRoundTripSurvivesANewStore() throws {
        try FileCredentialStore(url: file).save(credential)
        XCTAssertEqual(try FileCredentialStore(url: file).load(), credential)
    }

    func testTheExpiryKeepsItsMillisecondsAndAWholeSecondFileStillReads() throws {
        var precise = credential
        precise.expiresAt = Date(timeIntervalSince1970: 1_900_000_000.25)
        try FileCredentialStore(url: file).save(precise)
        XCTAssertEqual(try FileCredentialStore(url: file).load()?.expiresAt?.timeIntervalSince1970 ?? 0, 1_900_000_000.25, accuracy: 0.001)
        try Data(#"{"accessToken":"a-1","expiresAt":"2030-03-17T17:46:40Z","tokenType":"Bearer"}"#.utf8).write(to: file)
        XCTAssertEqual(try FileCredentialStore(url: file).load()?.expiresAt, Date(timeIntervalSince1970: 1_900_000_000))
    }

    func testAMissingFileIsNoCredential() throws {
        XCTAssertNil(try FileCredentialStore(url: file).load())
    }

    func testTheFileIsOwnerOnlyAndTheDirectoryToo() throws {
        try FileCredentialStore(url: file).save(credential)
        let fileMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        XCTAssertEqual(fileMode & 0o777, 0o600)
        let directoryMode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file.deletingLastPathComponent().path)[.posixPermissions] as? Int)
        XCTAssertEqual(directoryMode & 0o077, 0, "the directory is open to others")
    }

    func testClearRemovesTheFileAndClearingNothingIsFine() throws {
        let store = FileCredentialStore(url: file)
        try store.save(credential)
        try store.clear()
        XCTAssertNil(try store.load())
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        try store.clear()
    }

    func testACorruptFileIsATypedError() throws {
        try FileCredentialStore(url: file).save(credential)
        try Data(#"{"accessToken":"a-1","refre"#.utf8).write(to: file)
        XCTAssertThrowsError(try FileCredentialStore(url: file).load()) { error in
            XCTAssertEqual((error as? CredentialStoreError)?.kind, .corrupt)
            XCTAssertFalse(String(describing: error).contains("a-1"))
        }
    }

    func testAnUnreadableFileIsATypedError() throws {
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
        XCTAssertThrowsError(try FileCredentialStore(url: file).load()) { error in
            XCTAssertEqual((error as? CredentialStoreError)?.kind, .unreadable)
        }
        XCTAssertThrowsError(try FileCredentialStore(url: file).save(credential)) { error in
            XCTAssertEqual((error as? CredentialStoreError)?.kind, .unwritable)
        }
    }

    /// A process killed after writing the temporary file but before the rename leaves that file
    /// behind: the credential file itself is still the old, complete one, and the next save works.
    func testAnInterruptedSaveLeavesTheOldFileValid() throws {
        let store = FileCredentialStore(url: file)
        try store.save(credential)
        let orphan = file.deletingLastPathComponent().appendingPathComponent(".token.json.\(UUID().uuidString).tmp")
        try Data(#"{"accessToken":"half"#.utf8).write(to: orphan)
        XCTAssertEqual(try store.load(), credential)
        var next = credential
        next.accessToken = "a-2"
        try store.save(next)
        XCTAssertEqual(try FileCredentialStore(url: file).load(), next)
    }

    func testReadersNeverSeeATornFile() throws {
        let store = FileCredentialStore(url: file)
        try store.save(credential)
        let writer = FileCredentialStore(url: file)
        let failures = LockedBox(0)
        let file = self.file
        let credential = self.credential
        DispatchQueue.concurrentPerform(iterations: 4) { lane in
            for index in 0..<100 {
                if lane == 0 {
                    var next = credential
                    next.accessToken = "a-\(index)-" + String(repeating: "x", count: index * 50)
                    try? writer.save(next)
                } else {
                    // A separate store per reader: no shared lock, only the file system's atomicity.
                    do {
                        _ = try FileCredentialStore(url: file).load()
                    } catch {
                        failures.mutate { $0 += 1 }
                    }
                }
            }
        }
        XCTAssertEqual(failures.value, 0, "a reader saw a torn or missing file")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(leftovers, [])
    }

    func testACredentialsDescriptionHidesItsTokens() {
        let text = "\(credential) \(String(reflecting: credential))"
        XCTAssertFalse(text.contains("a-1"), text)
        XCTAssertFalse(text.contains("r-1"), text)
        XCTAssertTrue(credential.expires(within: 0, of: Date(timeIntervalSince1970: 1_900_000_001)))
        XCTAssertFalse(credential.expires(within: 30, of: Date(timeIntervalSince1970: 1_800_000_000)))
        XCTAssertEqual(OAuthCredential(accessToken: "t", tokenType: "bearer").authorizationValue, "Bearer t")
        XCTAssertEqual(OAuthCredential(accessToken: "t", tokenType: "MAC").authorizationValue, "MAC t")
    }
}
