import { Controller, Get, Inject, OnModuleDestroy, Res } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Access } from '../platform/access.decorator';

type Check = 'ok' | 'down';

/** `GET /health` (CONTRACT.md §8): `200` while the metadata store answers, else `503`; Redis is reported. */
@Controller('health')
@Access('public')
export class HealthController implements OnModuleDestroy {
  private readonly redis: Redis | null;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.redis = config.redisUrl
      ? new Redis(config.redisUrl, {
          lazyConnect: true,
          maxRetriesPerRequest: 1,
          enableOfflineQueue: false,
        })
      : null;
    this.redis?.on('error', () => undefined);
  }

  /** `{status: "ok", checks: {metadata, redis?}}`. */
  @Get()
  async health(@Res() res: Response): Promise<void> {
    const checks: Record<string, Check> = {
      metadata: await this.check(() => this.db.query('SELECT 1')),
    };
    if (this.redis) {
      checks.redis = await this.check(async () => {
        if (this.redis!.status === 'wait') await this.redis!.connect();
        await this.redis!.ping();
      });
    }
    // Only the metadata store is vital: without Redis the service keeps serving with
    // per-instance state (reported here, not fatal).
    const ok = checks.metadata === 'ok';
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks });
  }

  async onModuleDestroy(): Promise<void> {
    this.redis?.disconnect();
  }

  private async check(probe: () => Promise<unknown>): Promise<Check> {
    try {
      await Promise.race([
        probe(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
      ]);
      return 'ok';
    } catch {
      return 'down';
    }
  }
}
