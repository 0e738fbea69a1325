import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// A story in the web app: its detail with progress and chapters, its pages with comments, the
/// selfie and the rewards it unlocks.
extension StoriesPages {
    func detail(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let summary = try await stories.story(me, id: try param(context, "story"))
        let page = StoryDetailPage(
            summary, content: try await stories.content(), error: flash.text(of: .error, in: request),
            localizer: context.localizer)
        return render("story-detail", summary.story.title, page, context, content: true)
    }

    func page(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let chapterIndex = try index(context, "chapter")
        let pageIndex = try index(context, "page")
        let (story, chapter, shown) = try await stories.openPage(
            me, story: id, chapter: chapterIndex, page: pageIndex, scope: context.scope.write)
        let comments = try await stories.comments(story: id, chapter: chapterIndex, limit: 100, offset: 0)
        let page = StoryChapterPage(
            story: story, chapter: chapter, at: chapterIndex, page: shown, at: pageIndex, comments: comments,
            viewer: me,
            commentsOpen: request.uri.queryParameters["comments"] != nil,
            commentError: flash.text(of: .error, in: request), localizer: context.localizer)
        return render("story-page", chapter.title, page, context, back: "/stories/read/\(id)", content: true)
    }

    func comment(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let chapterIndex = try index(context, "chapter")
        let form = try await Form(request)
        let here = form["here"].hasPrefix("/stories/read/") ? form["here"] : "/stories/read/\(id)/\(chapterIndex)/0"
        return try await submitting {
            // Back at the new comment, in view.
            let added = try await stories.addComment(
                me, story: id, chapter: chapterIndex, text: form["text"], scope: context.scope.write)
            return Response.redirect(to: here + "?comments=1#comment-\(added.id)", type: .normal)
        } refused: { error in
            flash.redirect(to: here + "?comments=1", .error, Self.message(error, context.localizer))
        }
    }

    func deleteComment(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let form = try await Form(request)
        try await stories.deleteComment(me, id: try param(context, "comment"), scope: context.scope.write)
        let here = form["here"].hasPrefix("/stories/read/") ? form["here"] : "/stories"
        return Response.redirect(to: here + "?comments=1", type: .normal)
    }

    // MARK: Selfie and rewards

    func selfie(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        Self.image(try await stories.selfie(try member(context, request), story: try param(context, "story")))
    }

    func collect(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        return try await submitting {
            _ = try await stories.collect(me, story: id, scope: context.scope.write)
            // Post, redirect, get: Back and reload show the rewards, never collect again.
            return Response.redirect(to: "/stories/read/\(id)/rewards", type: .normal)
        } refused: { error in
            flash.redirect(to: "/stories/read/\(id)", .error, Self.message(error, context.localizer))
        }
    }

    /// The progress slider's choice (`?chapter=N`, 1-based): its first page.
    func openChapter(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let story = try await stories.story(me, id: id).story
        guard let chapter = request.uri.queryParameters["chapter"].flatMap({ Int($0) }),
            (1...max(story.chapters.count, 1)).contains(chapter), !story.chapters.isEmpty
        else {
            throw DomainError.invalid(
                field: "chapter", Message("stories.error.chapterRange", ["last": .number(story.chapters.count)]))
        }
        return Response.redirect(to: "/stories/read/\(id)/\(chapter - 1)/0", type: .normal)
    }

    /// 4_Selfie2: the selfie just taken, and the way back to the story.
    func selfieSaved(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let story = try await stories.story(me, id: id)
        guard story.hasSelfie else { return Response.redirect(to: "/stories/read/\(id)", type: .normal) }
        return render(
            "story-selfie", "stories.selfie.title", StorySelfiePage(story, localizer: context.localizer), context,
            back: "/stories/read/\(id)")
    }

    /// What a story's rewards were, once collected (the page after collecting).
    func rewards(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try member(context, request)
        let id = try param(context, "story")
        let story = try await stories.story(me, id: id)
        guard story.collected else { return Response.redirect(to: "/stories/read/\(id)", type: .normal) }
        let page = StoryRewardsPage(
            story, content: try await stories.content(),
            balance: try await stories.points(me, limit: 1, offset: 0).balance, localizer: context.localizer)
        return render("story-rewards", "stories.rewards.title", page, context, back: "/stories/read/\(id)")
    }
}
