import { Module } from '@nestjs/common';
import { DataModelModule } from '../data-model/data-model.module';
import { PlatformModule } from '../platform/platform.module';
import { SqlApisController } from './sql-apis.controller';
import { SqlApisService } from './sql-apis.service';

/** SQL API definitions: statement, described and confirmed types, publication (README "SQL APIs"). */
@Module({
  imports: [PlatformModule, DataModelModule],
  controllers: [SqlApisController],
  providers: [SqlApisService],
  exports: [SqlApisService],
})
export class SqlApisModule {}
