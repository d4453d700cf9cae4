import { Global, Module } from '@nestjs/common';
import { RedisService } from './redis.service';

/** Owns the Redis connections (global: events, rate limits and health use them). */
@Global()
@Module({ providers: [RedisService], exports: [RedisService] })
export class RedisModule {}
