import Hummingbird
import ServiceLifecycle

/// A feature as the server composes it: its web pages and the background services it runs.
/// The composition root lists the modules once (`buildRouterAndServices`). A module's API
/// operations are `APIImplementation`'s extensions in the feature's folder (the contract is one
/// generated protocol), and its tables, queries and personal data are the store's
/// (`StoreModule`).
protocol FeatureModule: Sendable {
    /// Registers the module's pages.
    func register(on router: Router<AppRequestContext>)
    /// The background services the module runs on this instance.
    var services: [any Service] { get }
}

extension FeatureModule {
    var services: [any Service] { [] }
}
