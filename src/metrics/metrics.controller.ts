import { ApiExcludeController } from '@nestjs/swagger';
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError, ErrorCode } from '../common/domain-error';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Access } from '../platform/access.decorator';
import { MetricsService } from './metrics.service';

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * `GET /metrics` (CONTRACT.md §8): Prometheus text, only with `Authorization: Bearer
 * <METRICS_TOKEN>`. Without `METRICS_TOKEN` the route does not exist (404): metrics name apps and
 * traffic, so they are never open by default.
 */
@Controller('metrics')
@Access('public')
@ApiExcludeController()
export class MetricsController {
  private readonly token: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.token = config.operations.metricsToken ? digest(config.operations.metricsToken) : null;
  }

  /**
   * The metrics in Prometheus text format.
   * @throws DomainError NOT_FOUND (404) without `METRICS_TOKEN`; UNAUTHORIZED (401) for a
   * missing or wrong token (compared in constant time).
   */
  @Get()
  async scrape(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.token) throw new DomainError(ErrorCode.NotFound, 'Not found');
    const sent = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(digest(sent), this.token)) {
      throw new DomainError(
        ErrorCode.Unauthenticated,
        'Metrics need Authorization: Bearer <METRICS_TOKEN>',
      );
    }
    res.setHeader('content-type', this.metrics.registry.contentType);
    res.end(await this.metrics.registry.metrics());
  }
}
