import Foundation

/// The files shipped with the server (templates, stylesheets, images).
enum ServerResources {
    static func path(_ folder: String) -> String {
        Bundle.module.bundleURL.appendingPathComponent("Resources").appendingPathComponent(folder).path
    }
}
