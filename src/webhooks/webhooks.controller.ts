import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiRoute } from '../openapi/api-route.decorator';
import { AppsService } from '../platform/apps.service';
import { CurrentSession } from '../platform/current-session.decorator';
import type { PlatformSession } from '../platform/sessions.service';
import { WebhookDto } from './dto/webhook.dto';
import { type DeliveryView, type WebhookView, WebhooksService } from './webhooks.service';

/**
 * Webhooks of an app (issue 28 item 1, README "Webhooks"); builders and administrators, in their
 * working version (they fire once it is main). Secrets appear in the create and rotate answers
 * only.
 */
@Controller('api/apps/:appId/webhooks')
export class WebhooksController {
  constructor(
    private readonly apps: AppsService,
    private readonly webhooks: WebhooksService,
  ) {}

  /** `POST …/webhooks` → `201` the webhook with its `secret` (`whsec_…`), shown this once. */
  @ApiRoute({
    summary: 'Create a webhook (working version)',
    description:
      'The URL is checked (form, and every address its host resolves to must be public). The answer carries the signing secret (whsec_…), never shown again.',
    ok: { status: 201, description: 'The webhook and its secret', schema: 'CreatedWebhook' },
    errors: [400, 404, 409, 415],
  })
  @Post()
  async create(
    @Param('appId') appId: string,
    @Body() body: WebhookDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<WebhookView & { secret: string }> {
    await this.apps.get(appId);
    return this.webhooks.create(appId, s.accountId, body);
  }

  /** `GET …/webhooks`. */
  @ApiRoute({
    summary: "List an app's webhooks",
    description:
      'Webhooks of your working version, with their delivery state (suspended, failing since).',
    ok: { description: 'The webhooks', schema: ['Webhook'] },
    errors: [404],
  })
  @Get()
  async list(
    @Param('appId') appId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<WebhookView[]> {
    await this.apps.get(appId);
    return this.webhooks.list(appId, s.accountId);
  }

  /** `GET …/webhooks/:id`. */
  @ApiRoute({
    summary: 'Read a webhook',
    ok: { description: 'The webhook', schema: 'Webhook' },
    errors: [404],
  })
  @Get(':id')
  async get(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<WebhookView> {
    await this.apps.get(appId);
    return this.webhooks.get(appId, s.accountId, id);
  }

  /** `PUT …/webhooks/:id`: the whole definition (the secret stays). */
  @ApiRoute({
    summary: 'Replace a webhook',
    description: 'enabled: true also lifts a suspension (after a 410 or 3 days of failures).',
    ok: { description: 'The webhook', schema: 'Webhook' },
    errors: [400, 404, 409, 415],
  })
  @Put(':id')
  async update(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @Body() body: WebhookDto,
    @CurrentSession() s: PlatformSession,
  ): Promise<WebhookView> {
    await this.apps.get(appId);
    return this.webhooks.update(appId, s.accountId, id, body);
  }

  /** `DELETE …/webhooks/:id` → `204`. */
  @ApiRoute({
    summary: 'Delete a webhook',
    ok: { status: 204, description: 'Deleted' },
    errors: [404],
  })
  @Delete(':id')
  @HttpCode(204)
  async remove(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<void> {
    await this.apps.get(appId);
    await this.webhooks.remove(appId, s.accountId, id);
  }

  /** `POST …/webhooks/:id/rotate-secret` → the new secret; the old one signs too for 24 h. */
  @ApiRoute({
    summary: "Rotate a webhook's secret",
    description:
      'Answers the new secret (shown this once). For 24 hours every delivery carries two signatures, one per secret.',
    ok: {
      status: 201,
      description: 'The new secret and when the previous one stops signing',
      schema: 'WebhookSecret',
    },
    errors: [404],
  })
  @Post(':id/rotate-secret')
  async rotate(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<{ secret: string; previousExpiresAt: string }> {
    await this.apps.get(appId);
    return this.webhooks.rotateSecret(appId, s.accountId, id);
  }

  /** `GET …/webhooks/:id/deliveries`: the newest 100, newest first. */
  @ApiRoute({
    summary: "A webhook's delivery log",
    ok: {
      description: 'Deliveries: status, attempts, last answer, next attempt',
      schema: ['WebhookDelivery'],
    },
    errors: [404],
  })
  @Get(':id/deliveries')
  async deliveries(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<DeliveryView[]> {
    await this.apps.get(appId);
    return this.webhooks.deliveries(appId, s.accountId, id);
  }

  /** `POST …/webhooks/:id/deliveries/:deliveryId/retry` → `202`. */
  @ApiRoute({
    summary: 'Send a delivery again now',
    ok: { status: 202, description: 'Queued', schema: 'RetriedDelivery' },
    errors: [404, 409],
  })
  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  async retry(
    @Param('appId') appId: string,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
    @CurrentSession() s: PlatformSession,
  ): Promise<{ status: 'queued' }> {
    await this.apps.get(appId);
    await this.webhooks.retry(appId, s.accountId, id, deliveryId);
    return { status: 'queued' };
  }
}
