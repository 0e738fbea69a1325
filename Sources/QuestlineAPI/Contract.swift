import Foundation

/// The contract file itself, served by the server at `/openapi.yaml`.
public enum QuestlineContract {
    public static func yaml() throws -> Data {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw CocoaError(.fileNoSuchFile)
        }
        return try Data(contentsOf: url)
    }
}
