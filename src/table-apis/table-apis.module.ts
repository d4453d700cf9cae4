import { Module } from '@nestjs/common';
import { DataModelModule } from '../data-model/data-model.module';
import { PlatformModule } from '../platform/platform.module';
import { TableApisController } from './table-apis.controller';
import { TableApisService } from './table-apis.service';

/** Table API definitions, included fields, publication. */
@Module({
  imports: [PlatformModule, DataModelModule],
  controllers: [TableApisController],
  providers: [TableApisService],
  exports: [TableApisService],
})
export class TableApisModule {}
