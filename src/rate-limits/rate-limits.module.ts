import { Global, Module } from '@nestjs/common';
import { RateLimitsService } from './rate-limits.service';

/** Per-minute ceilings shared through Redis (global: the gateway and sign-in use them). */
@Global()
@Module({ providers: [RateLimitsService], exports: [RateLimitsService] })
export class RateLimitsModule {}
