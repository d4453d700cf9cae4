import { Controller, Get, Res } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { settlesWithin } from '../common/settles-within';
import { Access } from '../platform/access.decorator';
import { RedisService } from '../redis/redis.service';
import { ApiRoute } from '../openapi/api-route.decorator';

type Check = 'ok' | 'down';

/** `GET /health` (CONTRACT.md §8): `200` while the metadata store answers, else `503`; Redis is reported. */
@Controller('health')
@Access('public')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly redis: RedisService,
  ) {}

  /** `{status: "ok" | "unavailable", checks: {metadata, redis?}}`, each check `ok` or `down`. */
  @ApiRoute({
    summary: 'Health',
    description:
      '`200` while the metadata store answers (Redis reported, never fatal), else `503`.',
    ok: { description: 'Healthy', schema: 'Health' },
    errors: [{ status: 503, description: 'The metadata store does not answer', schema: 'Health' }],
    access: 'public',
  })
  @Get()
  async health(@Res() res: Response): Promise<void> {
    const checks: Record<string, Check> = {
      metadata: await this.metadata(),
    };
    if (this.redis.state() !== 'off') checks.redis = (await this.redis.ping()) ? 'ok' : 'down';
    // Only the metadata store is vital: without Redis the service keeps serving with
    // per-instance state (reported here, not fatal).
    const ok = checks.metadata === 'ok';
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks });
  }

  private async metadata(): Promise<Check> {
    return (await settlesWithin(this.db.query('SELECT 1'), 2_000)) ? 'ok' : 'down';
  }
}
