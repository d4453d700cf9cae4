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

/** The four actions, each on or off. */
export class ActionsDto {
  @IsBoolean() select: boolean;
  @IsBoolean() insert: boolean;
  @IsBoolean() update: boolean;
  @IsBoolean() delete: boolean;
}

/** Public switches: any subset of the four actions. */
export class PublicActionsDto {
  @IsOptional() @IsBoolean() select?: boolean;
  @IsOptional() @IsBoolean() insert?: boolean;
  @IsOptional() @IsBoolean() update?: boolean;
  @IsOptional() @IsBoolean() delete?: boolean;
}

/** API base names become GraphQL names (`getCustomers`, `CustomersFilter`). */
export const API_NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

/** `POST /api/apps/:appId/apis` body (CONTRACT.md §3). */
export class CreateTableApiDto {
  @Matches(API_NAME, {
    message: 'name must start with a letter and hold only letters, digits and _ (at most 63)',
  })
  name: string;
  @IsString() @Length(1, 200) table: string;
  @ValidateNested() @Type(() => ActionsDto) actions: ActionsDto;
  @IsOptional() @ValidateNested() @Type(() => PublicActionsDto) public?: PublicActionsDto;
  @IsOptional() @IsObject() fields?: FieldsTree;
}

/** `PATCH /api/apps/:appId/apis/:apiId` body: any field of the create body. */
export class UpdateTableApiDto {
  @IsOptional()
  @Matches(API_NAME, {
    message: 'name must start with a letter and hold only letters, digits and _ (at most 63)',
  })
  name?: string;
  @IsOptional() @IsString() @Length(1, 200) table?: string;
  @IsOptional() @ValidateNested() @Type(() => ActionsDto) actions?: ActionsDto;
  @IsOptional() @ValidateNested() @Type(() => PublicActionsDto) public?: PublicActionsDto;
  @IsOptional() fields?: FieldsTree | null;
}
