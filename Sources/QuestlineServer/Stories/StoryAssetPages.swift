import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The track-stories content's images and videos, served from the store under
/// `/content/stories/<path>`: the pages need no external URL.
struct StoryAssetPages: FeatureModule {
    let stories: StoryContentFeature

    func register(on router: Router<AppRequestContext>) {
        router.get("/content/stories/**") { request, context in try await self.asset(request, context) }
    }

    private func asset(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let path = context.parameters.getCatchAll().joined(separator: "/")
        guard let asset = try await stories.asset(path) else {
            throw DomainError.notFound(Message("stories.error.noSuchAsset"))
        }
        var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "public, max-age=3600"]
        // An SVG opened on its own must not run anything.
        if asset.contentType == "image/svg+xml" {
            headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
