// Runs with the package trait `PostgreSQL` only.
#if PostgreSQL
import Foundation
import PostgresNIO

/// A `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[#NAMESPACE]` URL — what `Scripts/postgres.sh`
/// prints and `RXNK_POSTGRES_URL` holds — as a client configuration without TLS: the one place the
/// fleet's tests read such a URL.
struct PostgresURL {
    let configuration: PostgresClient.Configuration
    let port: Int
    /// The fragment: a replica's namespace.
    let fragment: String?

    init?(_ text: String) {
        guard let components = URLComponents(string: text), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let host = components.host, let user = components.user else { return nil }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        port = components.port ?? 5432
        fragment = components.fragment
        configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: components.password,
            database: database.isEmpty ? nil : database, tls: .disable
        )
    }
}
#endif
