import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Webhook endpoints and their delivery log, for administrators.
extension APIImplementation {
    func listWebhooks(_ input: Operations.listWebhooks.Input) async throws -> Operations.listWebhooks.Output {
        let endpoints = try await webhooks.endpoints(as: try identity.requireMember())
        return .ok(.init(body: .json(endpoints.map(Components.Schemas.WebhookEndpoint.init))))
    }

    func createWebhook(_ input: Operations.createWebhook.Input) async throws -> Operations.createWebhook.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let (endpoint, secret) = try await webhooks.create(
            url: body.url, events: body.events.map(\.rawValue), description: body.description, as: me, scope: writeScope
        )
        return .created(
            .init(
                body: .json(
                    .init(
                        id: endpoint.id, url: endpoint.url, events: endpoint.events.compactMap(Self.eventType),
                        description: endpoint.description, createdAt: endpoint.createdAt, secret: secret))))
    }

    func deleteWebhook(_ input: Operations.deleteWebhook.Input) async throws -> Operations.deleteWebhook.Output {
        try await webhooks.delete(input.path.webhookId, as: try identity.requireMember(), scope: writeScope)
        return .noContent(.init())
    }

    func listWebhookDeliveries(_ input: Operations.listWebhookDeliveries.Input) async throws
        -> Operations.listWebhookDeliveries.Output
    {
        let page = try Paging(limit: input.query.limit, offset: input.query.offset)
        let deliveries = try await webhooks.deliveries(
            input.path.webhookId, as: try identity.requireMember(), limit: page.limit, offset: page.offset)
        return .ok(.init(body: .json(deliveries.map(Components.Schemas.WebhookDelivery.init))))
    }

    func replayWebhookDelivery(_ input: Operations.replayWebhookDelivery.Input) async throws
        -> Operations.replayWebhookDelivery.Output
    {
        let delivery = try await webhooks.replay(
            input.path.deliveryId, as: try identity.requireMember(), scope: writeScope)
        return .ok(.init(body: .json(.init(delivery))))
    }

    static func eventType(_ type: OutboxEventType) -> Components.Schemas.WebhookEventType? {
        .init(rawValue: type.rawValue)
    }
}

extension Components.Schemas.WebhookEndpoint {
    init(_ endpoint: WebhookEndpoint) {
        self.init(
            id: endpoint.id, url: endpoint.url, events: endpoint.events.compactMap(APIImplementation.eventType),
            description: endpoint.description, createdAt: endpoint.createdAt)
    }
}

extension Components.Schemas.WebhookDelivery {
    init(_ delivery: WebhookDelivery) {
        self.init(
            id: delivery.id, webhookId: delivery.endpointID, eventId: delivery.eventID,
            _type: APIImplementation.eventType(delivery.type) ?? .points_period_changed,
            state: .init(rawValue: delivery.state) ?? .pending, attempts: delivery.attempts,
            nextAttemptAt: delivery.nextAttemptAt, lastStatus: delivery.lastStatus, lastError: delivery.lastError,
            createdAt: delivery.createdAt, deliveredAt: delivery.deliveredAt)
    }
}
