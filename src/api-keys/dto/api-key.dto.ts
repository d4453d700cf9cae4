import { Type } from 'class-transformer';
import {
  Allow,
  ArrayNotEmpty,
  IsArray,
  IsDateString,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Min,
  ValidateNested,
} from 'class-validator';

/** One entry of a key's scope: an app, and `"all"` or a list of Table API ids. */
export class ScopeEntryDto {
  @IsString() appId: string;
  /** `"all"` or `["<apiId>", …]`; checked by the service (class-validator has no union). */
  @Allow() endpoints: 'all' | string[];
}

/** `POST /api/admin/api-keys` body (CONTRACT.md §5). */
export class CreateApiKeyDto {
  @IsString() @Length(1, 200) name: string;
  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => ScopeEntryDto)
  scope: ScopeEntryDto[];
  @IsOptional() @IsInt() @Min(1) rateLimitPerMinute?: number;
  @IsOptional() @IsDateString() expiresAt?: string;
}
