import { Module } from '@nestjs/common';
import { DatasourcePoolsService } from './datasource-pools.service';

/** The database adapters (one `Dialect` per database) and their pools. Depends on nothing. */
@Module({ providers: [DatasourcePoolsService], exports: [DatasourcePoolsService] })
export class DatasourcesModule {}
