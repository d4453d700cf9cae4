import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateIf,
} from 'class-validator';
import type { ColumnKind } from '../../datasources/core/dialect';
import { CONFIRMABLE_KINDS, SQL_API_NAME } from '../sql-api-rules';

/** `POST /api/apps/:appId/sql-apis` body (README "SQL APIs"). */
export class CreateSqlApiDto {
  @ApiProperty({
    description:
      'Unique name of the SQL API: its GraphQL field (salesByCustomer), and with a capital its types (SalesByCustomerRow). A letter, then up to 62 letters, digits or _; not an operation name of a Table API.',
    pattern: SQL_API_NAME.source,
    minLength: 1,
    maxLength: 63,
    example: 'salesByCustomer',
  })
  @Matches(SQL_API_NAME, {
    message: 'name must start with a letter and hold only letters, digits and _ (at most 63)',
  })
  name: string;

  @ApiProperty({ description: 'Id of the app datasource the statement runs on.', example: 'b3f…' })
  @IsString()
  @Length(1, 64)
  datasourceId: string;

  @ApiProperty({
    description:
      'One SQL statement with :name placeholders (bound parameters; never inside quotes or comments), at most 100,000 characters. A query kind is a read (SELECT, WITH, VALUES, TABLE).',
    minLength: 1,
    maxLength: 100_000,
    example:
      'SELECT c.name, SUM(o.total) AS revenue FROM customers c JOIN orders o ON o.customer_id = c.id WHERE o.status = :status GROUP BY c.name',
  })
  @IsString()
  @Length(1, 100_000)
  statement: string;

  @ApiProperty({
    description:
      'query: a GraphQL query field run in a read-only transaction that is rolled back; mutation: a GraphQL mutation field run in the request transaction.',
    enum: ['query', 'mutation'],
    example: 'query',
  })
  @IsIn(['query', 'mutation'])
  kind: 'query' | 'mutation';

  @ApiPropertyOptional({
    description:
      'A query kind also takes where, order and skip, applied around the statement; defaults to false.',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  filterable?: boolean;

  @ApiPropertyOptional({
    description: 'Anonymous callers may call it once published; defaults to false.',
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  public?: boolean;
}

/** `PATCH /api/apps/:appId/sql-apis/:id` body: any field of the create body. */
export class UpdateSqlApiDto extends PartialType(CreateSqlApiDto) {}

/** `PATCH …/sql-apis/:id/arguments/:name` and `…/columns/:name` body: the builder's confirmation. */
export class ConfirmSqlApiPartDto {
  @ApiPropertyOptional({
    description:
      'The kind: decides the GraphQL type and the value format (date, timestamp = date and time without zone, timestamptz = instant, always …Z with milliseconds).',
    enum: CONFIRMABLE_KINDS,
    example: 'timestamptz',
  })
  @IsOptional()
  @IsIn(CONFIRMABLE_KINDS)
  kind?: ColumnKind;

  @ApiPropertyOptional({
    description:
      'Argument: may be left out or null. Column: may be empty (a NULL in a column confirmed not nullable answers INVALID_VALUE).',
  })
  @IsOptional()
  @IsBoolean()
  nullable?: boolean;

  @ApiPropertyOptional({
    description:
      'A model enum typing it (its GraphQL enum, bound as the stored value); null removes it. Only text takes an enum.',
    nullable: true,
    example: 'OrderStatus',
  })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsString()
  @Length(1, 200)
  enum?: string | null;
}
