import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';

/** Liveness and dependency checks. */
@Module({ controllers: [HealthController] })
export class HealthModule {}
