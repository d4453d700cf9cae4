import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatasourcesModule } from '../datasources/datasources.module';
import { PlatformModule } from '../platform/platform.module';
import { DataModelController } from './data-model.controller';
import { DataModelService } from './data-model.service';
import { DatasourcesService } from './datasources.service';
import { DatasourceEntity } from './entities/datasource.entity';

/** Datasources, introspection/import, model tables, fields and relations. */
@Module({
  imports: [TypeOrmModule.forFeature([DatasourceEntity]), PlatformModule, DatasourcesModule],
  controllers: [DataModelController],
  providers: [DatasourcesService, DataModelService],
  exports: [DatasourcesService, DataModelService],
})
export class DataModelModule {}
