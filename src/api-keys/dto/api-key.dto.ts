import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Allow,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
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
  @ApiProperty({
    description: 'Id of an app the key may call; the app must exist.',
    example: '0b8e5c1e-6a55-4c1d-9c4e-2f7d3a1b9e10',
  })
  @IsString()
  appId: string;
  /** `"all"` or `["<apiId>", …]`; checked by the service (class-validator has no union). */
  @ApiProperty({
    description:
      'Table APIs of that app the key may call: the string "all" for every published API, or a list of Table API ids.',
    oneOf: [
      { type: 'string', enum: ['all'] },
      { type: 'array', items: { type: 'string' } },
    ],
    example: 'all',
  })
  @Allow()
  endpoints: 'all' | string[];
}

/** `POST /api/admin/api-keys` body (CONTRACT.md §5). */
export class CreateApiKeyDto {
  @ApiProperty({
    description: 'Name of the key, 1 to 200 characters.',
    minLength: 1,
    maxLength: 200,
    example: 'Shop front-end',
  })
  @IsString()
  @Length(1, 200)
  name: string;
  @ApiProperty({
    description: 'Apps and Table APIs the key may call, at least one entry; fixed at creation.',
    type: () => [ScopeEntryDto],
    minItems: 1,
  })
  @IsArray()
  @ArrayNotEmpty()
  @ValidateNested({ each: true })
  @Type(() => ScopeEntryDto)
  scope: ScopeEntryDto[];
  @ApiPropertyOptional({
    description:
      'Requests-per-minute ceiling of the key, any positive integer; defaults to API_KEY_RATE_LIMIT_PER_MINUTE (600 unless configured).',
    type: 'integer',
    minimum: 1,
    example: 600,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  rateLimitPerMinute?: number;
  @ApiPropertyOptional({
    description:
      'Cost points the key may spend per minute (README "Cost budgets"), any positive integer; defaults to API_KEY_POINTS_PER_MINUTE (10,000 unless configured).',
    type: 'integer',
    minimum: 1,
    example: 10_000,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  pointsPerMinute?: number;
  @ApiPropertyOptional({
    description:
      'Whether the key may delete rows through the MCP endpoint (delete_row, README "Agents (MCP)"); default false. GraphQL deletes follow the key scope alone.',
    type: Boolean,
    default: false,
  })
  @IsOptional()
  @IsBoolean()
  mcpDeletes?: boolean;
  @ApiPropertyOptional({
    description:
      'Expiry as an ISO 8601 date-time, which must be in the future; when omitted the key never expires.',
    type: String,
    format: 'date-time',
    example: '2030-01-01T00:00:00.000Z',
  })
  @IsOptional()
  @IsDateString()
  expiresAt?: string;
}
