import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  ValidateNested,
} from 'class-validator';
import type { FieldsTree } from '../../platform/version-definition';

/** Description of the included-fields tree, shared by the create and update bodies. */
const FIELDS_TREE =
  'Included-fields tree: each key a field name, its value `true` for a column, a nested tree for a navigation field (to any depth)';

/** Description of a Table API name, shared by the create and update bodies. */
const NAME =
  'base name of the GraphQL operations (getCustomers, CustomersFilter): a letter, then up to 62 letters, digits or _.';

/** The actions, each on or off; `aggregate` may be left out (off). */
export class ActionsDto {
  @ApiProperty({
    description: 'True exposes the select action (get<Base> and count<Base> queries).',
    example: true,
  })
  @IsBoolean()
  select: boolean;
  @ApiProperty({
    description: 'True exposes the insert action (add<Base> mutation).',
    example: true,
  })
  @IsBoolean()
  insert: boolean;
  @ApiProperty({
    description: 'True exposes the update action (update<Base> mutation).',
    example: false,
  })
  @IsBoolean()
  update: boolean;
  @ApiProperty({
    description: 'True exposes the delete action (delete<Base> mutation).',
    example: false,
  })
  @IsBoolean()
  delete: boolean;
  @ApiPropertyOptional({
    description:
      'True exposes the aggregate action (aggregate<Base> query: counts, sums, averages, min/max per group); defaults to false.',
    default: false,
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  aggregate?: boolean;
}

/** Public switches: any subset of the actions. */
export class PublicActionsDto {
  @ApiPropertyOptional({
    description: 'True lets anonymous callers use the select action; defaults to false.',
    default: false,
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  select?: boolean;
  @ApiPropertyOptional({
    description: 'True lets anonymous callers use the insert action; defaults to false.',
    default: false,
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  insert?: boolean;
  @ApiPropertyOptional({
    description: 'True lets anonymous callers use the update action; defaults to false.',
    default: false,
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  update?: boolean;
  @ApiPropertyOptional({
    description: 'True lets anonymous callers use the delete action; defaults to false.',
    default: false,
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  delete?: boolean;
  @ApiPropertyOptional({
    description: 'True lets anonymous callers use the aggregate action; defaults to false.',
    default: false,
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  aggregate?: boolean;
}

/** API base names become GraphQL names (`getCustomers`, `CustomersFilter`). */
export const API_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** `POST /api/apps/:appId/apis` body (CONTRACT.md §3). */
export class CreateTableApiDto {
  @ApiProperty({
    description: `Unique name of the API, the ${NAME}`,
    pattern: API_NAME,
    minLength: 1,
    maxLength: 63,
    example: 'customers',
  })
  @Matches(API_NAME, {
    message: 'name must start with a letter and hold only letters, digits and _ (at most 63)',
  })
  name: string;
  @ApiProperty({
    description: 'Name of the model table the API exposes, 1 to 200 characters.',
    minLength: 1,
    maxLength: 200,
    example: 'customers',
  })
  @IsString()
  @Length(1, 200)
  table: string;
  @ApiProperty({
    description: 'The four actions of the API, each switched on or off.',
    type: () => ActionsDto,
  })
  @ValidateNested()
  @Type(() => ActionsDto)
  actions: ActionsDto;
  @ApiPropertyOptional({
    description: 'Actions anonymous callers may use; an omitted action is not public.',
    type: () => PublicActionsDto,
  })
  @IsOptional()
  @ValidateNested()
  @Type(() => PublicActionsDto)
  public?: PublicActionsDto;
  @ApiPropertyOptional({
    description: `${FIELDS_TREE}; when omitted, every column of the table and no navigation.`,
    type: 'object',
    additionalProperties: true,
    example: { id: true, name: true, orders: { id: true, total: true } },
  })
  @IsOptional()
  @IsObject()
  fields?: FieldsTree;
}

/**
 * `PATCH /api/apps/:appId/apis/:apiId` body: any field of the create body, with its rules
 * (`PartialType` of `@nestjs/swagger` carries validation and documentation over), and `fields`
 * may also be null: every column of the table and no navigation again.
 */
export class UpdateTableApiDto extends PartialType(OmitType(CreateTableApiDto, ['fields'])) {
  @ApiPropertyOptional({
    description: `${FIELDS_TREE}; null means every column of the table and no navigation.`,
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { id: true, name: true, orders: { id: true, total: true } },
  })
  @IsOptional()
  fields?: FieldsTree | null;
}
