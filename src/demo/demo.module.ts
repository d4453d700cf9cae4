import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { DataModelModule } from '../data-model/data-model.module';
import { EnumsModule } from '../enums/enums.module';
import { PlatformModule } from '../platform/platform.module';
import { TableApisModule } from '../table-apis/table-apis.module';
import { DemoService } from './demo.service';

/** Seeds the demo app (CONTRACT.md §9). */
@Module({
  imports: [PlatformModule, DataModelModule, EnumsModule, TableApisModule, ApiKeysModule],
  providers: [DemoService],
  exports: [DemoService],
})
export class DemoModule {}
