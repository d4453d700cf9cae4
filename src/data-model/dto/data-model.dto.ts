import {
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  ValidateIf,
} from 'class-validator';

/** `POST /api/apps/:appId/datasources` body (CONTRACT.md §3). */
export class CreateDatasourceDto {
  @IsString() @Length(1, 200) name: string;
  @IsIn(['postgres', 'mysql', 'mssql', 'sqlite']) type: string;
  @IsString() @Length(1, 2000) url: string;
}

/** `POST /api/apps/:appId/model/import` body. */
export class ImportTablesDto {
  @IsString() datasourceId: string;
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) tables: string[];
}

/** `PATCH /api/apps/:appId/model/tables/:table` body. */
export class UpdateModelTableDto {
  @IsOptional() @IsBoolean() active?: boolean;
}

/** `PATCH /api/apps/:appId/model/tables/:table/fields/:field` body: an enum name, or null for text. */
export class UpdateModelFieldDto {
  @IsOptional() @ValidateIf((_, v) => v !== null) @IsString() enum?: string | null;
}
