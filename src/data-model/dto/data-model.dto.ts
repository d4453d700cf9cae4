import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** `POST /api/apps/:appId/datasources` body (CONTRACT.md §3). */
export class CreateDatasourceDto {
  @ApiProperty({
    description: 'Name of the datasource, 1 to 200 characters.',
    minLength: 1,
    maxLength: 200,
    example: 'Sales database',
  })
  @IsString()
  @Length(1, 200)
  name: string;
  @ApiProperty({
    description: 'Database engine of the datasource: postgres, mysql, mssql or sqlite.',
    enum: ['postgres', 'mysql', 'mssql', 'sqlite'],
    example: 'postgres',
  })
  @IsIn(['postgres', 'mysql', 'mssql', 'sqlite'])
  type: string;
  @ApiProperty({
    description:
      'Connection URL, 1 to 2000 characters, tried before it is saved and never echoed back.',
    minLength: 1,
    maxLength: 2000,
    example: 'postgres://reader:secret@db.example.com:5432/sales',
  })
  @IsString()
  @Length(1, 2000)
  url: string;
  @ApiPropertyOptional({
    description:
      'IANA time zone (e.g. America/Sao_Paulo) in which dates and times without zone are read when an SQL API declares them zoned instants; defaults to UTC.',
    default: 'UTC',
    maxLength: 64,
    example: 'UTC',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  timeZone?: string;
}

/** `POST /api/apps/:appId/model/import` body. */
export class ImportTablesDto {
  @ApiProperty({
    description: 'Id of the app datasource to import the tables from.',
    example: '0b8e5c1e-6a55-4c1d-9c4e-2f7d3a1b9e10',
  })
  @IsString()
  datasourceId: string;
  @ApiProperty({
    description:
      'Tables of the live database to import (or refresh), at least one, each as "schema.table".',
    type: [String],
    minItems: 1,
    example: ['public.customers', 'public.orders'],
  })
  @IsArray()
  @ArrayNotEmpty()
  @IsString({ each: true })
  tables: string[];
}

/** `PATCH /api/apps/:appId/model/tables/:table` body: activation and/or a chosen key. */
export class UpdateModelTableDto {
  @ApiPropertyOptional({
    description: 'True activates the model table; false deactivates it, so it leaves the schema.',
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  active?: boolean;
  @ApiPropertyOptional({
    description:
      'Columns that identify a row, in order, for a view or a table whose database declares no primary key (refused for a table that declares one). They complete every order and are typed ID. Not checked for uniqueness. [] removes the chosen key.',
    type: [String],
    maxItems: 32,
    example: ['film_id'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  primaryKey?: string[];
}

/** `PATCH /api/apps/:appId/model/tables/:table/fields/:field` body: an enum name, or null for text. */
export class UpdateModelFieldDto {
  @ApiPropertyOptional({
    description: 'Name of a model enum the field takes its values from, or null for plain text.',
    type: String,
    nullable: true,
    example: 'OrderStatus',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  enum?: string | null;
}

/**
 * A datasource's read-only login (README "Datasources"): a user name and password used with the
 * datasource's host and database. Never answered back.
 */
export class ReadOnlyLoginDto {
  @ApiProperty({
    description: 'User name of a login that may only read the database, 1 to 128 characters.',
    minLength: 1,
    maxLength: 128,
    example: 'reporter',
  })
  @IsString()
  @Length(1, 128)
  user: string;
  @ApiProperty({
    description: 'Its password, at most 1000 characters; stored encrypted, never echoed back.',
    maxLength: 1000,
    example: 'secret',
  })
  @IsString()
  @Length(0, 1000)
  password: string;
}

/**
 * `PATCH /api/apps/:appId/datasources/:dsId` body: a new name and/or new connection URL (new
 * credentials, host or database) of the same type. The URL is tried before it is saved and is
 * never answered back.
 */
export class UpdateDatasourceDto {
  @ApiPropertyOptional({
    description: 'New name of the datasource, 1 to 200 characters.',
    minLength: 1,
    maxLength: 200,
    example: 'Sales database',
  })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  name?: string;
  @ApiPropertyOptional({
    description:
      'New connection URL of the same database type, 1 to 2000 characters, tried before it is saved and never echoed back.',
    minLength: 1,
    maxLength: 2000,
    example: 'postgres://reader:new-secret@db.example.com:5432/sales',
  })
  @IsOptional()
  @IsString()
  @Length(1, 2000)
  url?: string;
  @ApiPropertyOptional({
    description:
      'IANA time zone (e.g. America/Sao_Paulo) in which dates and times without zone are read when an SQL API declares them zoned instants; the next request reads them in it.',
    maxLength: 64,
    example: 'Europe/Lisbon',
  })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  timeZone?: string;
  @ApiPropertyOptional({
    description:
      "A login that may only read, used with the datasource's host and database by query-kind SQL APIs (needed on SQL Server to publish one; optional elsewhere). Tried before it is saved and refused when it may write (what it may write is listed); null removes it. Stored encrypted, never echoed back: the datasource answers only readOnlyLogin true or false. Not on SQLite.",
    type: () => ReadOnlyLoginDto,
    nullable: true,
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @ValidateNested()
  @Type(() => ReadOnlyLoginDto)
  readOnlyLogin?: ReadOnlyLoginDto | null;
}

/** `POST /api/apps/:appId/datasources/test` body: a connection to try, nothing saved. */
export class TestDatasourceDto {
  @ApiProperty({
    description: 'Database engine: postgres, mysql, mssql or sqlite.',
    enum: ['postgres', 'mysql', 'mssql', 'sqlite'],
    example: 'postgres',
  })
  @IsIn(['postgres', 'mysql', 'mssql', 'sqlite'])
  type: string;
  @ApiProperty({
    description: 'Connection URL to try, 1 to 2000 characters; never echoed back.',
    minLength: 1,
    maxLength: 2000,
    example: 'postgres://reader:secret@db.example.com:5432/sales',
  })
  @IsString()
  @Length(1, 2000)
  url: string;
}
