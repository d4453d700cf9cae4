import { Module } from '@nestjs/common';
import { DataModelModule } from '../data-model/data-model.module';
import { PlatformModule } from '../platform/platform.module';
import { RemovalsController } from './removals.controller';
import { RemovalsService } from './removals.service';

/** Deleting apps and datasources across the modules that hold their rows. */
@Module({
  imports: [PlatformModule, DataModelModule],
  controllers: [RemovalsController],
  providers: [RemovalsService],
})
export class RemovalsModule {}
