import { Global, Module } from '@nestjs/common';
import { CostBudgetsService } from './cost-budgets.service';
import { RateLimitsService } from './rate-limits.service';

/**
 * Per-minute ceilings shared through Redis (global: the gateway and sign-in use them): requests
 * per minute ({@link RateLimitsService}) and keys' cost points per minute
 * ({@link CostBudgetsService}).
 */
@Global()
@Module({
  providers: [RateLimitsService, CostBudgetsService],
  exports: [RateLimitsService, CostBudgetsService],
})
export class RateLimitsModule {}
